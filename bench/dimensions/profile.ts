// Where a warm dimension request's milliseconds go, in process: the api's own LakeQuery (so the
// cache is the HTTP path's), timing per call of LakeQuery.rows the placeholder expansion (cache
// lookups, the lake's snapshot), the DuckDB query (prepare, bind, run, read) and the row conversion, beside
// the whole service call and the whole HTTP request. Reuses a --data-dir that bench/dimensions wrote.
//   npx tsx bench/dimensions/profile.ts --data-dir DIR [--iterations 50]
import type { LakeQuery } from '../../api/lake/lake-query.js';
import { RateBook } from '../../pricing/rate-book.js';
import { benchLake, benchNow } from '../api/bench-lake.js';
import { log, readBenchOptions, startSyntheticLakeHost } from '../api/synthetic-lake-host.js';
import { dimensionCases } from './cases.js';
import { median } from '../api/stats.js';

const options = readBenchOptions(90);
if (!options.dataDir) throw new Error('--data-dir DIR (a lake bench/dimensions wrote)');
const NOW = benchNow(options.days);
const bench = await startSyntheticLakeHost({ label: 'bench-dimensions-profile', dataDir: options.dataDir, api: { now: () => NOW } });
const meta = await benchLake(bench, options.events, options.days);
const lake = bench.host.ctx.services.lakeQuery as LakeQuery;
const rc = {
  organizationId: meta.organizationId,
  ownerUserId: null,
  lake,
  db: bench.host.ctx.db,
  rateBook: new RateBook(bench.host.ctx.db),
  now: () => NOW,
};

// Instrument: expand, query, convert per rows() call.
const phases = { expand: 0, query: 0, calls: 0 };
const origExpand = lake.expand.bind(lake);
lake.expand = async (scope, sql) => {
  const t = performance.now();
  try {
    return await origExpand(scope, sql);
  } finally {
    phases.expand += performance.now() - t;
    phases.calls++;
  }
};
const origRows = lake.rows.bind(lake);
lake.rows = async (scope, sql, params) => {
  const t = performance.now();
  const before = phases.expand;
  try {
    return await origRows(scope, sql, params);
  } finally {
    phases.query += performance.now() - t - (phases.expand - before);
  }
};

const N = Math.max(options.iterations, 30);
for (const c of dimensionCases(options.days)) {
  for (let i = 0; i < 3; i++) await c.service(rc);
  const svc: number[] = [];
  const exp: number[] = [];
  const q: number[] = [];
  for (let i = 0; i < N; i++) {
    phases.expand = phases.query = 0;
    const t = performance.now();
    await c.service(rc);
    svc.push(performance.now() - t);
    exp.push(phases.expand);
    q.push(phases.query);
  }
  const http: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const res = await fetch(`${bench.host.url}/v1${c.path}?${new URLSearchParams(c.query)}`, {
      headers: { authorization: `Bearer ${meta.apiKey}` },
    });
    await res.text();
    http.push(performance.now() - t);
  }
  log(
    `${c.name.padEnd(60)} http ${median(http).toFixed(2).padStart(6)}  service ${median(svc).toFixed(2).padStart(6)}  expand ${median(exp).toFixed(2).padStart(6)}  query+convert ${median(q).toFixed(2).padStart(6)}`,
  );
}
await bench.stop();
