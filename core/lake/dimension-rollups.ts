// Rollups of an organization's defined metadata dimensions, written by the processor beside
// daily_costs in the same flush (and rewritten by compaction, re-pricing and backfill the same
// way): `dimension_costs` holds, per string dimension, the cost measures per (day, dimension key,
// value, end user, status, agent, workflow, feature) — what the dimension and attribution
// endpoints group and filter by; `dimension_numbers` holds, per number dimension, count, sum, min
// and max of its numeric values per (day, key, status).
// Coverage invariant: an events file's manifest entry lists (`dimensions`) the keys whose rows
// were written for all of its events; when every events file of a (partition, organization,
// date) group lists a key with its type, that group's rows of the key are exactly the rollup of
// the group's events. Readers use the rollup for a day only when that holds in every partition.
import { DAILY_COSTS, type RollupDefinition } from './rollups.js';
import { sqlStringLiteral } from './parquet-sql.js';

export type DimensionType = 'string' | 'number';

/** A defined dimension as the lake needs it. */
export interface LakeDimension {
  key: string;
  type: DimensionType;
}

/** Key → type of the dimensions an events file's rows are rolled up for (manifest `dimensions`). */
export type DimensionSet = Record<string, DimensionType>;

/** Where the writer learns an organization's dimensions (the processor: the control plane, cached). */
export interface DimensionSource {
  /** The dimensions of each organization asked for (absent or empty: none). Must not throw. */
  dimensionsOf(organizationIds: readonly string[]): Promise<Map<string, readonly LakeDimension[]>>;
}

/**
 * Typed attribution keys are event columns that daily_costs already keys by (agent_id,
 * workflow_id, feature), so a dimension defined on one of them gets no dimension rollup.
 */
const COLUMN_KEYS = new Set(['agent_id', 'workflow_id', 'feature']);

export function rollsUp(d: LakeDimension): boolean {
  return !COLUMN_KEYS.has(d.key);
}

