// Keeps one of the all-in-one's child servers running (the Kafka broker, the lake catalog's
// PostgreSQL). When it exits without being asked to (a crash, an OOM kill, someone's kill -9), that
// is logged as an error and it is started again, on the same port and data, after a backoff (1 s,
// doubling to 30 s; back to 1 s once one has run a minute). Its clients reconnect to the same
// address by themselves.
import { backoffStepMs } from '../core/backoff.js';
import type { Logger } from '../core/logger.js';

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
  /** Told when the server goes down (false) and is back (true). */
  onUp?: (up: boolean) => void;
}

/** Starts the server with `start` (its failure fails this), then restarts it whenever it dies until stop(). */
export async function superviseChild<T extends ChildServer>(
  start: () => Promise<T>,
  logger: Logger,
  supervision: Supervision & { what: string },
): Promise<SupervisedChild & { first: T }> {
  const { what, onUp = () => {} } = supervision;
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
