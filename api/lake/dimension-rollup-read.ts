// The whole-day part of a dimension query ({{derived}} with a derivation that has a rollup twin):
// days whose events the processor rolled up for the dimension (core/lake/dimension-coverage.ts:
// every partition's coverage rows of the day list the key with its type) are answered from the
// dimension rollup tables; the other days from the derivation over raw events, as before. Both are
// cached per day by the DerivedCache (rollup days under their own derivation id) and give the same
// columns, so the query never knows which answered. A day changes side only when it is written (a
// flush, re-pricing or backfill), which also gives it a new version and renews its cached rows.
// Coverage and versions come from the catalog's dimension_coverage at the request's snapshot,
// through its LakeView (lake-view.ts).
import { rollsUp, type DimensionType } from '../../core/lake/dimension-rollups.js';
import { coveredDaysSql } from '../../core/lake/dimension-coverage.js';
import type { DateRange } from '../../core/time.js';
import type { DerivedCache, Derivation } from './derived-cache.js';
import type { LakeQuery } from './lake-query.js';
import type { RowSelection } from './row-projection.js';
import type { LakeView } from './lake-view.js';

/** How a derivation's rows come from a dimension rollup table instead of raw events. */
export interface DimensionRollupRead {
  table: 'dimension_costs' | 'dimension_numbers';
  /** The dimension (metadata key) and type whose rollup rows answer. */
  key: string;
  type: DimensionType;
  /**
   * Over `{{src}}` (the rollup's rows of a day, plus `filename` as in Derivation.perDay), the same
   * columns the derivation's perDay gives over events. `$dim_key` is bound to `key`.
   */
  perDay: string;
}

export type DimensionDerivation = Derivation & { rollup?: DimensionRollupRead };

/** Relations (parenthesized) that together hold the derivation's rows of the whole days `days`. */
export async function dimensionWholeDayParts(
  view: LakeView,
  cache: DerivedCache,
  d: DimensionDerivation & { rollup: DimensionRollupRead },
  organizationId: string,
  days: DateRange,
  /** As LakeScope.only. */
  only?: RowSelection,
): Promise<string[]> {
  const { rollup } = d;
  const { covered, all } = await view.coveredDates(organizationId, days, rollup.key, rollup.type);
  const parts: string[] = [];
  const opts = { only, source: view.source };
  if (covered.size > 0) {
    const twin: Derivation = {
      id: `${d.id}@rollup`,
      source: rollup.table,
      perDay: rollup.perDay,
      params: { ...d.params, dim_key: rollup.key },
    };
    const rel = await cache.relation(twin, organizationId, await view.files(rollup.table, organizationId, days, covered), opts);
    if (rel) parts.push(rel);
  }
  const uncovered = new Set([...all].filter((date) => !covered.has(date)));
  if (uncovered.size > 0) {
    const rel = await cache.relation(d, organizationId, await view.files('events', organizationId, days, uncovered), opts);
    if (rel) parts.push(rel);
  }
  return parts;
}

export interface DimensionRollupProgress {
  key: string;
  value_type: DimensionType;
  /** False for agent_id, workflow_id and feature: event columns, answered by daily_costs, never rolled up here. */
  rolled_up: boolean;
  /** UTC days on which the organization has events. */
  days_with_events: number;
  /** Of those, days whose every events file (in every partition) is rolled up for the dimension. */
  days_covered: number;
  /** days_covered / days_with_events in percent, two decimals (100 with no events). */
  progress_percent: number;
  /** Every day covered: the backfill is done. */
  complete: boolean;
}

type RolledDimension = { organizationId: string; key: string; valueType: DimensionType };

/** Rollup progress of one dimension on the open lake, from its coverage table (core/lake/dimension-coverage.ts): the same on any host. */
export async function duckLakeRollupProgress(lake: LakeQuery, dimension: RolledDimension): Promise<DimensionRollupProgress> {
  const days = await lake.rows<{ covered: boolean }>(
    { organizationId: dimension.organizationId },
    coveredDaysSql(dimension.key, dimension.valueType),
  );
  return progressOf(dimension, days.length, days.filter((d) => d.covered).length);
}

function progressOf(dimension: RolledDimension, days: number, covered: number): DimensionRollupProgress {
  const rolledUp = rollsUp({ key: dimension.key, type: dimension.valueType });
  const done = rolledUp ? covered : 0;
  const percent = days === 0 ? 100 : Math.floor((done * 10_000) / days) / 100;
  return {
    key: dimension.key,
    value_type: dimension.valueType,
    rolled_up: rolledUp,
    days_with_events: days,
    days_covered: done,
    progress_percent: percent,
    complete: rolledUp && done === days,
  };
}