/** RFC 6901 JSON pointer of a top-level key ("a/b" → "/a~1b"), as DuckDB's JSON functions take it. */
export function jsonPointer(key: string): string {
  return `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * A string dimension's value of an event: the JSON string itself, other JSON values as their JSON
 * text ("5", "true"), missing key or JSON null as NULL (Unassigned). One rule for the api's
 * derivations over raw events and for the rollup.
 */
export function dimensionValueSql(metadata: string, path: string): string {
  return `json_extract_string(${validJson(metadata)}, ${path})`;
}

/**
 * Metadata that is not JSON (only a producer bypassing ingest could write it) reads as no metadata,
 * so one such record neither fails a flush nor a query. (DuckDB's TRY() would do it too, but with
 * GROUP BY ALL it hits a binder error in 1.5.)
 */
function validJson(metadata: string): string {
  return `CASE WHEN json_valid(${metadata}) THEN ${metadata} END`;
}

/**
 * A number dimension's value of an event as DECIMAL(38,12): JSON numbers only (as doubles, as JSON
 * numbers are), rounded to 12 decimals; NULL for anything else or values outside the type.
 */
export function numericValueSql(metadata: string, path: string): string {
  const j = `json_extract(${validJson(metadata)}, ${path})`;
  return `CASE WHEN json_type(${j}) IN ('BIGINT', 'UBIGINT', 'DOUBLE') THEN TRY_CAST(TRY_CAST(${j} AS DOUBLE) AS DECIMAL(38,12)) END`;
}

const key = (name: string, kind: 'string' | 'date' = 'string', nullable = true) => ({ name, kind, nullable }) as const;

/** Cost measures per (organization, day, key, value, end user, status, agent, workflow, feature). */
export const DIMENSION_COSTS: RollupDefinition = {
  table: 'dimension_costs',
  keys: [
    key('organization_id', 'string', false),
    key('event_date', 'date', false),
    key('dimension_key', 'string', false),
    key('dim_value'),
    key('end_user_id'),
    key('status', 'string', false),
    key('agent_id'),
    key('workflow_id'),
    key('feature'),
  ],
  measures: DAILY_COSTS.measures,
  eventsFilter: null,
};

/** Numeric values of number dimensions per (organization, day, key, status). */
export const DIMENSION_NUMBERS: RollupDefinition = {
  table: 'dimension_numbers',
  keys: [
    key('organization_id', 'string', false),
    key('event_date', 'date', false),
    key('dimension_key', 'string', false),
    key('status', 'string', false),
  ],
  measures: [
    {
      column: { name: 'value_count', kind: 'bigint', nullable: false },
      fromEvents: 'CAST(count("value") AS BIGINT)',
      merge: 'CAST(sum("value_count") AS BIGINT)',
    },
    {
      column: { name: 'sum_value', kind: 'decimal', nullable: true },
      fromEvents: 'CAST(sum("value") AS DECIMAL(38,12))',
      merge: 'CAST(sum("sum_value") AS DECIMAL(38,12))',
    },
    {
      column: { name: 'min_value', kind: 'decimal', nullable: true },
      fromEvents: 'CAST(min("value") AS DECIMAL(38,12))',
      merge: 'CAST(min("min_value") AS DECIMAL(38,12))',
    },
    {
      column: { name: 'max_value', kind: 'decimal', nullable: true },
      fromEvents: 'CAST(max("value") AS DECIMAL(38,12))',
      merge: 'CAST(max("max_value") AS DECIMAL(38,12))',
    },
  ],
  eventsFilter: '"value" IS NOT NULL',
};

/** The set recorded on events files written with these dimensions (the rolled-up ones only). */
export function dimensionSetOf(dimensions: readonly LakeDimension[]): DimensionSet {
  const set: DimensionSet = {};
  for (const d of dimensions) if (rollsUp(d)) set[d.key] = d.type;
  return set;
}

/** Keys of `b` that `a` also has with the same type (what a merge of two events files still covers). */
export function intersectDimensionSets(sets: ReadonlyArray<DimensionSet | undefined>): DimensionSet {
  if (sets.length === 0) return {};
  const out: DimensionSet = { ...(sets[0] ?? {}) };
  for (const s of sets.slice(1)) for (const k of Object.keys(out)) if (s?.[k] !== out[k]) delete out[k];
  return out;
}

/** Whether every set lists `key` with `type`. */
export function coversDimension(sets: ReadonlyArray<DimensionSet | undefined>, key: string, type: DimensionType): boolean {
  return sets.every((s) => s !== undefined && Object.hasOwn(s, key) && s[key] === type);
}

/**
 * The events relation `events` joined with the organizations' dimensions of one type: one row per
 * (event, dimension) with `dimension_key` and `dim_value` (string) or `value` (number) added.
 * Null when no organization has a dimension of that type.
 */
export function eventsByDimensionSql(
  events: string,
  byOrganization: ReadonlyMap<string, DimensionSet>,
  type: DimensionType,
): string | null {
  const rows: string[] = [];
  for (const [org, set] of byOrganization) {
    for (const [k, t] of Object.entries(set)) {
      if (t === type) rows.push(`(${sqlStringLiteral(org)}, ${sqlStringLiteral(k)}, ${sqlStringLiteral(jsonPointer(k))})`);
    }
  }
  if (rows.length === 0) return null;
  const value =
    type === 'string'
      ? `${dimensionValueSql('e.metadata', 'd.dim_path')} AS dim_value`
      : `${numericValueSql('e.metadata', 'd.dim_path')} AS value`;
  return `(SELECT e.*, d.dimension_key, ${value}
             FROM ${events} e JOIN (VALUES ${rows.join(', ')}) AS d(dim_org, dimension_key, dim_path) ON e.organization_id = d.dim_org)`;
}
