// Moves LakeEventRow values in and out of DuckDB. In: rows are appended to a temp table of
// "wire" types that the appender takes without conversion cost (VARCHAR, DOUBLE, BOOLEAN:
// decimals as strings, timestamps as epoch milliseconds), then cast once, vectorized, to the
// events schema. Out: the same casts in reverse, so money never passes through a JS float.
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import {
  EVENTS_COLUMNS,
  EVENTS_INPUT_COLUMNS,
  MONEY_SQL_TYPE,
  sqlTypeOf,
  type LakeColumn,
  type LakeEventRow,
} from '../../core/lake/events-schema.js';

function wireType(c: LakeColumn): string {
  switch (c.kind) {
    case 'string':
    case 'decimal':
    case 'date':
      return 'VARCHAR';
    case 'boolean':
      return 'BOOLEAN';
    default:
      return 'DOUBLE';
  }
}

function castFromWire(c: LakeColumn): string {
  const n = `"${c.name}"`;
  switch (c.kind) {
    case 'decimal':
      return `CAST(${n} AS ${MONEY_SQL_TYPE})`;
    case 'bigint':
    case 'integer':
      return `CAST(${n} AS ${sqlTypeOf(c.kind)})`;
    case 'timestamp':
      return `epoch_ms(CAST(${n} AS BIGINT))`;
    case 'date':
      return `CAST(${n} AS DATE)`;
    default:
      return n;
  }
}

function castToWire(c: LakeColumn): string {
  const n = `"${c.name}"`;
  switch (c.kind) {
    case 'decimal':
    case 'date':
      return `CAST(${n} AS VARCHAR)`;
    case 'bigint':
    case 'integer':
      return `CAST(${n} AS DOUBLE)`;
    case 'timestamp':
      return `CAST(epoch_ms(${n}) AS DOUBLE)`;
    default:
      return n;
  }
}

type Append = (a: DuckDBAppender, v: unknown, row: LakeEventRow) => void;

function appenderFor(c: LakeColumn): Append {
  const bad = (v: unknown, row: LakeEventRow): never => {
    throw new TypeError(`lake row ${row.event_id}: ${c.name} = ${String(v)} is not a valid ${c.kind}`);
  };
  const orNull = (inner: Append): Append =>
    c.nullable
      ? (a, v, row) => (v === null || v === undefined ? a.appendNull() : inner(a, v, row))
      : (a, v, row) => (v === null || v === undefined ? bad(v, row) : inner(a, v, row));
  switch (c.kind) {
    case 'string':
    case 'decimal':
      return orNull((a, v, row) => (typeof v === 'string' ? a.appendVarchar(v) : bad(v, row)));
    case 'boolean':
      return orNull((a, v, row) => (typeof v === 'boolean' ? a.appendBoolean(v) : bad(v, row)));
    case 'double':
      return orNull((a, v, row) => (typeof v === 'number' && Number.isFinite(v) ? a.appendDouble(v) : bad(v, row)));
    case 'bigint':
    case 'integer':
      return orNull((a, v, row) => (Number.isSafeInteger(v) ? a.appendDouble(v as number) : bad(v, row)));
    case 'timestamp':
      return orNull((a, v, row) => {
        const ms = v instanceof Date ? v.getTime() : NaN;
        return Number.isFinite(ms) ? a.appendDouble(ms) : bad(v, row);
      });
    case 'date':
      return (_a, v, row) => bad(v, row);
  }
}

const INPUT_APPENDERS = EVENTS_INPUT_COLUMNS.map((c) => ({ name: c.name as keyof LakeEventRow, append: appenderFor(c) }));

/** Create (or replace) temp table `name` holding `rows` in the events schema, event_date derived. */
export async function stageEvents(conn: DuckDBConnection, name: string, rows: readonly LakeEventRow[]): Promise<void> {
  const wire = `${name}_wire`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${wire} (${EVENTS_INPUT_COLUMNS.map((c) => `"${c.name}" ${wireType(c)}`).join(', ')})`);
  const appender = await conn.createAppender(wire);
  try {
    for (const row of rows) {
      for (const { name: field, append } of INPUT_APPENDERS) append(appender, row[field], row);
      appender.endRow();
    }
    appender.closeSync();
  } catch (e) {
    appender.clear();
    appender.closeSync();
    throw e;
  }
  const select = EVENTS_COLUMNS.map((c) =>
    c.name === 'event_date' ? `CAST(epoch_ms(CAST("event_timestamp" AS BIGINT)) AS DATE) AS "event_date"` : `${castFromWire(c)} AS "${c.name}"`,
  );
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${name} AS SELECT ${select.join(', ')} FROM ${wire}`);
  await conn.run(`DROP TABLE ${wire}`);
}

/** SELECT list reading events columns in wire form (see rowFromWire). */
export function wireSelectList(): string {
  return EVENTS_INPUT_COLUMNS.map((c) => `${castToWire(c)} AS "${c.name}"`).join(', ');
}

/** A LakeEventRow from a row object read with wireSelectList(). */
export function rowFromWire(obj: Record<string, unknown>): LakeEventRow {
  const out: Record<string, unknown> = {};
  for (const c of EVENTS_INPUT_COLUMNS) {
    const v = obj[c.name];
    out[c.name] = c.kind === 'timestamp' && v !== null && v !== undefined ? new Date(v as number) : (v ?? null);
  }
  return out as unknown as LakeEventRow;
}
