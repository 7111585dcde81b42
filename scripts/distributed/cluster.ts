// The distributed mode on one machine, for trying it (docs/distributed.md): a Kafka broker (or
// KAFKA_BROKERS), the dev schema registry (or SCHEMA_REGISTRY_URL), PostgreSQL (DATABASE_URL, or a
// local cluster from the server binaries), then N ingest, M processor and K api processes, each a
// child (`node dist/<service>/main.js`, or the source through tsx) with its own port and data dir,
// sharing one admin token and one master key. The lake is the open lake on an object store with its
// catalog in PostgreSQL, and the processes share nothing else (decisions 0149, 0158; `objectStore`:
// a given s3:// URL, or by default a local S3Proxy started here). Tests use it to kill and restart
// single processes. Every address is on 127.0.0.1.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../core/config.js';
import { loadInstanceSecrets } from '../../core/instance-secrets.js';
import { findFreePort, startBroker } from '../kafka/broker.js';
import { startLocalPostgres } from '../postgres/local-cluster.js';
import { startS3Proxy } from '../s3/s3proxy.js';
import { startSchemaRegistry } from '../schema-registry/server.js';
import { spawnService, waitUntilServing, type ServiceEntry, type ServiceProcess } from '../service-process.js';

type Role = 'ingest' | 'processor' | 'api';

/**
 * The open lake's object store: `url` is `s3://bucket/prefix` and `env`
 * its AWS_* / MARGINAL_S3_* variables (the services read the rest from their own environment), or
 * `local` for an S3Proxy started under dataDir/s3 with fresh keys. The catalog is the control-plane
 * database (LAKE_CATALOG_URL defaults to DATABASE_URL) unless `env` names another.
 */
export type ObjectStoreLake = { url: string; env?: Record<string, string> } | 'local';

export interface DistributedOptions {
  /** Holds logs/, one data dir per process, the lake, and the broker's, registry's and PostgreSQL's data. */
  dataDir: string;
  ingest: number;
  processors: number;
  api: number;
  /** External broker(s); default: a local broker under dataDir/kafka. */
  kafkaBrokers?: string[];
  /** External registry; default: the dev registry (dataDir/schema-registry.json). */
  schemaRegistryUrl?: string;
  /** External PostgreSQL; default: a local cluster under dataDir/postgres from the server binaries. */
  databaseUrl?: string;
  /** Folder of initdb/pg_ctl/postgres for the local cluster; default: found on PATH and the usual places. */
  postgresBinDir?: string;
  /** The object store of the open lake; default `local` (an S3Proxy under dataDir/s3). */
  objectStore?: ObjectStoreLake;
  /** Partitions of usage-events when the topic is created (bounds the useful processor count). */
  partitions?: number;
  /** Extra environment for every service (rate limits, flush timing, LOG_LEVEL). */
  env?: Record<string, string>;
  /** Run dist/ (default when built) or the source. */
  built?: boolean;
  /** How long each service may take to serve; default 180 s. */
  startTimeoutMs?: number;
}

interface ClusterService {
  name: string;
  role: Role;
  url: string;
  logFile: string;
  process(): ServiceProcess;
}

export interface DistributedCluster {
  services: ClusterService[];
  /** The first service of a role, or the one named. */
  service(nameOrRole: string): ClusterService;
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  databaseUrl: string;
  /** The s3:// URL of the open lake. */
  lake: string;
  /** The lake's variables every processor and api got (LAKE_URL and the store's keys). */
  lakeEnv: Record<string, string>;
  /** Where the lake's data files appear on this machine (the local S3Proxy's bucket); null on an external store. */
  lakeFilesDir: string | null;
  adminToken: string;
  /** True when this start generated the admin token (the launcher prints it only then). */
  adminTokenGenerated: boolean;
  /** SIGKILLs (or signals) one service and waits until it exited. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped or killed service again on its port and data, and waits until it serves. */
  restart(name: string): Promise<void>;
  stop(): Promise<void>;
}

const ENTRY: Record<Role, ServiceEntry> = { ingest: 'ingest/main', processor: 'processor/main', api: 'api/main' };

/** The bucket of the local S3Proxy. */
const LOCAL_BUCKET = 'marginal-lake';

/** The lake's variables for every process: the open lake on the store (a local S3Proxy started and its stop recorded). */
async function lakeEnv(
  dataDir: string,
  store: ObjectStoreLake,
  cleanups: Array<() => Promise<void>>,
): Promise<{ lake: string; filesDir: string | null; env: Record<string, string> }> {
  if (store !== 'local') return { lake: store.url, filesDir: null, env: { LAKE_URL: store.url, ...store.env } };
  const keys = {
    accessKeyId: `marginal${crypto.randomBytes(6).toString('hex')}`,
    secretAccessKey: crypto.randomBytes(24).toString('base64url'),
  };
  const s3 = await startS3Proxy({ dataDir: path.join(dataDir, 's3'), bucket: LOCAL_BUCKET, ...keys });
  cleanups.push(() => s3.stop());
  const url = `s3://${LOCAL_BUCKET}/lake`;
  return {
    lake: `${url} (S3Proxy at ${s3.endpoint})`,
    filesDir: path.join(dataDir, 's3', 'objects', LOCAL_BUCKET),
    env: {
      LAKE_URL: url,
      MARGINAL_S3_ACCESS_KEY_ID: keys.accessKeyId,
      MARGINAL_S3_SECRET_ACCESS_KEY: keys.secretAccessKey,
      MARGINAL_S3_ENDPOINT_URL: s3.endpoint,
      MARGINAL_S3_REGION: 'us-east-1',
    },
  };
}

