// Keeps one of the all-in-one's child servers running (the Kafka broker, the lake catalog's
// PostgreSQL). When it exits without being asked to (a crash, an OOM kill, someone's kill -9), that
// is logged as an error and it is started again, on the same port and data, after a backoff (1 s,
// doubling to 30 s; back to 1 s once one has run a minute). Its clients reconnect to the same
// address by themselves. Each supervised server shows on /metrics as marginal_<metric>_up and
// marginal_<metric>_restarts_total.
import { backoffStepMs } from '../core/backoff.js';
import type { Logger } from '../core/logger.js';
import { promClient, registry } from '../core/metrics.js';

export interface ChildServer {
  pid: number;
  /** Settles when the server exits, whoever ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface SupervisedChild {
  /** The running server's pid, null while it is down. */
  pid(): number | null;
  /** Servers started after the first (tests, metrics). */
  restarts(): number;
  stop(): Promise<void>;
}

export interface Supervision {
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** A server up this long resets the backoff. */
  healthyAfterMs?: number;
}

/** What is supervised: `what` names it in logs, `metric` in its series (`kafka_broker`). */
export interface Supervised {
  what: string;
  metric: string;
}

/** The series of one supervised server, registered once per process (a test may supervise several in turn). */
function seriesOf({ what, metric }: Supervised): { up: promClient.Gauge; restarts: promClient.Counter } {
  const upName = `marginal_${metric}_up`;
  const restartsName = `marginal_${metric}_restarts_total`;
  return {
    up:
      (registry.getSingleMetric(upName) as promClient.Gauge | undefined) ??
      new promClient.Gauge({
        name: upName,
        help: `All-in-one: 1 while ${what} runs, 0 while it is down or restarting`,
        registers: [registry],
      }),
    restarts:
      (registry.getSingleMetric(restartsName) as promClient.Counter | undefined) ??
      new promClient.Counter({ name: restartsName, help: `All-in-one: times ${what} died and was started again`, registers: [registry] }),
  };
}

/** Starts the server with `start` (its failure fails this), then restarts it whenever it dies until stop(). */
export async function superviseChild<T extends ChildServer>(
  start: () => Promise<T>,
  logger: Logger,
  supervised: Supervised,
  supervision: Supervision = {},
): Promise<SupervisedChild & { first: T }> {
  const { what } = supervised;
  const series = seriesOf(supervised);
  const onUp = (up: boolean) => series.up.set(up ? 1 : 0);
  const backoff = { firstMs: supervision.firstDelayMs ?? 1_000, maxMs: supervision.maxDelayMs ?? 30_000 };
  const healthyAfterMs = supervision.healthyAfterMs ?? 60_000;
  const first = await start();
  let current: T | null = first;
  let stopping = false;
  let restarts = 0;
  /** Starts since a server last ran healthy: the backoff's attempt. */
  let attempt = 0;
  const nextDelayMs = () => backoffStepMs(attempt, backoff);
  let timer: NodeJS.Timeout | null = null;
  let starting: Promise<unknown> | null = null;
  onUp(true);

  const watch = (server: T) => {
    const startedAt = Date.now();
    void server.exited.then(({ code, signal }) => {
      if (current === server) current = null;
      onUp(false);
      if (stopping) return;
      if (Date.now() - startedAt >= healthyAfterMs) attempt = 0;
      logger.error({ pid: server.pid, exitCode: code, signal, restartInMs: nextDelayMs() }, `${what} died; starting it again`);
      schedule();
    });
  };

  const schedule = () => {
    const wait = nextDelayMs();
    attempt++;
    timer = setTimeout(() => {
      timer = null;
      if (stopping) return;
      starting = start()
        .then(
          (server) => {
            if (stopping) return server.stop();
            current = server;
            restarts++;
            series.restarts.inc();
            onUp(true);
            logger.info({ pid: server.pid, restarts }, `${what} is back`);
            watch(server);
          },
          (err) => {
            if (stopping) return;
            logger.error({ err, restartInMs: nextDelayMs() }, `${what} did not start again; retrying`);
            schedule();
          },
        )
        .finally(() => (starting = null));
    }, wait);
  };

  watch(first);
  return {
    first,
    pid: () => current?.pid ?? null,
    restarts: () => restarts,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await starting;
      await current?.stop();
    },
  };
}
