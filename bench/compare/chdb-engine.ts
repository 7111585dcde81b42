// ClickHouse in process (chDB, from PyPI into the repository's .venv through
// bench/compare/requirements.txt), two ways: straight over the lake's Parquet files (the events
// table's live files as its catalog names them; no load), and
// from MergeTree tables loaded once into the data directory — events ordered by (organization,
// time) and the same two daily rollups as PostgreSQL's. Each connection is a Python process
// (chdb_runner.py); cold is a fresh one.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fromRoot } from '../../core/paths.js';
import { log } from '../api/synthetic-lake-host.js';
import { LOADED_COLUMNS, loaded, type Engine, type EngineConnection } from './engine.js';
import type { Dialect } from './questions.js';

const VENV_PYTHON = fromRoot('.venv', 'bin', 'python');

/** The repository's .venv with bench/compare/requirements.txt installed (pip skips what is there). */
export function ensureChdb(): string {
  if (!fs.existsSync(VENV_PYTHON)) execFileSync('python3', ['-m', 'venv', fromRoot('.venv')], { stdio: 'inherit' });
  execFileSync(VENV_PYTHON, ['-m', 'pip', 'install', '-q', '-r', fromRoot('bench', 'compare', 'requirements.txt')], { stdio: 'inherit' });
  return execFileSync(VENV_PYTHON, ['-c', 'import chdb; print(chdb.__version__)'], { encoding: 'utf8' }).trim();
}

async function openRunner(sessionDir: string): Promise<EngineConnection> {
  const child = spawn(VENV_PYTHON, [fromRoot('bench', 'compare', 'chdb_runner.py'), sessionDir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<any> => {
    const { value, done } = await lines.next();
    if (done) throw new Error('chdb_runner.py exited');
    return JSON.parse(value);
  };
  await next(); // ready
  return {
    async query(sql) {
      child.stdin.write(`${JSON.stringify({ sql })}\n`);
      const reply = await next();
      if (reply.error) throw new Error(`chDB: ${reply.error}\n${sql}`);
      return { rows: reply.rows, ms: reply.ms };
    },
    async close() {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

const ts = (iso: string) => `toDateTime64('${iso.replace('T', ' ').replace('Z', '')}', 3, 'UTC')`;
const clickhouse = (events: string, rollups: boolean): Dialect => ({
  rollups,
  events,
  timestamp: ts,
  date: (ymd) => `toDate('${ymd}')`,
  week: (e) => `toString(toMonday(${e}))`,
  text: (e) => `toString(${e})`,
  team: `if(JSONHas(metadata, 'team'), JSONExtractString(metadata, 'team'), NULL)`,
});

/**
 * ClickHouse's file() over exactly `files` (DuckLake's `<table>/<partition>/<unique name>.parquet`):
 * any partition folder, each file's own name, so files the catalog no longer names are not read.
 */
function parquetFiles(files: readonly string[]): string {
  const tableDir = path.dirname(path.dirname(files[0]!));
  if (files.some((f) => path.dirname(path.dirname(f)) !== tableDir)) throw new Error(`the events files are not all under ${tableDir}/*/`);
  return `file('${tableDir}/*/{${files.map((f) => path.basename(f)).join(',')}}', Parquet)`;
}

const LOAD = (files: readonly string[]) => [
  `CREATE TABLE events ENGINE = MergeTree ORDER BY (organization_id, event_timestamp) SETTINGS allow_nullable_key = 1
     AS SELECT ${LOADED_COLUMNS.join(', ')} FROM ${parquetFiles(files)}`,
  `CREATE TABLE daily_costs ENGINE = MergeTree ORDER BY (organization_id, end_user_id, day) SETTINGS allow_nullable_key = 1
     AS SELECT organization_id, event_date AS day, end_user_id, user_id, model, provider, status,
               count() AS events, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(total_cost) AS total_cost
          FROM events GROUP BY organization_id, day, end_user_id, user_id, model, provider, status`,
  `CREATE TABLE daily_team_costs ENGINE = MergeTree ORDER BY (organization_id, day) SETTINGS allow_nullable_key = 1
     AS SELECT organization_id, event_date AS day, ${clickhouse('', true).team} AS team, status, count() AS events, sum(total_cost) AS total_cost
          FROM events GROUP BY organization_id, day, team, status`,
  'OPTIMIZE TABLE events FINAL',
  'OPTIMIZE TABLE daily_costs FINAL',
  'OPTIMIZE TABLE daily_team_costs FINAL',
  'CREATE TABLE bench_loaded (at DateTime) ENGINE = TinyLog',
];

/** `files`: the events table's live Parquet files (every organization's). */
export function chdbParquetEngine(files: readonly string[], dataDir: string, version: string): Engine {
  const sessionDir = path.join(dataDir, 'compare-chdb-parquet');
  return {
    label: 'chDB Parquet',
    setup: `chDB ${version}: file() over the events table's ${files.length} live Parquet files (every organization's), no rollup`,
    dialect: clickhouse(parquetFiles(files), false),
    connect: () => openRunner(sessionDir),
    connectCold: () => openRunner(sessionDir),
    async stop() {},
  };
}

export async function chdbMergeTreeEngine(files: readonly string[], dataDir: string, version: string): Promise<Engine> {
  const sessionDir = path.join(dataDir, 'compare-chdb');
  const conn = await openRunner(sessionDir);
  let loadSeconds: number | null = null;
  try {
    const loaded = await conn.query(`SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'bench_loaded'`);
    if (Number(loaded.rows[0]![0]) === 0) {
      log('chdb: loading MergeTree tables from the lake');
      const started = performance.now();
      for (const sql of LOAD(files)) await conn.query(sql);
      const counts = await conn.query(
        'SELECT (SELECT count() FROM events), (SELECT count() FROM daily_costs), (SELECT count() FROM daily_team_costs)',
      );
      loadSeconds = Math.round((performance.now() - started) / 1000);
      log(
        `chdb: loaded in ${((performance.now() - started) / 1000).toFixed(0)} s: ${counts.rows[0]!.join(' events, ')} (daily_costs, daily_team_costs rows)`,
      );
    }
  } finally {
    await conn.close();
  }
  return {
    label: 'chDB MergeTree',
    setup: `chDB ${version}: MergeTree events ordered by (organization_id, event_timestamp); rollups daily_costs ordered by (organization, end user, day) and daily_team_costs by (organization, day); ${loaded(loadSeconds)}`,
    dialect: clickhouse('events', true),
    connect: () => openRunner(sessionDir),
    connectCold: () => openRunner(sessionDir),
    async stop() {},
  };
}
