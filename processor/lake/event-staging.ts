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

// Column kinds as small integers so the append loop (460k values per 10k rows) is one switch.
const STRING = 0;
const BOOLEAN = 1;
const NUMBER = 2;
const INTEGER = 3;
const TIMESTAMP = 4;

const INPUT = EVENTS_INPUT_COLUMNS.map((c) => ({
  name: c.name as keyof LakeEventRow,
  nullable: c.nullable,
  code:
    c.kind === 'string' || c.kind === 'decimal'
      ? STRING
      : c.kind === 'boolean'
        ? BOOLEAN
        : c.kind === 'timestamp'
          ? TIMESTAMP
          : c.kind === 'double'
            ? NUMBER
            : INTEGER,
  kind: c.kind,
}));

function appendRows(appender: DuckDBAppender, rows: readonly LakeEventRow[]): void {
  for (const row of rows) {
    for (const col of INPUT) {
      const v = row[col.name];
      if (v === null || v === undefined) {
        if (!col.nullable) throw invalid(row, col.name, col.kind, v);
        appender.appendNull();
        continue;
      }
      switch (col.code) {
        case STRING:
          if (typeof v !== 'string') throw invalid(row, col.name, col.kind, v);
          appender.appendVarchar(v);
          break;
        case BOOLEAN:
          if (typeof v !== 'boolean') throw invalid(row, col.name, col.kind, v);
          appender.appendBoolean(v);
          break;
        case NUMBER:
          if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(row, col.name, col.kind, v);
          appender.appendDouble(v);
          break;
        case INTEGER:
          if (!Number.isSafeInteger(v)) throw invalid(row, col.name, col.kind, v);
          appender.appendDouble(v as number);
          break;
        default: {
          const ms = v instanceof Date ? v.getTime() : NaN;
          if (!Number.isFinite(ms)) throw invalid(row, col.name, col.kind, v);
          appender.appendDouble(ms);
        }
      }
    }
    appender.endRow();
  }
}

function invalid(row: LakeEventRow, column: string, kind: string, v: unknown): TypeError {
  return new TypeError(`lake row ${String(row.event_id)}: ${column} = ${String(v)} is not a valid ${kind}`);
}

/** Create (or replace) temp table `name` holding `rows` in the events schema, event_date derived. */
export async function stageEvents(conn: DuckDBConnection, name: string, rows: readonly LakeEventRow[]): Promise<void> {
  const wire = `${name}_wire`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${wire} (${EVENTS_INPUT_COLUMNS.map((c) => `"${c.name}" ${wireType(c)}`).join(', ')})`);
  const appender = await conn.createAppender(wire);
  try {
    appendRows(appender, rows);
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
