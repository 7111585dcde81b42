import { describe, expect, it } from 'vitest';
import { DedupWindow } from '../../../../processor/lake/dedup-window.js';
import { combinedEventsStats, planCompaction } from '../../../../processor/lake/compaction.js';
import type { ManifestFile } from '../../../../core/lake/manifest.js';

describe('DedupWindow', () => {
  const HOUR = 3600_000;

  it('remembers ids until they are older than the retention, measured from the newest id', () => {
    const w = new DedupWindow({ retentionMs: 2 * HOUR, maxEntries: 100 });
    w.add('a', 0);
    w.add('b', 1 * HOUR);
    w.add('c', 2 * HOUR);
    w.evict();
    expect([w.has('a'), w.has('b'), w.has('c')]).toEqual([true, true, true]); // a is exactly 2 h old
    w.add('d', 2 * HOUR + 1);
    w.evict();
    expect([w.has('a'), w.has('b'), w.has('c'), w.has('d')]).toEqual([false, true, true, true]);
  });

  it('keeps at most maxEntries ids, dropping the oldest first', () => {
    const w = new DedupWindow({ retentionMs: 100 * HOUR, maxEntries: 3 });
    for (const [i, id] of ['a', 'b', 'c', 'd', 'e'].entries()) w.add(id, i);
    w.evict();
    expect(w.size).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e'].map((id) => w.has(id))).toEqual([false, false, true, true, true]);
  });
});

function file(table: ManifestFile['table'], org: string, date: string, n: number, bytes = 1000): ManifestFile {
  return {
    table,
    path: `${table}/org=${org}/date=${date}/f${n}.parquet`,
    organization_id: org,
    date,
    rows: 10,
    bytes,
    min_offset: n * 10,
    max_offset: n * 10 + 9,
    max_received_at: new Date(Date.UTC(2025, 2, 1, n)).toISOString(),
    status_counts: table === 'events' ? { completed: 9, pending_rate_card: 1, failed: 0 } : undefined,
    created_at: '2025-03-01T00:00:00.000Z',
  };
}

describe('planCompaction', () => {
  it('merges a (table, organization, date) group once it has minFiles small files', () => {
    const files = [
      ...[1, 2, 3].map((n) => file('events', 'A', '2025-03-01', n)),
      ...[4, 5].map((n) => file('events', 'A', '2025-03-02', n)),
      ...[6, 7, 8].map((n) => file('daily_costs', 'A', '2025-03-01', n)),
      ...[9, 10].map((n) => file('events', 'B', '2025-03-01', n)),
    ];
    const plan = planCompaction(files, { minFiles: 3 });
    expect(plan.map((g) => `${g.table}/${g.organization_id}/${g.date}:${g.files.length}`).sort()).toEqual([
      'daily_costs/A/2025-03-01:3',
      'events/A/2025-03-01:3',
    ]);
  });

  it('leaves big files alone and never merges fewer than two files', () => {
    const files = [
      file('events', 'A', '2025-03-01', 1, 100_000_000),
      file('events', 'A', '2025-03-01', 2),
      file('events', 'A', '2025-03-01', 3),
    ];
    expect(planCompaction(files, { minFiles: 3 })).toEqual([]);
    expect(planCompaction(files, { minFiles: 1 })[0]?.files.map((f) => f.path)).toEqual([files[1]!.path, files[2]!.path]);
    expect(planCompaction([file('events', 'A', '2025-03-01', 1)], { minFiles: 1 })).toEqual([]);
  });

  it('describes the merged file by the union of its parts', () => {
    const stats = combinedEventsStats([file('events', 'A', '2025-03-01', 2), file('events', 'A', '2025-03-01', 5)]);
    expect(stats).toEqual({
      min_offset: 20,
      max_offset: 59,
      max_received_at: '2025-03-01T05:00:00.000Z',
      status_counts: { completed: 18, pending_rate_card: 2, failed: 0 },
      dimensions: {},
    });
  });
});
