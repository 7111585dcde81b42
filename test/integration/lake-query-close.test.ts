// LakeQuery.close() while work runs: the instance closes only after the running queries and the
// cache's started background work (persisting derived days) have handed their connections back.
// Before, close() closed DuckDB at once; under a running persist the process died of SIGSEGV
// (dimension-rollups.test.ts, one CI run in three; reproduced with three copies side by side).
// The lake is the test lake (MARGINAL_TEST_LAKE: the open lake by default, or the manifest lake).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQuery } from '../../api/lake/lake-query.js';
import { ORG_A, lakeEvent } from '../support/lake-event-builder.js';
import { openTestProcessorLake } from '../support/processor-fixtures.js';
import { testLakeQueryOptions } from '../support/test-lake.js';

const NOW = new Date('2025-03-20T15:00:00.000Z');
const DAY = 86_400_000;
const RANGE = { start: new Date(NOW.getTime() - 40 * DAY), end: NOW };
const SQL =
  'SELECT CAST(sum(c.total_cost) AS VARCHAR) AS cost, CAST(sum(c.event_count) AS BIGINT) AS n FROM {{costs}} c WHERE c.organization_id = $org';
let lakeDir: string;

beforeAll(async () => {
  lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-close-'));
  const writer = await openTestProcessorLake(lakeDir);
  // One event a day for the 30 days before NOW, costing 1, 2, … 30: 465 in all.
  const rows = Array.from({ length: 30 }, (_, i) =>
    lakeEvent({ kafka_offset: i, event_timestamp: new Date(NOW.getTime() - (i + 1) * DAY), total_cost: String(i + 1) }),
  );
  await writer.flush(0, rows, rows.length);
  await writer.close();
});

afterAll(() => {
  fs.rmSync(lakeDir, { recursive: true, force: true });
});

function persistedFiles(): string[] {
  const dir = path.join(lakeDir, '_derived');
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.parquet')) : [];
}

describe('LakeQuery.close', () => {
  it('waits for the persisting a request started, then refuses new work', async () => {
    fs.rmSync(path.join(lakeDir, '_derived'), { recursive: true, force: true });
    const q = await LakeQuery.open(lakeDir, { ...testLakeQueryOptions(lakeDir), refreshIntervalMs: 0 });
    // The query builds 30 settled days; idle() starts their persisting in the background.
    expect(await q.row({ organizationId: ORG_A, range: RANGE }, SQL)).toEqual({ cost: '465.000000000000', n: 30 });
    const persisting = q.cache.idle();
    const closing = q.close();
    await expect(q.row({ organizationId: ORG_A, range: RANGE }, SQL)).rejects.toThrow('LakeQuery is closed');
    await closing;
    await persisting;
    // The persist ran to its end on the open instance: a batch of the 30 days is on disk.
    expect(persistedFiles().length).toBeGreaterThan(0);
    expect(q.close()).toBe(closing);
  });

  it('a query running when close() is called gets its answer; opening, asking and closing at once 20 times never crashes', async () => {
    for (let i = 0; i < 20; i++) {
      fs.rmSync(path.join(lakeDir, '_derived'), { recursive: true, force: true });
      const q = await LakeQuery.open(lakeDir, { ...testLakeQueryOptions(lakeDir), refreshIntervalMs: 0 });
      const first = q.row({ organizationId: ORG_A, range: RANGE }, SQL);
      await new Promise((r) => setTimeout(r, i % 5));
      const answer = first.then(
        (row) => row,
        (e: Error) => e.message,
      );
      await q.close();
      // Refused if close() came before it asked for a connection; otherwise answered in full.
      expect([{ cost: '465.000000000000', n: 30 }, 'LakeQuery is closed']).toContainEqual(await answer);
    }
  });
});
