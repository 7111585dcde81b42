// Rollup tables of the lake, built from events the same way events are written: one file per
// (partition, organization, date) per write. A rollup row is a partial aggregate, so a table's
// rows for one key may sit in several files; readers (and compaction) merge them with the
// table's merge SQL. Invariant: for each (partition, organization, date) the rollup files are
// exactly the rollup of that partition's events files, so rewriting a group rewrites all three.
import { MONEY_SQL_TYPE, type LakeColumn } from './events-schema.js';

export type RollupTable = 'daily_costs' | 'session_spans' | 'dimension_costs' | 'dimension_numbers';

interface RollupMeasure {
  readonly column: LakeColumn;
  /** Aggregate over events rows. */
  readonly fromEvents: string;
  /** Aggregate over rows of this rollup (partial aggregates), giving the same result. */
  readonly merge: string;
}

export interface RollupDefinition {
  readonly table: RollupTable;
  readonly keys: readonly LakeColumn[];
  readonly measures: readonly RollupMeasure[];
  /** Events that take part, or null for all. */
  readonly eventsFilter: string | null;
}

const key = (name: string, kind: LakeColumn['kind'] = 'string', nullable = true): LakeColumn => ({ name, kind, nullable });

const tokenSum = (name: string): RollupMeasure => ({
  // SUM over BIGINT is HUGEINT, which Parquet cannot hold exactly; SUM over only NULLs stays
  // NULL, which is how "no event in the group reported this token class" is kept.
  column: { name, kind: 'bigint', nullable: true },
  fromEvents: `CAST(sum("${name}") AS BIGINT)`,
  merge: `CAST(sum("${name}") AS BIGINT)`,
});

const moneySum = (name: string, source = name, nullable = true): RollupMeasure => ({
  column: { name, kind: 'decimal', nullable },
  fromEvents: `CAST(sum("${source}") AS ${MONEY_SQL_TYPE})`,
  merge: `CAST(sum("${name}") AS ${MONEY_SQL_TYPE})`,
});

const same = (name: string, kind: LakeColumn['kind'], agg: 'min' | 'max', source = name, filter = ''): RollupMeasure => ({
  column: { name, kind, nullable: true },
  fromEvents: `${agg}("${source}")${filter}`,
  merge: `${agg}("${name}")`,
});

/** Cost per organization × day × end user × model × provider × agent × workflow × feature × status. */
export const DAILY_COSTS: RollupDefinition = {
  table: 'daily_costs',
  keys: [
    key('organization_id', 'string', false),
    key('event_date', 'date', false),
    key('end_user_id'),
    key('user_id'),
    key('model'),
    key('provider'),
    key('agent_id'),
    key('workflow_id'),
    key('feature'),
    key('status', 'string', false),
  ],
  measures: [
    {
      column: { name: 'event_count', kind: 'bigint', nullable: false },
      fromEvents: 'CAST(count(*) AS BIGINT)',
      merge: 'CAST(sum("event_count") AS BIGINT)',
    },
    tokenSum('input_tokens'),
    tokenSum('output_tokens'),
    tokenSum('cache_creation_input_tokens'),
    tokenSum('cache_read_input_tokens'),
    tokenSum('reasoning_tokens'),
    moneySum('input_cost'),
    moneySum('output_cost'),
    moneySum('cache_creation_cost'),
    moneySum('cache_read_cost'),
    moneySum('reasoning_cost'),
    moneySum('unit_cost'),
    moneySum('total_cost', 'total_cost', false),
  ],
  eventsFilter: null,
};

/** Events whose start and end are both measured by the client, in order. */
const COMPLETE_TIMING = ' FILTER (WHERE "started_at" IS NOT NULL AND "timestamp_provided" AND "started_at" <= "event_timestamp")';

/**
 * One row per (session, span) per day: the span's own cost and timing. span_id NULL holds the
 * session's untraced events. The descriptive columns are min() of the non-null values (a span's
 * events normally repeat them; min keeps the choice deterministic and mergeable).
 * started_at / ended_at span only events with complete timing (started_at sent, timestamp sent
 * by the client rather than defaulted to receipt, started_at <= timestamp;
 * docs/decisions/0004-session-tree-complete-timing.md), so a span has timing exactly when
 * started_at is non-null.
 */
export const SESSION_SPANS: RollupDefinition = {
  table: 'session_spans',
  keys: [key('organization_id', 'string', false), key('event_date', 'date', false), key('session_id', 'string', false), key('span_id')],
  measures: [
    same('parent_span_id', 'string', 'min'),
    same('span_name', 'string', 'min'),
    same('span_kind', 'string', 'min'),
    same('agent_id', 'string', 'min'),
    moneySum('own_cost', 'total_cost', false),
    {
      column: { name: 'event_count', kind: 'bigint', nullable: false },
      fromEvents: 'CAST(count(*) AS BIGINT)',
      merge: 'CAST(sum("event_count") AS BIGINT)',
    },
    same('started_at', 'timestamp', 'min', 'started_at', COMPLETE_TIMING),
    same('ended_at', 'timestamp', 'max', 'event_timestamp', COMPLETE_TIMING),
    same('first_event_at', 'timestamp', 'min', 'event_timestamp'),
    same('last_event_at', 'timestamp', 'max', 'event_timestamp'),
  ],
  eventsFilter: '"session_id" IS NOT NULL',
};

export function rollupColumns(def: RollupDefinition): LakeColumn[] {
  return [...def.keys, ...def.measures.map((m) => m.column)];
}

/** SQL computing the rollup from an events relation (a table name or a parenthesized query). */
export function rollupFromEventsSql(def: RollupDefinition, events: string): string {
  const keys = def.keys.map((k) => `"${k.name}"`);
  const measures = def.measures.map((m) => `${m.fromEvents} AS "${m.column.name}"`);
  const where = def.eventsFilter ? ` WHERE ${def.eventsFilter}` : '';
  return `SELECT ${[...keys, ...measures].join(', ')} FROM ${events}${where} GROUP BY ${keys.join(', ')}`;
}

/** SQL merging partial rollup rows (from several files) into one row per key. */
export function rollupMergeSql(def: RollupDefinition, rollupRows: string): string {
  const keys = def.keys.map((k) => `"${k.name}"`);
  const measures = def.measures.map((m) => `${m.merge} AS "${m.column.name}"`);
  return `SELECT ${[...keys, ...measures].join(', ')} FROM ${rollupRows} GROUP BY ${keys.join(', ')}`;
}