export async function startDistributed(opts: DistributedOptions): Promise<DistributedCluster> {
  const dataDir = path.resolve(opts.dataDir);
  fs.mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
  const cleanups: Array<() => Promise<void>> = [];
  const stopInfra = async () => {
    for (const f of cleanups.reverse()) await f().catch(() => undefined);
  };
  const services: ClusterService[] = [];
  try {
    const [kafkaBrokers, schemaRegistryUrl, databaseUrl, lake] = await Promise.all([
      opts.kafkaBrokers ??
        findFreePort().then(async (port) => {
          const broker = await startBroker({ port, dataDir: path.join(dataDir, 'kafka') });
          cleanups.push(broker.stop);
          return broker.brokers;
        }),
      opts.schemaRegistryUrl ??
        startSchemaRegistry({ host: '127.0.0.1', port: 0, file: path.join(dataDir, 'schema-registry.json') }).then((registry) => {
          cleanups.push(registry.stop);
          return registry.url;
        }),
      opts.databaseUrl ??
        startLocalPostgres({ dir: path.join(dataDir, 'postgres'), database: 'marginal', binDir: opts.postgresBinDir }).then((pg) => {
          cleanups.push(pg.stop);
          return pg.url;
        }),
      lakeEnv(dataDir, opts.objectStore ?? 'local', cleanups),
    ]);
    // One admin token and master key for every replica (kept in dataDir/instance-secrets.json).
    const secrets = loadInstanceSecrets(loadConfig({ ...process.env, DATA_DIR: dataDir }));
    const counts: Array<[Role, number]> = [
      ['api', opts.api],
      ['ingest', opts.ingest],
      ['processor', opts.processors],
    ];
    for (const [role, n] of counts) {
      for (let i = 1; i <= n; i++) {
        const name = `${role}-${i}`;
        const port = await findFreePort();
        const env: Record<string, string> = {
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: path.join(dataDir, name),
          ...lake.env,
          KAFKA_BROKERS: kafkaBrokers.join(','),
          SCHEMA_REGISTRY_URL: schemaRegistryUrl,
          DATABASE_URL: databaseUrl,
          MARGINAL_ADMIN_TOKEN: secrets.adminToken,
          MARGINAL_MASTER_KEY: secrets.masterKey,
          ...(opts.partitions ? { KAFKA_TOPIC_PARTITIONS: String(opts.partitions) } : {}),
          ...opts.env,
        };
        const logFile = path.join(dataDir, 'logs', `${name}.log`);
        const spawnIt = () => spawnService({ name, entry: ENTRY[role], env, logFile, built: opts.built });
        let current = spawnIt();
        const service: ClusterService & { respawn(): ServiceProcess } = {
          name,
          role,
          url: `http://127.0.0.1:${port}`,
          logFile,
          process: () => current,
          respawn: () => (current = spawnIt()),
        };
        services.push(service);
      }
    }
    const timeout = opts.startTimeoutMs ?? 180_000;
    await Promise.all(services.map((s) => waitUntilServing(s.process(), s.url, timeout)));

    const byName = (name: string) => {
      const s = services.find((x) => x.name === name || x.role === name);
      if (!s) throw new Error(`no service ${name}`);
      return s as ClusterService & { respawn(): ServiceProcess };
    };
    let stopping: Promise<void> | null = null;
    return {
      services,
      service: byName,
      kafkaBrokers,
      schemaRegistryUrl,
      databaseUrl,
      lake: lake.lake,
      lakeFilesDir: lake.filesDir,
      lakeEnv: lake.env,
      adminToken: secrets.adminToken,
      adminTokenGenerated: secrets.adminTokenGenerated,
      async kill(name, signal = 'SIGKILL') {
        const p = byName(name).process();
        p.kill(signal);
        await p.exited;
      },
      async restart(name) {
        const s = byName(name);
        await s.process().stop();
        await waitUntilServing(s.respawn(), s.url, timeout);
      },
      stop: () =>
        (stopping ??= (async () => {
          // Front doors first, the processors (final flush) next, the infrastructure last.
          const order: Role[] = ['ingest', 'api', 'processor'];
          for (const role of order) await Promise.all(services.filter((s) => s.role === role).map((s) => s.process().stop()));
          await stopInfra();
        })()),
    };
  } catch (err) {
    await Promise.all(services.map((s) => s.process().stop(5_000)));
    await stopInfra();
    throw err;
  }
}
