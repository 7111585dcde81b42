import { describe, expect, it } from 'vitest';
import { emptyManifest, type Manifest, type ManifestFile } from '../../../../core/lake/manifest.js';
import { planLakeMigration, totalsDifferences, type DayTotal } from '../../../../processor/lake/lake-migration-plan.js';

const file = (
  table: ManifestFile['table'],
  org: string,
  date: string,
  rows: number,
  dimensions?: ManifestFile['dimensions'],
): ManifestFile => ({
  table,
  path: `${table}/org=${org}/date=${date}/p0-flush-${rows}.parquet`,
  organization_id: org,
  date,
  rows,
  bytes: 100,
  min_offset: 0,
  max_offset: rows - 1,
  max_received_at: '2026-11-20T00:00:00.000Z',
  created_at: '2026-11-20T00:00:00.000Z',
  ...(dimensions ? { dimensions } : {}),
});

const manifest = (partition: number, next_offset: number, files: ManifestFile[]): Manifest => ({
  ...emptyManifest(partition),
  version: 7,
  next_offset,
  files,
  garbage: [{ path: 'events/org=a/date=2026-11-20/p0-flush-old.parquet', deleted_after: '2026-11-20T00:10:00.000Z' }],
});

describe('planLakeMigration', () => {
  it('one unit per partition and day of live events files (rollup files and garbage ignored), then the partition offset', () => {
    const units = planLakeMigration([
      manifest(1, 40, [file('events', 'a', '2026-11-21', 5)]),
      manifest(0, 30, [
        file('events', 'b', '2026-11-21', 4),
        file('events', 'a', '2026-11-20', 10),
        file('events', 'a', '2026-11-20', 3),
        file('daily_costs', 'a', '2026-11-20', 2),
      ]),
    ]);
    expect(units.map((u) => [u.key, u.events, u.files.length, u.nextOffset])).toEqual([
      ['p0/2026-11-20', 13, 2, null], // 10 + 3 events, the rollup file not copied
      ['p0/2026-11-21', 4, 1, null],
      ['p0/offset', 0, 0, 30],
      ['p1/2026-11-21', 5, 1, null],
      ['p1/offset', 0, 0, 40],
    ]);
    expect(units.every((u) => u.manifestVersion === 7)).toBe(true);
  });

  it("rolls dimensions up again only where every one of the organization's files of the day covered them, with the same type", () => {
    const [unit] = planLakeMigration([
      manifest(0, 3, [
        file('events', 'a', '2026-11-20', 1, { team: 'string', seats: 'number', region: 'string' }),
        file('events', 'a', '2026-11-20', 1, { team: 'string', seats: 'string' }),
        file('events', 'b', '2026-11-20', 1),
      ]),
    ]);
    expect(Object.fromEntries(unit!.dimensions)).toEqual({ a: { team: 'string' }, b: {} });
  });
});

describe('totalsDifferences', () => {
  const t = (org: string, events: number, cost: string): DayTotal => ({
    organization_id: org,
    date: '2026-11-20',
    status: 'completed',
    events,
    total_cost: cost,
  });

  it('equal decimal totals written differently are equal', () => {
    expect(totalsDifferences([t('a', 2, '1.500000000000')], [t('a', 2, '1.5')], 'new')).toEqual([]);
  });

  it('names each differing, missing and extra (organization, day, status)', () => {
    expect(totalsDifferences([t('a', 2, '1.5'), t('b', 1, '0.1')], [t('a', 2, '1.6'), t('c', 1, '0')], 'the open lake')).toEqual([
      'a 2026-11-20 completed: the open lake has 2 events, 1.6; expected 2, 1.5',
      'b 2026-11-20 completed: the open lake has no rows (expected 1 events, 0.1)',
      'c 2026-11-20 completed: the open lake has 1 events, 0 the old lake does not',
    ]);
  });
});
