// The api's background warm-up of per-day cost aggregates (api/lake/warm-recent-costs.ts): after
// it, the DerivedCache holds the recent days, queries answer the same figures as without a cache,
// and days outside the window are left to the first request that needs them. The lake is the test
// lake (MARGINAL_TEST_LAKE: the open lake, its catalog in a fresh PostgreSQL database, or the
// manifest lake), written by the processor's writer (openTestProcessorLake).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQuery } from '../../api/lake/lake-query.js';
import { warmRecentCosts } from '../../api/lake/warm-recent-costs.js';
import { createLogger } from '../../core/logger.js';
import { ORG_A, ORG_B, lakeEvent } from '../support/lake-event-builder.js';
import { openTestProcessorLake } from '../support/processor-fixtures.js';
import { testLakeQueryOptions } from '../support/test-lake.js';

const NOW = new Date('2025-03-20T15:00:00.000Z');
const DAY = 86_400_000;
let lakeDir: string;

beforeAll(async () => {
  lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-warm-'));
  const writer = await openTestProcessorLake(lakeDir);
  // One event per day for 30 days before NOW (days 1..30 ago) for ORG_A, a few for ORG_B.
  const rows = Array.from({ length: 30 }, (_, i) =>
    lakeEvent({ kafka_offset: i, event_timestamp: new Date(NOW.getTime() - (i + 1) * DAY), total_cost: String(i + 1) }),
  );
  rows.push(
    ...[0, 1].map((i) =>
      lakeEvent({ kafka_offset: 30 + i, organization_id: ORG_B, event_timestamp: new Date(NOW.getTime() - (i + 1) * DAY) }),
    ),
  );
  await writer.flush(0, rows, rows.length);
  await writer.close();
});

afterAll(() => {
  fs.rmSync(lakeDir, { recursive: true, force: true });
});

describe('warmRecentCosts', () => {
  it('builds the last N whole days of every organization; answers stay exact', async () => {
    const warm = await LakeQuery.open(lakeDir, { ...testLakeQueryOptions(lakeDir), refreshIntervalMs: 0 });
    const cold = await LakeQuery.open(lakeDir, { ...testLakeQueryOptions(lakeDir), refreshIntervalMs: 0, useRollups: false });
    try {
      expect(warm.cache!.rows).toBe(0);
      const w = warmRecentCosts(warm, () => NOW, createLogger('silent'), 10);
      await w.done;
      // Days 1..10 ago of ORG_A and days 1..2 of ORG_B: one daily_costs row each.
      expect(warm.cache!.rows).toBe(12);
      const range = { start: new Date(NOW.getTime() - 40 * DAY), end: NOW };
      const sql =
        'SELECT CAST(sum(c.total_cost) AS DECIMAL(38,12)) AS cost, CAST(sum(c.event_count) AS BIGINT) AS n FROM {{costs}} c WHERE c.organization_id = $org';
      const a = await warm.row({ organizationId: ORG_A, range }, sql);
      const b = await cold.row({ organizationId: ORG_A, range }, sql);
      expect(a).toEqual(b);
      expect(a).toMatchObject({ n: 30 });
      // The 40-day query built the 20 older days on demand.
      expect(warm.cache!.rows).toBe(32);
      await w.stop();
    } finally {
      warm.close();
      cold.close();
    }
  });

  // A budget of 8 rows: ORG_A (30 rows of daily_costs, the busiest) fills it with its 10 days;
  // ORG_B's 2 days are left to its first request. Days are built from the lake, or read from the
  // files a previous process persisted (copied into memory after their request: the warm-up must
  // count them before it moves on; CI once saw ORG_B warmed too when they came late).
  for (const source of ['built from the lake', 'read from persisted files'] as const) {
    it(`stops once the row budget is used up, so a quieter organization never pushes out the busiest (days ${source})`, async () => {
      const persisted = source === 'read from persisted files';
      if (persisted) {
        const earlier = await LakeQuery.open(lakeDir, { ...testLakeQueryOptions(lakeDir), refreshIntervalMs: 0 });
        const range = { start: new Date(NOW.getTime() - 40 * DAY), end: NOW };
        for (const organizationId of [ORG_A, ORG_B])
          await earlier.row({ organizationId, range }, 'SELECT count(*) AS n FROM {{costs}} c WHERE c.organization_id = $org');
        await earlier.closeWhenIdle();
      }
      const warm = await LakeQuery.open(lakeDir, {
        ...testLakeQueryOptions(lakeDir),
        refreshIntervalMs: 0,
        cacheMaxRows: 8,
        derivedDir: persisted ? undefined : false,
      });
      try {
        await warmRecentCosts(warm, () => NOW, createLogger('silent'), 10).done;
        await warm.cache.idle();
        expect(warm.cache.full).toBe(true);
        expect(warm.cache.rows).toBe(10);
      } finally {
        warm.close();
      }
    });
  }
});
