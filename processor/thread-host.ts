// The all-in-one processor on its own worker thread, so Kafka consumption, Avro decoding, pricing
// and DuckDB's synchronous calls do not compete with the HTTP ingest path for the host's event
// loop. The worker (processor/thread.ts) gets the config and infra. Its control-plane reads take
// one hop: with PGlite, a port answered by the PGlite thread itself (ctx.db.connectPort; PGlite is
// one embedded connection, so the worker cannot open its own); with PostgreSQL, its own pool from
// DATABASE_URL. Its metrics join this process's /metrics. A worker that dies unexpectedly is replaced after a short
// backoff: the lake's exactly-once rule (files, manifest, then offset) makes a restart safe.
import type { Worker, MessagePort } from 'node:worker_threads';
import type { Config } from '../core/config.js';
import { toError, type ErrorFields } from '../core/control/thread-values.js';
import type { Logger } from '../core/logger.js';
import { addMetricsSource } from '../core/metrics.js';
import type { Infra, RunningComponent, StartComponent } from '../core/process-host.js';
import { startModuleWorker } from '../core/worker-thread.js';

/** What the worker receives at start (dbPort, when there is one, is transferred). */
export interface ProcessorThreadData {
  config: Config;
  infra: Infra;
  logLevel: string;
  /** The PGlite thread's port; null: the worker opens its own PostgreSQL pool (config.databaseUrl). */
  dbPort: MessagePort | null;
}

/** Host → worker. */
export type HostMessage =
  | { type: 'stop' }
  | { type: 'metrics'; id: number }
  /** Tests: the worker throws an uncaught error, as a bug would, to exercise the restart. */
  | { type: 'crash' };

/** Worker → host. */
export type ThreadMessage =
  | { type: 'ready' }
  | { type: 'failed'; error: ErrorFields }
  | { type: 'stopped'; error?: ErrorFields }
  | { type: 'metrics'; id: number; text: string };

export interface ProcessorThreadOptions {
  /** How long stop() waits for the worker's clean stop before terminating it. Default 60 s. */
  stopTimeoutMs?: number;
  /** First wait before replacing a dead worker; doubles on each failed start, up to 30 s. Default 1 s. */
  restartDelayMs?: number;
  /** How long /metrics waits for the worker's series. Default 5 s. */
  metricsTimeoutMs?: number;
}

export interface ProcessorThreadComponent extends RunningComponent {
  /** The current worker, null between a death and its replacement (tests kill it through this). */
  worker(): Worker | null;
  /** Workers started so far (1 + restarts). */
  starts(): number;
}

const MAX_RESTART_DELAY_MS = 30_000;

export function processorThread(opts: ProcessorThreadOptions = {}): StartComponent {
  const stopTimeoutMs = opts.stopTimeoutMs ?? 60_000;
  const firstRestartDelayMs = opts.restartDelayMs ?? 1_000;
  const metricsTimeoutMs = opts.metricsTimeoutMs ?? 5_000;

  return async (ctx, infra): Promise<ProcessorThreadComponent> => {
    const logger: Logger = ctx.logger.child({ service: 'processor' });
    let current: Worker | null = null;
    let starts = 0;
    let stopping = false;
    let restartTimer: NodeJS.Timeout | null = null;
    let restartDelayMs = firstRestartDelayMs;
    const metricsWaiting = new Map<number, (text: string) => void>();
    let nextMetricsId = 1;

    /** Starts a worker; resolves once its processor consumes, rejects if it fails or dies first. */
    const launch = () =>
      new Promise<void>((resolve, reject) => {
        const dbPort = ctx.db.connectPort?.() ?? null;
        const workerData: ProcessorThreadData = { config: ctx.config, infra, logLevel: ctx.logger.level, dbPort };
        const worker = startModuleWorker(import.meta.url, 'thread', { workerData, transferList: dbPort ? [dbPort] : [] });
        starts++;
        current = worker;
        let ready = false;
        let crash: Error | null = null;
        worker.on('message', (m: ThreadMessage) => {
          if (m.type === 'ready') {
            ready = true;
            restartDelayMs = firstRestartDelayMs;
            logger.info({ threadId: worker.threadId }, 'processor thread running');
            resolve();
          } else if (m.type === 'failed') {
            // Its processor could not start; the exit handler reports why.
            crash = toError(m.error);
            void worker.terminate();
          } else if (m.type === 'metrics') {
            metricsWaiting.get(m.id)?.(m.text);
            metricsWaiting.delete(m.id);
          }
        });
        worker.on('error', (err) => {
          crash = err;
        });
        worker.once('exit', (code) => {
          if (current === worker) current = null;
          if (!ready) {
            reject(crash ?? new Error(`the processor thread exited before it was ready (code ${code})`));
            return;
          }
          if (stopping) return;
          logger.error({ err: crash ?? undefined, exitCode: code, restartInMs: restartDelayMs }, 'processor thread died; starting a new one');
          scheduleRestart();
        });
      });

    const scheduleRestart = () => {
      if (stopping) return;
      const delay = restartDelayMs;
      restartDelayMs = Math.min(restartDelayMs * 2, MAX_RESTART_DELAY_MS);
      restartTimer = setTimeout(() => {
        restartTimer = null;
        if (stopping) return;
        launch().catch((err) => {
          if (stopping) return;
          logger.error({ err, restartInMs: restartDelayMs }, 'processor thread failed to start; retrying');
          scheduleRestart();
        });
      }, delay);
    };

    const removeMetricsSource = addMetricsSource(async () => {
      const worker = current;
      if (!worker) return '';
      const id = nextMetricsId++;
      return new Promise<string>((resolve) => {
        const timer = setTimeout(() => {
          metricsWaiting.delete(id);
          resolve('');
        }, metricsTimeoutMs);
        metricsWaiting.set(id, (text) => {
          clearTimeout(timer);
          resolve(text);
        });
        worker.postMessage({ type: 'metrics', id } satisfies HostMessage);
      });
    });

    try {
      await launch();
    } catch (err) {
      stopping = true;
      removeMetricsSource();
      const worker = current as Worker | null;
      await worker?.terminate();
      throw err;
    }

    let stopped: Promise<void> | null = null;
    const stop = () =>
      (stopped ??= (async () => {
        stopping = true;
        if (restartTimer) clearTimeout(restartTimer);
        removeMetricsSource();
        for (const answer of metricsWaiting.values()) answer('');
        metricsWaiting.clear();
        const worker = current;
        if (!worker) return;
        // Processor stop (final flush, leave the group), DLQ close, lake close happen in the worker.
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          new Promise<'stopped' | 'exited'>((resolve) => {
            worker.on('message', (m: ThreadMessage) => {
              if (m.type !== 'stopped') return;
              if (m.error) logger.error({ err: toError(m.error) }, 'processor did not stop cleanly');
              resolve('stopped');
            });
            worker.once('exit', () => resolve('exited'));
            worker.postMessage({ type: 'stop' } satisfies HostMessage);
          }),
          new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), stopTimeoutMs))),
        ]);
        clearTimeout(timer);
        if (outcome === 'timeout') logger.warn({ stopTimeoutMs }, 'processor thread did not stop in time; terminating it');
        await worker.terminate();
      })());

    return {
      name: 'processor',
      stop,
      worker: () => current,
      starts: () => starts,
    };
  };
}

/** The all-in-one processor: on a worker thread, with the host's control plane. */
export const startProcessorThread: StartComponent = processorThread();
