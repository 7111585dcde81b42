// Starts the api of a read-API benchmark as a child process (bench/api/api-process.ts) on the
// benchmark's data directory, for first requests of a fresh process and the api's own RSS.
// The benchmark must not hold the data directory's PGlite control plane open meanwhile.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';
import type { DerivedTables, LakeQueryOptions } from '../../api/lake/lake-query.js';
import { fromRoot } from '../../core/paths.js';
import { serviceNodeFlags } from '../../scripts/service-process.js';

export interface FreshApiOptions {
  dataDir: string;
  /** The api's clock (ISO); default the wall clock. */
  now?: string;
  /** false: every read from raw events (the DuckDB raw-scan baseline). */
  useRollups?: boolean;
  /** Where derived days are persisted (an empty directory: as if nothing had been persisted). */
  derivedDir?: string;
  /** DuckDB memory_limit of the api (default: the api's own). */
  memoryLimit?: string;
  /** The control plane on PostgreSQL (bench/api/postgres-control.ts) instead of PGlite. */
  databaseUrl?: string;
  /** Where the api's DerivedCache tables live (default: the api's own). */
  derivedTables?: DerivedTables;
  /** false: the api prepares nothing before it listens (api/lake/prepare-reads.ts; the state before it). */
  prepare?: false;
  /** bench/read-path-layers' off switches outside the lake: the key cache (ttl 0), the rate book's and the revenue cache. */
  apiKeyCache?: false;
  rateBookCache?: false;
  revenueCache?: false;
  /** More lake options (bench/read-path-layers: a layer's off switch), applied last. */
  lake?: LakeQueryOptions;
}

export interface FreshApi {
  url: string;
  pid: number;
  /** Milliseconds from spawn to listening. */
  startupMs: number;
  /** Client-to-last-byte milliseconds of one GET (with `json`: the body parsed, inside `ms`); throws on a non-200. */
  get(
    pathAndQuery: string,
    apiKey: string,
    opts?: { json?: boolean; headers?: Record<string, string> },
  ): Promise<{ ms: number; bytes: number; body?: unknown }>;
  /** Resident set size now and at its peak, MB (from /proc). */
  rssMb(): { rss: number; peak: number };
  stop(): Promise<void>;
}

export async function startFreshApi(options: FreshApiOptions): Promise<FreshApi> {
  const spawned = performance.now();
  // With the flags the distributed api runs with (api-process.ts stands for dist/api/main.js).
  const child: ChildProcess = spawn(
    process.execPath,
    [...serviceNodeFlags('api/main'), '--import', 'tsx', fromRoot('bench', 'api', 'api-process.ts')],
    {
      cwd: fromRoot(),
      env: { ...process.env, BENCH_API_OPTIONS: JSON.stringify(options) },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('{"url"')) resolve((JSON.parse(line) as { url: string }).url);
      else process.stderr.write(`${line}\n`); // the api's own log lines (warnings and errors)
    });
    child.once('exit', (code) => reject(new Error(`api process exited (${code}) before listening`)));
  });
  return {
    url,
    pid: child.pid!,
    startupMs: performance.now() - spawned,
    async get(pathAndQuery, apiKey, opts = {}) {
      const t = performance.now();
      const res = await fetch(`${url}/v1${pathAndQuery}`, { headers: { authorization: `Bearer ${apiKey}`, ...opts.headers } });
      const raw = await res.arrayBuffer();
      const body = opts.json && res.status === 200 ? (JSON.parse(Buffer.from(raw).toString()) as unknown) : undefined;
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`${pathAndQuery}: HTTP ${res.status} ${Buffer.from(raw).toString().slice(0, 300)}`);
      return { ms, bytes: raw.byteLength, body };
    },
    rssMb() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The first request of a freshly started api process (and with `second`, the request after it),
 * with its start-up (spawn to listening); the process is stopped after.
 */
export async function firstRequests(
  options: FreshApiOptions,
  pathAndQuery: string,
  apiKey: string,
  opts: { second?: boolean; headers?: Record<string, string> } = {},
): Promise<{ startMs: number; firstMs: number; secondMs: number | null }> {
  const api = await startFreshApi(options);
  try {
    const first = await api.get(pathAndQuery, apiKey, { headers: opts.headers });
    const second = opts.second ? await api.get(pathAndQuery, apiKey, { headers: opts.headers }) : null;
    return { startMs: api.startupMs, firstMs: first.ms, secondMs: second?.ms ?? null };
  } finally {
    await api.stop();
  }
}
