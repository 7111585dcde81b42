// Raw DuckDB over the lake's Parquet files (the events table's live files as its catalog names
// them): no rollup, no cache, a fresh in-memory instance per cold connection. The baseline every
// cached answer must beat.
import { DuckDBInstance } from '@duckdb/node-api';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import type { Engine, EngineConnection } from './engine.js';
import { stopwatch } from './engine.js';

async function open(): Promise<EngineConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  return {
    async query(sql) {
      const elapsed = stopwatch();
      const reader = await conn.runAndReadAll(sql);
      const rows = reader.getRowsJS() as unknown[][];
      return { rows, ms: elapsed() };
    },
    async close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/** `files`: the events table's live Parquet files (every organization's; DuckLake writes a file per day and commit). */
export function duckdbRawEngine(files: readonly string[]): Engine {
  return {
    label: 'DuckDB raw Parquet',
    setup: `read_parquet over the events table's ${files.length} live Parquet files (every organization's, as the lake's catalog names them), no rollup, fresh in-memory instance`,
    dialect: {
      rollups: false,
      events: `read_parquet([${files.map(sqlStringLiteral).join(', ')}])`,
      timestamp: (iso) => `TIMESTAMP '${iso}'`,
      date: (ymd) => `DATE '${ymd}'`,
      week: (e) => `strftime(date_trunc('week', ${e}), '%Y-%m-%d')`,
      text: (e) => `CAST(${e} AS VARCHAR)`,
      team: `json_extract_string(metadata, '$.team')`,
    },
    connect: open,
    connectCold: open,
    async stop() {},
  };
}
