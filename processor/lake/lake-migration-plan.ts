// What `lake migrate` does to a manifest lake, as pure rules (docs/decisions/0150): the units of
// work (one per Kafka partition and UTC day of its live events files, then one per partition that
// moves its offset), and the comparison of totals per organization, day and status that must hold
// before the old files may go. Invariant: a unit names only files its partition's manifest lists
// as live, so nothing compaction or re-pricing left behind is copied, and nothing twice.
import type { DimensionSet } from '../../core/lake/dimension-rollups.js';
import type { Manifest, ManifestFile } from '../../core/lake/manifest.js';
import { Big } from '../../core/money.js';

export interface MigrationUnit {
  /** `p<partition>/<YYYY-MM-DD>` for a day's events, `p<partition>/offset` for the offset. */
  key: string;
  partition: number;
  /** The partition's manifest version the unit was planned from (a resume refuses another). */
  manifestVersion: number;
  /** Null for the offset unit. */
  date: string | null;
  /** Lake-relative paths of the day's live events files (all organizations). */
  files: string[];
  events: number;
  /** Per organization, the dimensions every one of its events files of the day was rolled up for. */
  dimensions: Map<string, DimensionSet>;
  /** The offset unit: the partition's next Kafka offset, written to partition_offsets_p<N>. */
  nextOffset: number | null;
}

/** Every unit of the lake, partition by partition, days in order, each partition's offset last. */
export function planLakeMigration(manifests: readonly Manifest[]): MigrationUnit[] {
  const units: MigrationUnit[] = [];
  for (const m of [...manifests].sort((a, b) => a.partition - b.partition)) {
    const byDate = new Map<string, ManifestFile[]>();
    for (const f of m.files) if (f.table === 'events') byDate.set(f.date, [...(byDate.get(f.date) ?? []), f]);
    for (const date of [...byDate.keys()].sort()) {
      const files = byDate.get(date)!;
      units.push({
        key: `p${m.partition}/${date}`,
        partition: m.partition,
        manifestVersion: m.version,
        date,
        files: files.map((f) => f.path),
        events: files.reduce((n, f) => n + f.rows, 0),
        dimensions: coveredDimensions(files),
        nextOffset: null,
      });
    }
    units.push({
      key: `p${m.partition}/offset`,
      partition: m.partition,
      manifestVersion: m.version,
      date: null,
      files: [],
      events: 0,
      dimensions: new Map(),
      nextOffset: m.next_offset,
    });
  }
  return units;
}

/**
 * The dimension keys (with their type) that every events file of an organization lists: only for
 * those were the old rollup rows complete (core/lake/dimension-rollups.ts), so only those are
 * rolled up again; the readers fall back to the events for the rest, as they did.
 */
function coveredDimensions(files: readonly ManifestFile[]): Map<string, DimensionSet> {
  const byOrg = new Map<string, DimensionSet>();
  for (const f of files) {
    const have = f.dimensions ?? {};
    const so = byOrg.get(f.organization_id);
    if (!so) {
      byOrg.set(f.organization_id, { ...have });
      continue;
    }
    for (const [k, t] of Object.entries(so)) if (have[k] !== t) delete so[k];
  }
  return byOrg;
}

/** Events and total cost of one (organization, UTC day, status). */
export interface DayTotal {
  organization_id: string;
  date: string;
  status: string;
  events: number;
  /** Decimal string. */
  total_cost: string;
}

/** What differs between two sets of totals, one line per (organization, day, status); empty when equal. */
export function totalsDifferences(expected: readonly DayTotal[], actual: readonly DayTotal[], label: string): string[] {
  const keyOf = (t: DayTotal) => `${t.organization_id} ${t.date} ${t.status}`;
  const found = new Map(actual.map((t) => [keyOf(t), t]));
  const differences: string[] = [];
  for (const e of expected) {
    const a = found.get(keyOf(e));
    found.delete(keyOf(e));
    if (!a) differences.push(`${keyOf(e)}: ${label} has no rows (expected ${e.events} events, ${e.total_cost})`);
    else if (a.events !== e.events || !new Big(a.total_cost).eq(e.total_cost))
      differences.push(`${keyOf(e)}: ${label} has ${a.events} events, ${a.total_cost}; expected ${e.events}, ${e.total_cost}`);
  }
  for (const [key, a] of found) differences.push(`${key}: ${label} has ${a.events} events, ${a.total_cost} the old lake does not`);
  return differences;
}
