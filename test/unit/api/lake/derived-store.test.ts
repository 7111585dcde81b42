// Persisted derived days (api/lake/derived-store.ts): a fresh LakeQuery answers from the files an
// earlier one persisted, equal to the raw-event oracle and to figures worked out here, and a
// persisted day is never used once the day changes (its version on the open lake). The lake is the
// test lake (openTestProcessorLake, testLakeQueryOptions).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQuery, type LakeScope } from '../../../../api/lake/lake-query.js';
import { columnKey, dimensionKey, queryCostBuckets, queryCostGroups, queryCostTotals } from '../../../../api/costs/costs.queries.js';
import { queryUsageByMetric, queryUsageEvents } from '../../../../api/usage/usage.queries.js';
import { queryNumericTotals } from '../../../../api/dimension-data/dimension-data.queries.js';
import { dayFingerprint } from '../../../../api/lake/derived-store.js';
import { endUserIdFor } from '../../../../core/ids.js';
import type { LakeEventRow } from '../../../../core/lake/events-schema.js';
import { openTestProcessorLake } from '../../../support/processor-fixtures.js';
import { testLakeQueryOptions } from '../../../support/test-lake.js';
import { ORG_A, lakeEvent } from '../../../support/lake-event-builder.js';
import { eventually } from '../../../support/eventually.js';

const d = (s: string) => new Date(s);
const RANGE = { start: d('2025-03-10T00:00:00Z'), end: d('2025-03-13T00:00:00Z') };
/** Sub-day bounds: whole hours of the end days come from the hourly derivations. */
const SUB_DAY = { start: d('2025-03-10T06:00:00Z'), end: d('2025-03-12T18:00:00Z') };

function ev(
  partition: number,
  offset: number,
  at: string,
  user: string,
  cost: string,
  meta: Record<string, unknown>,
  extra: Partial<LakeEventRow> = {},
): LakeEventRow {
  return lakeEvent({
    kafka_partition: partition,
    kafka_offset: offset,
    event_timestamp: d(at),
    user_id: user,
    total_cost: cost,
    input_cost: cost,
    output_cost: '0',
    metadata: JSON.stringify(meta),
    ...extra,
  });
}

// Two partitions, so each day has two files to merge (the harder layout bench/api uses).
const P0 = [
  ev(0, 0, '2025-03-10T08:00:00Z', 'alice', '1.5', { team: 'red', latency_ms: 10 }),
  ev(0, 1, '2025-03-11T09:00:00Z', 'bob', '2.25', { team: 'blue', latency_ms: 30 }),
  ev(0, 2, '2025-03-12T10:00:00Z', 'alice', '0.000000000001', { team: 'red' }, { model: 'gpt-4o-mini' }),
];
const P1 = [
  ev(1, 0, '2025-03-10T20:00:00Z', 'bob', '4', { team: 'blue', latency_ms: 20 }),
  ev(
    1,
    1,
    '2025-03-11T03:00:00Z',
    'alice',
    '8',
    { latency_ms: 5.5 },
    { status: 'pending_rate_card', total_cost: '0', input_cost: null, output_cost: null },
  ),
  ev(
    1,
    2,
    '2025-03-12T12:00:00Z',
    'carol',
    '16',
    { team: 'red' },
    { metric: 'Images', unit: 'image', quantity: 3, input_tokens: null, output_tokens: null },
  ),
];

/** Every read that can come from derived days, as each endpoint asks it. */
async function answers(lake: LakeQuery) {
  const out: Record<string, unknown> = {};
  for (const [name, range] of [
    ['days', RANGE],
    ['subday', SUB_DAY],
  ] as const) {
    const scope: LakeScope & { range: typeof range } = { organizationId: ORG_A, range };
    out[`${name}:totals`] = await queryCostTotals(lake, scope);
    out[`${name}:by-user`] = sortBy(await queryCostGroups(lake, scope, columnKey('end_user_id')));
    out[`${name}:by-model`] = sortBy(await queryCostGroups(lake, scope, columnKey('model')));
    out[`${name}:by-team`] = sortBy(await queryCostGroups(lake, scope, dimensionKey('team')));
    out[`${name}:daily`] = await queryCostBuckets(lake, scope, 'daily', null);
    out[`${name}:usage`] = await queryUsageByMetric(lake, scope);
    out[`${name}:latency`] = await queryNumericTotals(lake, scope, 'latency_ms');
    out[`${name}:events`] = (await queryUsageEvents(lake, scope, {}, { limit: 2, offset: 1 })).events.map((e) => e.event_id);
  }
  return out;
}

function sortBy<T extends { group_value: string | null }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => String(a.group_value).localeCompare(String(b.group_value)));
}

function persistedBatches(lakeDir: string, derivationPrefix: string): string[] {
  const root = path.join(lakeDir, '_derived');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .filter((f) => f.startsWith(derivationPrefix))
    .flatMap((f) => {
      const orgDir = path.join(root, f, `org=${ORG_A}`);
      return fs.existsSync(orgDir)
        ? fs
            .readdirSync(orgDir)
            .filter((n) => n.endsWith('.json'))
            .map((n) => path.join(orgDir, n))
        : [];
    });
}

