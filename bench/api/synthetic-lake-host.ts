// The setup the read-API benchmarks (bench/api, bench/api-part2) share: their command line, a data
// directory (temporary, or --data-dir reused with the lake and control plane an earlier run wrote
// there) and the api hosted on it in this process (PGlite control plane, no Kafka, read rate limit
// out of the way). The lake is the open lake (DuckLake): the environment's (LAKE_URL,
// LAKE_CATALOG_URL, as bench/lake sets them), else `<data dir>/lake` with its catalog in a
// PostgreSQL cluster under `<data dir>/lake-catalog`, kept with the data directory so a --data-dir
// reuse finds its lake. Each benchmark builds its own data and measures its own endpoints.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { apiComponent, type ApiComponentOptions } from '../../api/component.js';
import { LakeQuery, type LakeQueryOptions } from '../../api/lake/lake-query.js';
import { loadConfig, type Config } from '../../core/config.js';
import { loadInstanceSecrets } from '../../core/instance-secrets.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { createLogger } from '../../core/logger.js';
import { hostComponents, type Host } from '../../core/process-host.js';
import { startLocalPostgres, type LocalPostgres } from '../../scripts/postgres/local-cluster.js';

export const log = (msg: string) => console.log(`[bench] ${msg}`);

export interface ReadBenchOptions {
  events: number;
  days: number;
  iterations: number;
  /** --cold-rounds: fresh api processes per first-request figure (its median; default 1). */
  coldRounds: number;
  /** --data-dir: kept after the run and reused by the next. */
  dataDir: string | undefined;
  write: boolean;
}

/** [--events 5000000] [--days defaultDays] [--iterations 15] [--cold-rounds 1] [--data-dir DIR] [--no-write] */
export function readBenchOptions(defaultDays: number): ReadBenchOptions {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '5000000' },
      days: { type: 'string', default: String(defaultDays) },
      iterations: { type: 'string', default: '15' },
      'cold-rounds': { type: 'string', default: '1' },
      'data-dir': { type: 'string' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  return {
    events: Number(values.events),
    days: Number(values.days),
    iterations: Number(values.iterations),
    coldRounds: Math.max(1, Number(values['cold-rounds'])),
    dataDir: values['data-dir'] ? path.resolve(values['data-dir']) : undefined,
    write: !values['no-write'],
  };
}

export interface SyntheticLakeHost {
  host: Host;
  config: Config;
  dataDir: string;
  /**
   * What the data directory holds: the meta `metaFile` saved by an earlier run, or else what
   * `build` writes (lake and control plane) and returns, saved for the next run.
   */
  dataOnce<Meta extends { events: number; days: number }>(metaFile: string, build: () => Promise<Meta>): Promise<Meta>;
  /**
   * Stops the api, the data directory's catalog cluster if this process started it, and removes
   * the data directory unless it was given (or `keepData`: stops the api only, another process is
   * to open the data next; the caller then stops a host again, or removes a temporary directory).
   */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/** The catalog cluster this process started (useBenchLake), stopped with a host that does not keep its data. */
let catalogCluster: LocalPostgres | null = null;

/**
 * Names the bench lake of `dataDir` in this process's environment (the api processes it starts
 * inherit it, so they share one catalog server): nothing to do when LAKE_CATALOG_URL is set
 * (bench/lake's store, or the parent benchmark's catalog); else the data directory's own catalog
 * cluster is started (created on the first run). A benchmark that starts api processes on a
 * --data-dir without hosting one itself calls it first; returns the lake's settings.
 */
export async function useBenchLake(dataDir: string): Promise<LakeSettings> {
  if (!process.env.LAKE_CATALOG_URL) {
    catalogCluster = await startLocalPostgres({ dir: path.join(dataDir, 'lake-catalog'), database: 'lake' });
    // Ctrl-C: exit through 'exit', where startLocalPostgres stops the cluster, rather than leave it running.
    process.once('SIGINT', () => process.exit(130));
    Object.assign(process.env, { LAKE_FORMAT: 'ducklake', LAKE_URL: path.join(dataDir, 'lake'), LAKE_CATALOG_URL: catalogCluster.url });
  }
  return loadConfig({ DATA_DIR: dataDir, ...lakeEnvironment() }).lake;
}

/** Stops the catalog cluster this process started (after a host's stop({ keepData: true })), before its data directory goes. */
export async function stopLakeCatalog(): Promise<void> {
  if (!catalogCluster) return;
  await catalogCluster.stop();
  catalogCluster = null;
  for (const k of ['LAKE_FORMAT', 'LAKE_URL', 'LAKE_CATALOG_URL']) delete process.env[k];
}

/** The lake as the api opens it (api/component.ts), with a benchmark's options. */
export function openBenchLakeQuery(config: Config, options: LakeQueryOptions = {}): Promise<LakeQuery> {
  return LakeQuery.open(config.lakeDir, { duckLake: config.lake, ...options });
}

/**
 * The lake variables of this process's environment (LAKE_FORMAT, LAKE_URL, LAKE_CATALOG_URL, the
 * S3 keys and endpoint), for the api's loadConfig.
 */
function lakeEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => /^(LAKE_|AWS_|MARGINAL_S3_)/.test(e[0]) && e[1] !== undefined),
  );
}

export async function startSyntheticLakeHost(opts: {
  label: string;
  dataDir: string | undefined;
  api: ApiComponentOptions;
  /** The control plane on PostgreSQL instead of the data directory's PGlite. */
  databaseUrl?: string;
}): Promise<SyntheticLakeHost> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `marginal-${opts.label}-`));
  fs.mkdirSync(dataDir, { recursive: true });
  await useBenchLake(dataDir);
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_READ_PER_15_MINUTES: '1000000000',
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
    ...lakeEnvironment(),
  });
  const host = await hostComponents({
    config,
    secrets: loadInstanceSecrets(config),
    logger: createLogger('warn', opts.label),
    infra: { kafkaBrokers: null, schemaRegistryUrl: null },
    // No background warm-up unless a benchmark asks for it: bench/api measures cold first calls.
    components: [apiComponent({ warmDays: 0, ...opts.api })],
  });
  return {
    host,
    config,
    dataDir,
    async dataOnce(metaFile, build) {
      const metaPath = path.join(dataDir, metaFile);
      if (fs.existsSync(metaPath)) {
        const meta = JSON.parse(fs.readFileSync(metaPath, 'utf8'));
        log(`reusing the lake in ${dataDir}: ${meta.events} events over ${meta.days} days`);
        return meta;
      }
      const meta = await build();
      fs.writeFileSync(metaPath, JSON.stringify(meta, null, 2));
      return meta;
    },
    async stop(stopOpts = {}) {
      await host.stop();
      if (stopOpts.keepData) return;
      await stopLakeCatalog();
      if (opts.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
