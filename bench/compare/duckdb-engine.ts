// Raw DuckDB over the lake's Parquet files: no rollup, no cache, a fresh in-memory instance per
// cold connection. The baseline every cached answer must beat.
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
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

export function duckdbRawEngine(lakeDir: string, organizationId: string): Engine {
  const files = path.join(lakeDir, 'events', `org=${organizationId}`, '*', '*.parquet');
  return {
    label: 'DuckDB raw Parquet',
    setup: `read_parquet over the organization's events files (${files.replace(lakeDir, '<lake>')}), no rollup, fresh in-memory instance`,
    dialect: {
      rollups: false,
      events: `read_parquet('${files}')`,
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
