import { describe, expect, it } from 'vitest';
import { coversDimension, intersectDimensionSets, type DimensionSet } from '../../../../core/lake/dimension-rollups.js';
import type { ManifestFile } from '../../../../core/lake/manifest.js';
import { planDimensionBackfill } from '../../../../processor/lake/dimension-backfill.js';

function events(org: string, date: string, n: number, dimensions?: DimensionSet): ManifestFile {
  return {
    table: 'events',
    path: `events/org=${org}/date=${date}/f${n}.parquet`,
    organization_id: org,
    date,
    rows: 10,
    bytes: 1000,
    min_offset: n * 10,
    max_offset: n * 10 + 9,
    max_received_at: '2025-03-01T00:00:00.000Z',
    created_at: '2025-03-01T00:00:00.000Z',
    ...(dimensions ? { dimensions } : {}),
  };
}

describe('dimension sets of events files', () => {
  it('a merged file covers what every part covered, with the same type', () => {
    expect(
      intersectDimensionSets([
        { team: 'string', cost: 'number' },
        { team: 'string', cost: 'string' },
        { team: 'string', x: 'string' },
      ]),
    ).toEqual({ team: 'string' });
    expect(intersectDimensionSets([{ team: 'string' }, undefined])).toEqual({});
    expect(intersectDimensionSets([])).toEqual({});
  });
  it('a day is covered only when every file lists the key with its type', () => {
    expect(coversDimension([{ team: 'string' }, { team: 'string', x: 'number' }], 'team', 'string')).toBe(true);
    expect(coversDimension([{ team: 'string' }, undefined], 'team', 'string')).toBe(false);
    expect(coversDimension([{ team: 'number' }], 'team', 'string')).toBe(false);
  });
});

describe('planDimensionBackfill', () => {
  const sets = new Map<string, DimensionSet>([
    ['A', { team: 'string', ms: 'number' }],
    ['B', { team: 'string' }],
  ]);
  it('picks the (organization, date) groups with a file not rolled up for every dimension of its organization, in order', () => {
    const files = [
      events('B', '2025-03-02', 1),
      events('A', '2025-03-02', 2, { team: 'string', ms: 'number' }),
      events('A', '2025-03-02', 3, { team: 'string' }),
      events('A', '2025-03-01', 4, { team: 'string', ms: 'number' }),
      events('C', '2025-03-01', 5),
      { ...events('A', '2025-03-03', 6), table: 'daily_costs' as const },
    ];
    const plan = planDimensionBackfill(files, sets);
    expect(plan.map((g) => [g.organizationId, g.date, g.events.map((f) => f.path)])).toEqual([
      ['A', '2025-03-02', [files[1]!.path, files[2]!.path]],
      ['B', '2025-03-02', [files[0]!.path]],
    ]);
    expect(plan[0]!.set).toEqual({ team: 'string', ms: 'number' });
  });
});
