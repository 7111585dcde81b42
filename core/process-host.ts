// Runs one or more components (ingest, processor, api) in this process on one HTTP port: opens the AppContext, starts the
// components together (each may add routes and background work), serves, and on SIGINT/SIGTERM stops
// everything in reverse order so no child process (broker, JVM) or open file is left behind.
// A component's fastPath sees each request before the express app and may answer it itself
// (ingest/fast-path.ts: POST /v1/usage-events); what it declines goes to express unchanged.
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AppContext } from './app-context.js';
import { openAppContext } from './bootstrap.js';
import { loadConfig, type Config } from './config.js';
import { createHttpApp, type RegisterRoutes } from './http/app.js';
import { loadInstanceSecrets, type InstanceSecrets } from './instance-secrets.js';
import { createLogger, type Logger } from './logger.js';

/** Addresses of the shared infrastructure a component may need. */
/** Serves the request and returns true, or returns false to leave it to the express app. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface Infra {
  kafkaBrokers: string[] | null;
  schemaRegistryUrl: string | null;
}

export interface RunningComponent {
  name: string;
  routes?: RegisterRoutes;
  /** Serves a request without express and returns true, or returns false to leave it to the routes (ingest/fast-path.ts). */
  fastPath?: FastPath;
  stop(): Promise<void>;
}

export type StartComponent = (ctx: AppContext, infra: Infra) => Promise<RunningComponent>;

export interface Host {
  ctx: AppContext;
  server: Server;
  url: string;
  stop(): Promise<void>;
}

export async function hostComponents(opts: {
  config: Config;
  secrets: InstanceSecrets;
  logger: Logger;
  /** A promise when the infrastructure is still starting: the control plane opens meanwhile. */
  infra: Infra | Promise<Infra>;
  components: StartComponent[];
  /** Extra cleanups run after the components stop (e.g. the embedded broker). */
  onStop?: Array<() => Promise<void>>;
}): Promise<Host> {
  const { config, logger } = opts;
  // The control plane (PGlite start, migrations) opens while the broker may still be starting.
  const [opened, infraReady] = await Promise.allSettled([openAppContext(config, opts.secrets, logger), opts.infra]);
  if (opened.status === 'rejected' || infraReady.status === 'rejected') {
    if (opened.status === 'fulfilled') await opened.value.db.close().catch(() => undefined);
    throw opened.status === 'rejected' ? opened.reason : (infraReady as PromiseRejectedResult).reason;
  }
  const ctx = opened.value;
  const infra = infraReady.value;
  const running: RunningComponent[] = [];
  const stopAll = async () => {
    for (const s of running.reverse()) await s.stop().catch((err) => logger.error({ err, service: s.name }, 'stop failed'));
    await ctx.db.close().catch(() => undefined);
    for (const f of opts.onStop ?? []) await f().catch((err) => logger.error({ err }, 'cleanup failed'));
  };
  // Started together (they are independent; the all-in-one's ingest waits on Kafka while the api
  // opens DuckDB), kept in list order so they stop in reverse.
  const started = await Promise.allSettled(opts.components.map((start) => start(ctx, infra)));
  for (const r of started) if (r.status === 'fulfilled') running.push(r.value);
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  const app = createHttpApp(
    ctx,
    running.flatMap((s) => (s.routes ? [s.routes] : [])),
  );
  const fastPaths = running.flatMap((s) => (s.fastPath ? [s.fastPath] : []));
  const server = await new Promise<Server>((resolve, reject) => {
    const s = http.createServer((req, res) => {
      for (const fast of fastPaths) if (fast(req, res)) return;
      app(req, res);
    });
    s.listen(config.port, config.host, () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await stopAll();
    })());
  return { ctx, server, url: `http://${config.host}:${port}`, stop };
}

/**
 * Distributed mode: one component alone in its own process, configured from the environment
 * (loadConfig), stopped on SIGINT/SIGTERM. The service name labels its logs.
 */
export async function hostAlone(service: string, component: StartComponent): Promise<{ host: Host; logger: Logger }> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, service);
  const host = await hostComponents({
    config,
    secrets: loadInstanceSecrets(config),
    logger,
    infra: { kafkaBrokers: config.kafkaBrokers, schemaRegistryUrl: config.schemaRegistryUrl },
    components: [component],
  });
  stopOnSignals(host, logger);
  return { host, logger };
}

/** Stops the host on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function stopOnSignals(host: { stop(): Promise<void> }, logger: Logger): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(130);
    signalled = true;
    logger.info({ signal }, 'stopping');
    host.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
