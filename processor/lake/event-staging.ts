// Moves LakeEventRow values in and out of DuckDB. In: rows are written straight into DuckDB data
// chunks in the events schema's own physical types (see event-chunks.ts) and appended a chunk
// (2,048 rows) at a time, so there is no per-value appender call and no cast pass afterwards.
// Out: a SELECT that reads columns in "wire" form (decimals as strings, timestamps as epoch
// milliseconds), so money never passes through a JS float either way.
import type { DuckDBConnection } from '@duckdb/node-api';
import { EVENTS_COLUMNS, EVENTS_INPUT_COLUMNS, sqlTypeOf, type LakeColumn, type LakeEventRow } from '../../core/lake/events-schema.js';
import { EventChunks } from './event-chunks.js';

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

const CREATE_COLUMNS = EVENTS_COLUMNS.map((c) => `"${c.name}" ${sqlTypeOf(c.kind)}`).join(', ');

/** Create (or replace) temp table `name` in the events schema holding the staged chunks. */
export async function stageChunks(conn: DuckDBConnection, name: string, chunks: EventChunks): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${name} (${CREATE_COLUMNS})`);
  const appender = await conn.createAppender(name);
  try {
    for (const chunk of chunks.finish()) appender.appendDataChunk(chunk);
    appender.closeSync();
  } catch (e) {
    appender.clear();
    appender.closeSync();
    throw e;
  }
}

/** Create (or replace) temp table `name` holding `rows` in the events schema, event_date derived. */
export async function stageEvents(conn: DuckDBConnection, name: string, rows: readonly LakeEventRow[]): Promise<void> {
  const chunks = new EventChunks();
  for (const row of rows) chunks.add(row);
  await stageChunks(conn, name, chunks);
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
