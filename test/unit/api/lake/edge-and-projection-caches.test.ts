// The read path's two answer-shaped caches: the edge cache (a sub-day slice of a range, kept on
// its second request; api/lake/edge-cache.ts) and the per-end-user projection of cached days
// (api/lake/row-projection.ts). Each figure below is worked out by hand from the events
// written here, and checked against the raw-events oracle (useRollups: false); each case is
// built so that a cache returning a stale or foreign answer (key without the bounds or the file
// list, a projection mixing end users or copying a day twice) gives a different number.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQuery, type LakeScope } from '../../../../api/lake/lake-query.js';
import { endUserIdFor } from '../../../../core/ids.js';
import { openTestProcessorLake } from '../../../support/processor-fixtures.js';
import { testLakeQueryOptions } from '../../../support/test-lake.js';
import { lakeEvent, ORG_A } from '../../../support/lake-event-builder.js';

const d = (s: string) => new Date(s);
let offset = 0;

/** A completed event of ORG_A at `at` costing `cost` (all input), for end user `user`. */
function ev(at: string, cost: string, user = 'u1') {
  const o = offset++;
  return lakeEvent({
    kafka_offset: o,
    idempotency_key: `e-${o}`,
    event_timestamp: d(at),
    user_id: user,
    input_cost: cost,
    output_cost: '0',
    total_cost: cost,
  });
}

const SUM =
  'SELECT CAST(sum(total_cost) AS DECIMAL(38,12)) AS cost, CAST(sum(event_count) AS BIGINT) AS n FROM {{costs}} c WHERE c.organization_id = $org';
const USER_SUM = `${SUM} AND c.end_user_id = $end_user_id`;