describe('persisted derived days', () => {
  let dir: string;
  let writer: Awaited<ReturnType<typeof openTestProcessorLake>>;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'derived-store-'));
    writer = await openTestProcessorLake(dir);
    await writer.flush(0, P0, P0.length);
    await writer.flush(1, P1, P1.length);
  });
  afterAll(async () => {
    await writer?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lets a fresh process answer from persisted files, equal to the raw events and to hand figures', async () => {
    const oracle = await LakeQuery.open(dir, { ...testLakeQueryOptions(dir), useRollups: false });
    const expected = await answers(oracle);
    oracle.close();

    // Hand figures: completed cost over the three days = 1.5 + 2.25 + 0.000000000001 + 4 + 16
    // (alice's 8 awaits a rate card, so it counts for usage only).
    expect((expected['days:totals'] as { total_cost: string }).total_cost).toBe('23.750000000001');
    expect((expected['days:totals'] as { event_count: number }).event_count).toBe(5);
    // From 06:00 on the 10th to 18:00 on the 12th: every event is inside.
    expect((expected['subday:totals'] as { total_cost: string }).total_cost).toBe('23.750000000001');
    expect(expected['days:by-team']).toMatchObject([
      { group_value: 'blue', total_cost: '6.250000000000', event_count: 2 },
      { group_value: 'red', total_cost: '17.500000000001', event_count: 3 },
    ]);
    // Completed cost per end user: alice 1.5 + 0.000000000001, bob 2.25 + 4, carol 16.
    const byUser = Object.fromEntries(
      (expected['days:by-user'] as Array<{ group_value: string; total_cost: string }>).map((r) => [r.group_value, r.total_cost]),
    );
    expect(byUser).toEqual({
      [endUserIdFor(ORG_A, 'alice')]: '1.500000000001',
      [endUserIdFor(ORG_A, 'bob')]: '6.250000000000',
      [endUserIdFor(ORG_A, 'carol')]: '16.000000000000',
    });
    // Usage counts completed and pending events: tokens 150 per token event × 5, images 3.
    expect(expected['days:usage']).toMatchObject([
      { metric_name: 'images', total_quantity: 3, event_count: 1 },
      { metric_name: 'tokens', total_quantity: 750, event_count: 5 },
    ]);
    // latency_ms over processed events: 10 + 30 + 20 + 5.5 = 65.5, min 5.5, max 30.
    expect(expected['days:latency']).toEqual({
      event_count: 4,
      sum_value: '65.500000000000',
      min_value: '5.500000000000',
      max_value: '30.000000000000',
    });

    // The first process builds from the lake and persists in the background.
    const first = await LakeQuery.open(dir, testLakeQueryOptions(dir));
    expect(await answers(first)).toEqual(expected);
    await eventually(() => persistedBatches(dir, 'daily_costs-').length > 0, 20_000, 'daily_costs persisted');
    await eventually(
      () => persistedBatches(dir, 'metadata-costs_').length > 0 && persistedBatches(dir, 'usage-metrics-').length > 0,
      20_000,
      'metadata derivations persisted',
    );
    first.close();

    // A fresh process reads the persisted files (nothing built in its memory yet) and agrees.
    const fresh = await LakeQuery.open(dir, testLakeQueryOptions(dir));
    try {
      const sql = await fresh.expand({ organizationId: ORG_A, range: RANGE }, 'SELECT * FROM {{costs}} c');
      expect(sql).toContain(path.join(dir, '_derived'));
      expect(sql).not.toContain(`${path.sep}daily_costs${path.sep}org=`);
      // No query has read that relation yet, so its copy into memory has not started (it would
      // compete with the request's own query for DuckDB's threads): it waits, nothing is in memory.
      expect(fresh.cache.waiting).toBe(1);
      expect(fresh.cache.rows).toBe(0);
      expect(await answers(fresh)).toEqual(expected);
      // Then the persisted rows are copied into memory and the answers stay the same.
      await eventually(() => fresh.cache.rows > 0, 20_000, 'persisted days loaded into memory');
      await eventually(
        async () => !(await fresh.expand({ organizationId: ORG_A, range: RANGE }, 'SELECT * FROM {{costs}} c')).includes('_derived'),
        20_000,
        'costs from memory',
      );
      expect(await answers(fresh)).toEqual(expected);
    } finally {
      fresh.close();
    }
  });

  it("starts a request's background work after its own query, never at another request's end", async () => {
    // Persisted days exist (the test above). In a fresh process, request B's relation reads them
    // from their files and its copy into memory waits for B's query; request A runs to its end
    // meanwhile. With one list shared by all requests, A's end started B's copy (competing with
    // B's query for DuckDB's threads).
    const fresh = await LakeQuery.open(dir, testLakeQueryOptions(dir));
    try {
      const b = await fresh.cache.collect(() => fresh.expand({ organizationId: ORG_A, range: RANGE }, 'SELECT * FROM {{costs}} c'));
      expect(b.value).toContain(path.join(dir, '_derived'));
      expect(fresh.cache.waiting).toBe(1);
      const a = await fresh.rows<{ n: number }>(
        { organizationId: ORG_A, range: RANGE },
        'SELECT count(*) AS n FROM {{events}} e WHERE e.organization_id = $org',
      );
      expect(a).toEqual([{ n: 6 }]); // the six events of P0 and P1
      expect(fresh.cache.waiting).toBe(1);
      expect(fresh.cache.rows).toBe(0);
      b.startBackground();
      expect(fresh.cache.waiting).toBe(0);
      await eventually(() => fresh.cache.rows > 0, 20_000, "B's persisted days copied into memory");
      // Completed cost of the three days, as worked out in the test above.
      expect(
        await fresh.row(
          { organizationId: ORG_A, range: RANGE },
          'SELECT sum(total_cost)::VARCHAR AS c FROM {{costs}} c WHERE c.organization_id = $org',
        ),
      ).toEqual({ c: '23.750000000001' });
    } finally {
      fresh.close();
    }
  });

  it('never uses a persisted day after the day changed', async () => {
    const warm = await LakeQuery.open(dir, testLakeQueryOptions(dir));
    await answers(warm);
    await eventually(() => persistedBatches(dir, 'daily_costs-').length > 0, 20_000, 'persisted');
    warm.close();
    const before = persistedBatches(dir, 'daily_costs-');

    // A later flush adds an event to the 11th: that day's persisted rows are for its old version.
    await writer.flush(0, [ev(0, 3, '2025-03-11T15:00:00Z', 'dave', '32', { team: 'green', latency_ms: 100 })], P0.length + 1);
    const oracle = await LakeQuery.open(dir, { ...testLakeQueryOptions(dir), useRollups: false });
    const expected = await answers(oracle);
    oracle.close();
    expect((expected['days:totals'] as { total_cost: string }).total_cost).toBe('55.750000000001');

    const fresh = await LakeQuery.open(dir, testLakeQueryOptions(dir));
    try {
      const sql = await fresh.expand(
        { organizationId: ORG_A, range: { start: d('2025-03-11'), end: d('2025-03-12') } },
        'SELECT * FROM {{costs}} c',
      );
      // The 11th is rebuilt from the lake into memory, not read from _derived.
      expect(sql).not.toContain('_derived');
      expect(sql).toContain('derived_0');
      expect(await answers(fresh)).toEqual(expected);
      // The new version is persisted under its own fingerprint beside the old batches.
      await eventually(() => persistedBatches(dir, 'daily_costs-').some((f) => !before.includes(f)), 20_000, 'new batch persisted');
      // Its sidecar names the 11th by the day's version now (the open lake's "file" of the day).
      const days = fresh.duckLakeDays!;
      const names = await days.names(await days.snapshot(), 'daily_costs', ORG_A, '2025-03-11', '2025-03-11');
      expect(names).toHaveLength(1);
      const sidecars = persistedBatches(dir, 'daily_costs-').map(
        (f) => JSON.parse(fs.readFileSync(f, 'utf8')) as { days: Record<string, string> },
      );
      expect(sidecars.some((s) => s.days['2025-03-11'] === dayFingerprint(names))).toBe(true);
    } finally {
      fresh.close();
    }

    // And a process after that reads the new batch and still agrees with the oracle.
    const next = await LakeQuery.open(dir, testLakeQueryOptions(dir));
    try {
      expect(await next.expand({ organizationId: ORG_A, range: RANGE }, 'SELECT * FROM {{costs}} c')).toContain('_derived');
      expect(await answers(next)).toEqual(expected);
    } finally {
      next.close();
    }
  });

  it('persists nothing for days that are not settled yet, and nothing when turned off', async () => {
    const today = new Date();
    const at = new Date(Math.floor(today.getTime() / 86_400_000) * 86_400_000 + 60_000);
    const lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'derived-store-today-'));
    const w = await openTestProcessorLake(lakeDir);
    try {
      await w.flush(0, [ev(0, 0, at.toISOString(), 'alice', '1', {})], 1);
      const range = { start: new Date(at.getTime() - 60_000), end: new Date(at.getTime() + 86_400_000 - 60_000) };
      const q = await LakeQuery.open(lakeDir, testLakeQueryOptions(lakeDir));
      expect(await queryCostTotals(q, { organizationId: ORG_A, range })).toMatchObject({ total_cost: '1.000000000000' });
      await q.closeWhenIdle(); // after its background work: persisting would have happened by now
      const off = await LakeQuery.open(lakeDir, {
        ...testLakeQueryOptions(lakeDir),
        derivedDir: false,
        persistSettledMs: -10 * 86_400_000,
      });
      expect(await queryCostTotals(off, { organizationId: ORG_A, range })).toMatchObject({ total_cost: '1.000000000000' });
      await off.closeWhenIdle();
      expect(fs.existsSync(path.join(lakeDir, '_derived'))).toBe(false);
    } finally {
      await w.close();
      fs.rmSync(lakeDir, { recursive: true, force: true });
    }
  });
});
