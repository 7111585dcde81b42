// What the api prepares before it listens (api/lake/prepare-reads.ts): the busiest organizations'
// revenue records are in the revenue cache, so a margin request reads only their version; the
// cache still follows every change to the records; quieter organizations are left to their first
// request; and the answers are the records as stored. The busiest organizations' last week of
// cost days is in the lake's cache, so a first request over it builds nothing. The lake is the test
// lake (MARGINAL_TEST_LAKE: the manifest lake, or a DuckLake with its catalog in a fresh PostgreSQL
// database).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LakeQuery } from '../../api/lake/lake-query.js';
import { prepareReads } from '../../api/lake/prepare-reads.js';
import { ApiKeyAuthenticator } from '../../core/auth/api-key-authenticator.js';
import { findActiveApiKey } from '../../core/control/api-keys.js';
import type { ControlDb } from '../../core/control/db.js';
import { createOrganization } from '../../core/control/organizations.js';
import { sumMoney, formatMoney } from '../../core/money.js';
import { RateBook } from '../../pricing/rate-book.js';
import { cachedRevenue } from '../../revenue/revenue-cache.js';
import { importRevenueRecords } from '../../revenue/revenue.store.js';
import { describeEachControlDb, TEST_MASTER_KEY } from '../support/control-db.js';
import { lakeEvent } from '../support/lake-event-builder.js';
import { openTestProcessorLake } from '../support/processor-fixtures.js';
import { testLakeQueryOptions } from '../support/test-lake.js';

/** The control plane with every statement it is asked recorded. */
function recorded(db: ControlDb): { db: ControlDb; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    db: {
      kind: db.kind,
      query: <T>(sql: string, params?: unknown[]) => {
        statements.push(sql);
        return db.query<T>(sql, params);
      },
      exec: (sql) => db.exec(sql),
      transaction: (fn) => db.transaction(fn),
      close: () => db.close(),
    },
  };
}

const jan = new Date('2025-01-01T00:00:00.000Z');
const feb = new Date('2025-02-01T00:00:00.000Z');
/** The api's clock: the busy organization's three days (Jan 1–3) are within the last week. */
const now = new Date('2025-01-04T12:00:00.000Z');

describeEachControlDb('reads prepared at start', ({ db }) => {
  let lakeDir: string;
  let lake: LakeQuery;
  let busy: string;
  let quiet: string;

  beforeAll(async () => {
    busy = (await createOrganization(db(), { name: 'prepare-busy' })).id;
    quiet = (await createOrganization(db(), { name: 'prepare-quiet' })).id;
    lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-prepare-'));
    const writer = await openTestProcessorLake(lakeDir);
    // busy: three events on three days (three daily_costs rows); quiet: one.
    const rows = [0, 1, 2].map((i) =>
      lakeEvent({ kafka_offset: i, organization_id: busy, event_timestamp: new Date(jan.getTime() + i * 86_400_000) }),
    );
    rows.push(lakeEvent({ kafka_offset: 3, organization_id: quiet, event_timestamp: jan }));
    await writer.flush(0, rows, rows.length);
    await writer.close();
    lake = await LakeQuery.open(lakeDir, testLakeQueryOptions(lakeDir));
    await importRevenueRecords(db(), busy, [
      { id: 'a', userId: 'u-1', customerName: 'Ada', amount: '10', periodStart: jan, periodEnd: feb },
      { id: 'b', userId: 'u-2', amount: '2.5', periodStart: jan, periodEnd: feb },
    ]);
    await importRevenueRecords(db(), quiet, [{ id: 'q', userId: 'u-9', amount: '1', periodStart: jan, periodEnd: feb }]);
  });

  afterAll(async () => {
    await lake?.closeWhenIdle();
    fs.rmSync(lakeDir, { recursive: true, force: true });
  });

  it('fills the busiest organizations’ revenue cache; a request then reads only the version, and changes still show', async () => {
    const r = recorded(db());
    const auth = new ApiKeyAuthenticator((key) => findActiveApiKey(r.db, TEST_MASTER_KEY, key));
    const built = lake.cache.counts.built;
    const prepared = await prepareReads({ db: r.db, auth }, lake, new RateBook(r.db), { organizations: 1, now: () => now });
    expect(prepared.organizations).toBe(1);
    // The busy organization's last week of cost days is in the cache: its three days built (one
    // daily_costs row each), the quiet one's not. A request over that week builds nothing, and on
    // the open lake reads no day versions (the preparation read every organization's at the
    // snapshot, which still holds).
    expect(lake.cache.counts.built - built).toBe(3);
    const reads = { ...lake.duckLakeDays?.reads };
    const week = { start: new Date(jan.getTime() - 3 * 86_400_000), end: now };
    const costs = 'SELECT CAST(sum(c.event_count) AS BIGINT) AS n FROM {{costs}} c WHERE c.organization_id = $org';
    expect(await lake.row({ organizationId: busy, range: week }, costs)).toEqual({ n: 3 });
    expect(lake.cache.counts.built - built).toBe(3);
    expect(lake.duckLakeDays?.reads.versions).toBe(reads.versions);
    // The quiet organization's day was not built, but its versions were read with everyone's.
    expect(await lake.row({ organizationId: quiet, range: week }, costs)).toEqual({ n: 1 });
    expect(lake.cache.counts.built - built).toBe(4);
    expect(lake.duckLakeDays?.reads.versions).toBe(reads.versions);
    // The key lookup ran (for a key that matches nothing) and the busy organization's records were read.
    expect(r.statements.some((s) => s.includes('FROM api_keys'))).toBe(true);
    expect(r.statements.filter((s) => s.includes('json_agg'))).toHaveLength(1);

    // A margin request's read of the busy organization: the version statement only.
    r.statements.length = 0;
    const revenue = await cachedRevenue(r.db, busy);
    expect(r.statements).toHaveLength(1);
    expect(r.statements[0]).not.toContain('json_agg');
    expect(revenue.records.map((x) => [x.externalUserId, String(x.amount)])).toEqual([
      ['u-1', '10'],
      ['u-2', '2.5'],
    ]);
    expect([...revenue.names.values()]).toEqual([{ externalId: 'u-1', name: 'Ada' }]);

    // The quiet organization was not prepared: its first read fetches its records.
    r.statements.length = 0;
    expect((await cachedRevenue(r.db, quiet)).records.map((x) => String(x.amount))).toEqual(['1']);
    expect(r.statements.some((s) => s.includes('json_agg'))).toBe(true);

    // A new record changes the version: the next read has it. 10 + 2.5 + 0.000000000001.
    await importRevenueRecords(db(), busy, [{ id: 'c', userId: 'u-1', amount: '0.000000000001', periodStart: jan, periodEnd: feb }]);
    const after = await cachedRevenue(r.db, busy);
    expect(formatMoney(sumMoney(after.records.map((x) => x.amount)))).toBe('12.500000000001');
  });
});
