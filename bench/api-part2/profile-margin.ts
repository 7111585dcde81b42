// Where the first margin request of a fresh process spends its time (issue 18): each piece of
// margin.service.ts timed on its own, in process, over bench/api-part2's data directory (its
// PGlite control plane and lake), first call of a fresh LakeQuery and a cold revenue cache.
//   npx tsx bench/api-part2/profile-margin.ts --data-dir DIR [--piece all|revenue|costs|buckets]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { columnKey, queryCostBuckets, queryCostGroups } from '../../api/costs/costs.queries.js';
import { parseDateRange } from '../../core/time.js';
import { cachedRevenue } from '../../revenue/revenue-cache.js';
import { listRevenueConnections, listRevenueRecords, revenueRecordsVersion } from '../../revenue/revenue.store.js';
import { log, startSyntheticLakeHost, openBenchLakeQuery } from '../api/synthetic-lake-host.js';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, piece: { type: 'string', default: 'all' } } });
const dataDir = path.resolve(values['data-dir']!);
const meta = JSON.parse(fs.readFileSync(path.join(dataDir, 'bench-part2-meta.json'), 'utf8')) as { organizationId: string };
const org = meta.organizationId;
const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
  const t = performance.now();
  const r = await fn();
  log(`${name.padEnd(48)} ${(performance.now() - t).toFixed(1).padStart(8)} ms`);
  return r;
};
const t0 = performance.now();
const bench = await startSyntheticLakeHost({ label: 'profile-margin', dataDir, api: {} });
log(`host started in ${(performance.now() - t0).toFixed(0)} ms`);
const db = bench.host.ctx.db;
const lake = await time('LakeQuery.open', () => openBenchLakeQuery(bench.config));
const year = parseDateRange('2025-01-01', '2026-01-01');
const piece = values.piece;
if (piece === 'all' || piece === 'revenue') {
  await time('listRevenueConnections', () => listRevenueConnections(db, org));
  await time('revenueRecordsVersion', () => revenueRecordsVersion(db, org));
  await time('listRevenueRecords', () => listRevenueRecords(db, org));
  await time('cachedRevenue (first; reads the records again)', () => cachedRevenue(db, org));
  await time('cachedRevenue (second)', () => cachedRevenue(db, org));
}
if (piece === 'expand') {
  // The placeholder expansion alone (the lake's snapshot, derived-day lookup), then the query over it.
  await time('expand {{costs}} 12 months (first)', () => lake.expand({ organizationId: org, range: year }, 'SELECT 1 FROM {{costs}}'));
  await time('expand {{costs}} 12 months (second)', () => lake.expand({ organizationId: org, range: year }, 'SELECT 1 FROM {{costs}}'));
  await time('count(*) FROM {{costs}} 12 months', () =>
    lake.rows({ organizationId: org, range: year }, 'SELECT count(*) AS n FROM {{costs}} c WHERE c.organization_id = $org'),
  );
}
if (piece === 'all' || piece === 'costs') {
  await time('queryCostGroups end_user_id 12 months (first)', () =>
    queryCostGroups(lake, { organizationId: org, range: year }, columnKey('end_user_id'), {}, 'totals'),
  );
  await time('queryCostGroups end_user_id 12 months (second)', () =>
    queryCostGroups(lake, { organizationId: org, range: year }, columnKey('end_user_id'), {}, 'totals'),
  );
}
if (piece === 'all' || piece === 'buckets') {
  await time('queryCostBuckets month 12 months', () => queryCostBuckets(lake, { organizationId: org, range: year }, 'monthly', null, {}));
}
await lake.closeWhenIdle();
await bench.stop();