describe('edge cache and end-user projections', () => {
  let dir: string;
  let writer: Awaited<ReturnType<typeof openTestProcessorLake>>;
  let lake: LakeQuery;
  let raw: LakeQuery;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lake-edges-'));
    writer = await openTestProcessorLake(dir);
    await writer.flush(
      0,
      [
        ev('2025-03-10T06:10:00Z', '1'),
        ev('2025-03-10T06:40:00Z', '2', 'u2'),
        ev('2025-03-10T09:15:00Z', '4'),
        ev('2025-03-10T18:50:00Z', '8', 'u2'),
        ev('2025-03-11T01:00:00Z', '16'),
        ev('2025-03-11T13:00:00Z', '0.000000000001', 'u2'),
        ev('2025-03-12T07:20:00Z', '32'),
        ev('2025-03-12T07:45:00Z', '64', 'u2'),
      ],
      8,
    );
    // derivedDir false: every day is built in memory (no persisted day read directly).
    lake = await LakeQuery.open(dir, { ...testLakeQueryOptions(dir), refreshIntervalMs: 0, cacheGraceMs: 0, derivedDir: false });
    raw = await LakeQuery.open(dir, { ...testLakeQueryOptions(dir), refreshIntervalMs: 0, useRollups: false });
  });

  afterAll(async () => {
    lake?.close();
    raw?.close();
    await writer?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const scope = (start: string, end: string, endUserId?: string): LakeScope => ({
    organizationId: ORG_A,
    range: { start: d(start), end: d(end) },
    ...(endUserId ? { only: { column: 'end_user_id', value: endUserId } } : {}),
  });

  it('keeps a sub-day slice on its second request and answers it from the kept table, exactly', async () => {
    // 06:30 on the 10th to 07:30 on the 12th: 2 + 4 + 8 (10th after 06:30), 16 + 0.000000000001 (11th), 32 (12th before 07:30).
    const s = scope('2025-03-10T06:30:00Z', '2025-03-12T07:30:00Z');
    const expected = [{ cost: '62.000000000001', n: 6 }];
    expect(await raw.rows(s, SUM)).toEqual(expected);
    expect(await lake.rows(s, SUM)).toEqual(expected);
    expect(lake.edges.size.slices).toBe(0); // asked once: nothing kept
    expect(await lake.rows(s, SUM)).toEqual(expected);
    expect(lake.edges.size.slices).toBe(2); // the 10th from 06:30, the 12th until 07:30
    const sql = await lake.expand(s, SUM);
    expect(sql).toContain('edge_');
    expect(sql).not.toContain('read_parquet'); // no raw events read any more
    expect(await lake.rows(s, SUM)).toEqual(expected);
  });

  it('keys a slice by its exact bounds', async () => {
    // From 06:45 instead: the 06:40 event (2) is out; the end slice is the one kept above.
    const s = scope('2025-03-10T06:45:00Z', '2025-03-12T07:30:00Z');
    const expected = [{ cost: '60.000000000001', n: 5 }];
    expect(await raw.rows(s, SUM)).toEqual(expected);
    for (let i = 0; i < 3; i++) expect(await lake.rows(s, SUM)).toEqual(expected);
    expect(lake.edges.size.slices).toBe(3);
    // Until 07:50 on the 12th: 64 joins.
    const later = scope('2025-03-10T06:30:00Z', '2025-03-12T07:50:00Z');
    for (let i = 0; i < 3; i++) expect(await lake.rows(later, SUM)).toEqual([{ cost: '126.000000000001', n: 7 }]);
  });

  it('requests at once for a slice asked before keep one table for it, as one request would', async () => {
    // 06:20 on the 10th to 07:40 on the 12th: 2 + 4 + 8, 16 + 0.000000000001, 32.
    const s = scope('2025-03-10T06:20:00Z', '2025-03-12T07:40:00Z');
    const expected = [{ cost: '62.000000000001', n: 6 }];
    const open = () => LakeQuery.open(dir, { ...testLakeQueryOptions(dir), refreshIntervalMs: 0, cacheGraceMs: 0, derivedDir: false });
    const [one, many] = [await open(), await open()];
    try {
      for (let i = 0; i < 2; i++) expect(await one.rows(s, SUM)).toEqual(expected);
      expect(await many.rows(s, SUM)).toEqual(expected);
      const answers = await Promise.all(Array.from({ length: 5 }, () => many.rows(s, SUM)));
      for (const a of answers) expect(a).toEqual(expected);
      expect(one.edges.size.slices).toBe(2);
      // A second table kept for a slice would count its rows twice (and never be dropped).
      expect(many.edges.size).toEqual(one.edges.size);
    } finally {
      one.close();
      many.close();
    }
  });

  it("per end user: answers from the end user's projection, the same as raw events", async () => {
    const u1 = endUserIdFor(ORG_A, 'u1');
    const u2 = endUserIdFor(ORG_A, 'u2');
    // Requests at once for an end user nothing has projected yet copy each day once (a second
    // copy would double the sum): u1 on the 11th–12th, 16 + 32.
    const first = scope('2025-03-11', '2025-03-13', u1);
    const answers = await Promise.all(Array.from({ length: 5 }, () => lake.rows(first, USER_SUM, { end_user_id: u1 })));
    for (const a of answers) expect(a).toEqual([{ cost: '48.000000000000', n: 2 }]);
    // Whole days 10th–12th: u1 1 + 4 + 16 + 32; u2 2 + 8 + 0.000000000001 + 64.
    const cases = [
      [u1, [{ cost: '53.000000000000', n: 4 }]],
      [u2, [{ cost: '74.000000000001', n: 4 }]],
    ] as const;
    for (let round = 0; round < 3; round++) {
      for (const [user, expected] of cases) {
        const s = scope('2025-03-10', '2025-03-13', user);
        expect(await raw.rows(s, USER_SUM, { end_user_id: user })).toEqual(expected);
        expect(await lake.rows(s, USER_SUM, { end_user_id: user })).toEqual(expected);
      }
    }
    expect(await lake.expand(scope('2025-03-10', '2025-03-13', u1), USER_SUM)).toContain('selected_rows_');
  });

  it('a new file of a day renews both: the slice key and the projected day', async () => {
    const u1 = endUserIdFor(ORG_A, 'u1');
    // A late event of u1 on the 10th at 07:00 (inside the kept slice from 06:30).
    await writer.flush(0, [ev('2025-03-10T07:00:00Z', '128')], 9);
    const s = scope('2025-03-10T06:30:00Z', '2025-03-12T07:30:00Z');
    for (let i = 0; i < 3; i++) expect(await lake.rows(s, SUM)).toEqual([{ cost: '190.000000000001', n: 7 }]);
    expect(await raw.rows(s, SUM)).toEqual([{ cost: '190.000000000001', n: 7 }]);
    const whole = scope('2025-03-10', '2025-03-13', u1);
    for (let i = 0; i < 2; i++) expect(await lake.rows(whole, USER_SUM, { end_user_id: u1 })).toEqual([{ cost: '181.000000000000', n: 5 }]);
    expect(await raw.rows(whole, USER_SUM, { end_user_id: u1 })).toEqual([{ cost: '181.000000000000', n: 5 }]);
  });

  it('switched off (the read-path A/B), both give the same answers from computed slices and whole days', async () => {
    const off = await LakeQuery.open(dir, {
      ...testLakeQueryOptions(dir),
      refreshIntervalMs: 0,
      derivedDir: false,
      edgeCacheSlices: 0,
      rowProjections: false,
    });
    try {
      const u1 = endUserIdFor(ORG_A, 'u1');
      const s = scope('2025-03-10T06:30:00Z', '2025-03-12T07:30:00Z');
      const whole = scope('2025-03-10', '2025-03-13', u1);
      for (let i = 0; i < 3; i++) {
        expect(await off.rows(s, SUM)).toEqual([{ cost: '190.000000000001', n: 7 }]);
        expect(await off.rows(whole, USER_SUM, { end_user_id: u1 })).toEqual([{ cost: '181.000000000000', n: 5 }]);
      }
      expect(off.edges.size.slices).toBe(0);
      const sql = await off.expand(whole, USER_SUM);
      expect(sql).not.toContain('selected_rows_');
      expect(await off.expand(s, SUM)).not.toContain('edge_');
    } finally {
      off.close();
    }
  });
});
