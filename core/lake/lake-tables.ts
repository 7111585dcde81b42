// The open lake's tables (DuckLake, docs/decisions/0105) and the DDL that makes them, derived from
// the one column list of each: events from events-schema.ts, the rollups from their definitions,
// and one next-offset table per Kafka partition. Invariant: no column is named twice; planning is
// pure (what exists in → statements out), so re-running it on a complete lake plans nothing.
import { DIMENSION_COSTS, DIMENSION_NUMBERS } from './dimension-rollups.js';
import { EVENTS_COLUMNS, type LakeColumn, sqlTypeOf } from './events-schema.js';
import { DAILY_COSTS, type RollupDefinition, rollupColumns, SESSION_SPANS } from './rollups.js';

export interface DuckLakeTable {
  readonly name: string;
  readonly columns: readonly LakeColumn[];
  /** Identity partition columns (DuckLake writes one folder per value). */
  readonly partitionedBy: readonly string[];
  /** Rows a new table starts with, as a VALUES list (a partition's offsets start at 0). */
  readonly initialValues?: string;
}

/** The events' own kafka_partition column. */
const eventsColumn = (name: string) => EVENTS_COLUMNS.find((c) => c.name === name)!;
const KAFKA_PARTITION = eventsColumn('kafka_partition');

/**
 * A rollup's rows carry the Kafka partition whose events they sum (the old lake kept it in the file
 * path): re-pricing a partition replaces exactly that partition's rollup rows, so the invariant
 * "rollup rows of (partition, organization, day) = the rollup of its events" holds per partition.
 * Readers sum over partitions with the rollup's merge SQL, as they merge flushes.
 */
const rollupTable = (def: RollupDefinition): DuckLakeTable => ({
  name: def.table,
  columns: [KAFKA_PARTITION, ...rollupColumns(def)],
  partitionedBy: [],
});

/** Per write of a (partition, organization, day), the dimension set its rollup rows cover (dimension-coverage.ts). */
const DIMENSION_COVERAGE: DuckLakeTable = {
  name: 'dimension_coverage',
  columns: [
    KAFKA_PARTITION,
    eventsColumn('organization_id'),
    eventsColumn('event_date'),
    { name: 'dimensions', kind: 'string', nullable: false },
  ],
  partitionedBy: [],
};

/**
 * Per re-pricing commit that changed counted budget spend, the id of its spend revision
 * (alerts/evaluation/spend-revisions.ts), written in that commit: a partition's next load applies
 * an unapplied revision exactly when this table holds its id (docs/decisions/0157).
 */
const SPEND_REVISIONS: DuckLakeTable = {
  name: 'spend_revisions',
  columns: [
    KAFKA_PARTITION,
    { name: 'revision_id', kind: 'string', nullable: false },
    { name: 'committed_at', kind: 'timestamp', nullable: false },
  ],
  partitionedBy: [],
};

/** Events by day, as reads and re-pricing select them; the rollups are small and stay unpartitioned. */
export const DUCKLAKE_TABLES: readonly DuckLakeTable[] = [
  { name: 'events', columns: EVENTS_COLUMNS, partitionedBy: ['event_date'] },
  rollupTable(DAILY_COSTS),
  rollupTable(SESSION_SPANS),
  rollupTable(DIMENSION_COSTS),
  rollupTable(DIMENSION_NUMBERS),
  DIMENSION_COVERAGE,
  SPEND_REVISIONS,
];

/**
 * One table per Kafka partition holding that partition's next offset: a flush's compare-and-set
 * UPDATE conflicts only with another owner of the same partition (0105 on why not one table).
 */
export function partitionOffsetsTable(partition: number): DuckLakeTable {
  if (!Number.isSafeInteger(partition) || partition < 0) throw new RangeError(`not a Kafka partition: ${partition}`);
  return {
    name: `partition_offsets_p${partition}`,
    columns: [{ name: 'next_offset', kind: 'bigint', nullable: false }],
    partitionedBy: [],
    initialValues: '(0)',
  };
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `"name" TYPE [NOT NULL], …` for CREATE TABLE. */
export function columnsDdl(columns: readonly LakeColumn[]): string {
  return columns.map((c) => `${quoted(c.name)} ${sqlTypeOf(c.kind)}${c.nullable ? '' : ' NOT NULL'}`).join(', ');
}

/** A column as the catalog reports it (information_schema.columns). */
export interface ExistingColumn {
  name: string;
  type: string;
  nullable: boolean;
}

export interface LakeTablesPlan {
  /** Statements to run in one transaction; empty when the lake is complete. */
  statements: string[];
  /** Differences a statement cannot fix (a column of another type, or one the schema no longer has). */
  problems: string[];
}

/**
 * What makes the lake hold `wanted`: CREATE (with partitioning and initial rows) for missing
 * tables, ADD COLUMN for nullable columns a table lacks (a column added to the schema later).
 */
export function planLakeTables(
  alias: string,
  existing: ReadonlyMap<string, readonly ExistingColumn[]>,
  wanted: readonly DuckLakeTable[],
): LakeTablesPlan {
  const statements: string[] = [];
  const problems: string[] = [];
  for (const table of wanted) {
    const target = `${alias}.${quoted(table.name)}`;
    const have = existing.get(table.name);
    if (!have) {
      statements.push(`CREATE TABLE ${target} (${columnsDdl(table.columns)})`);
      if (table.partitionedBy.length > 0) statements.push(`ALTER TABLE ${target} SET PARTITIONED BY (${table.partitionedBy.join(', ')})`);
      if (table.initialValues) statements.push(`INSERT INTO ${target} VALUES ${table.initialValues}`);
      continue;
    }
    const byName = new Map(have.map((c) => [c.name, c]));
    for (const c of table.columns) {
      const found = byName.get(c.name);
      if (!found && c.nullable) statements.push(`ALTER TABLE ${target} ADD COLUMN ${quoted(c.name)} ${sqlTypeOf(c.kind)}`);
      else if (!found) problems.push(`${table.name}.${c.name} is missing and NOT NULL`);
      else if (found.type !== sqlTypeOf(c.kind))
        problems.push(`${table.name}.${c.name} is ${found.type}, the schema says ${sqlTypeOf(c.kind)}`);
    }
    const known = new Set(table.columns.map((c) => c.name));
    for (const c of have) if (!known.has(c.name)) problems.push(`${table.name}.${c.name} is not in the schema`);
  }
  return { statements, problems };
}
