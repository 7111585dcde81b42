// Per-day derivations of cost by metadata values (the {{derived}} relation of cost queries): cost
// measures per (day, [end user,] status, value of one key [, value of a filter key]) from raw
// events, and — when exactly one of the keys is a metadata key and the other a typed column or
// absent — the same rows from the processor's dimension_costs rollup for the days it covers
// (api/lake/dimension-rollup-read.ts). Keys come from fixed column names or bound JSON pointers.
import { DIMENSION_COSTS, dimensionValueSql, jsonPointer } from '../../core/lake/dimension-rollups.js';
import { DAILY_COSTS } from '../../core/lake/rollups.js';
import type { DimensionDerivation } from '../lake/lake-query.js';

/**
 * Attribution keys that ingest lifts into typed event columns (top-level field, else the same
 * metadata key; top-level wins — docs/design.md). Reading the column sees both places, so every
 * endpoint that groups by one of these keys agrees.
 */
const TYPED_ATTRIBUTION_KEYS = ['agent_id', 'workflow_id', 'feature'] as const;
export type TypedAttributionKey = (typeof TYPED_ATTRIBUTION_KEYS)[number];
export function isTypedAttributionKey(key: string): key is TypedAttributionKey {
  return (TYPED_ATTRIBUTION_KEYS as readonly string[]).includes(key);
}

export interface MetadataCostsShape {
  /** Keep end_user_id (for a per-end-user filter); more rows. */
  endUser: boolean;
  /** A second key whose value becomes `filter_value`. */
  filterKey?: string | null;
}

/**
 * Rows with `dim_value` (the value of `group`) and optionally `filter_value`, per day, status and
 * (when asked) end user, with every cost measure. `group` or `filterKey` may be typed columns.
 */
export function metadataCostsDerivation(group: string, shape: MetadataCostsShape): DimensionDerivation {
  const filterKey = shape.filterKey ?? null;
  const params: Record<string, string> = {};
  const fromEvents = (key: string, param: string): string => {
    if (isTypedAttributionKey(key)) return `"${key}"`;
    params[param] = jsonPointer(key);
    return dimensionValueSql('metadata', `$${param}`);
  };
  const endUser = shape.endUser ? ', end_user_id' : '';
  const filterFromEvents = filterKey === null ? '' : `, ${fromEvents(filterKey, 'filter_path')} AS filter_value`;
  const eventMeasures = DAILY_COSTS.measures.map((m) => `${m.fromEvents} AS "${m.column.name}"`).join(', ');
  const derivation: DimensionDerivation = {
    id: `metadata-costs:${shape.endUser ? 'by-user' : 'all'}:${group}${filterKey === null ? '' : `\u0000${filterKey}`}`,
    source: 'events',
    params,
    perDay: `SELECT filename, organization_id, event_date${endUser}, status, ${fromEvents(group, 'dim_path')} AS dim_value${filterFromEvents}, ${eventMeasures}
               FROM {{src}} GROUP BY ALL`,
  };
  // The rollup holds one metadata key per row beside the typed columns.
  const metadataKeys = [group, filterKey].filter((k): k is string => k !== null && !isTypedAttributionKey(k));
  if (metadataKeys.length !== 1) return derivation;
  const [key] = metadataKeys as [string];
  const fromRollup = (k: string) => (k === key ? 'dim_value' : `"${k}"`);
  const rollupMeasures = DIMENSION_COSTS.measures.map((m) => `${m.merge} AS "${m.column.name}"`).join(', ');
  derivation.rollup = {
    table: 'dimension_costs',
    key,
    type: 'string',
    perDay: `SELECT filename, organization_id, event_date${endUser}, status, ${fromRollup(group)} AS dim_value${
      filterKey === null ? '' : `, ${fromRollup(filterKey)} AS filter_value`
    }, ${rollupMeasures}
               FROM {{src}} WHERE dimension_key = $dim_key GROUP BY ALL`,
  };
  return derivation;
}
