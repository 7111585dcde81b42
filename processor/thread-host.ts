// The all-in-one processor on its own worker thread, so Kafka consumption, Avro decoding, pricing
// and DuckDB's synchronous calls do not compete with the HTTP ingest path for the host's event
// loop. The worker (processor/thread.ts) gets the config and infra. Its control-plane reads take
// one hop: with PGlite, a port answered by the PGlite thread itself (ctx.db.connectPort; PGlite is
// one embedded connection, so the worker cannot open its own); with PostgreSQL, its own pool from
// DATABASE_URL. Its metrics join this process's /metrics. The component returns before the worker
// consumes, so the host serves ingest and reads while the worker joins the consumer group; a
// worker that fails to start or dies is logged, counted (marginal_processor_thread_*) and replaced
// after a backoff: the lake's exactly-once rule (files, manifest, then offset) makes a restart safe.
import type { Worker, MessagePort } from 'node:worker_threads';
import { backoffStepMs } from '../core/backoff.js';
import type { Config } from '../core/config.js';
import { toError, type ErrorFields } from '../core/control/thread-values.js';
import type { Logger } from '../core/logger.js';
import { addMetricsSource, promClient, registry } from '../core/metrics.js';
import type { Infra, RunningComponent, StartComponent } from '../core/process-host.js';
import { startModuleWorker } from '../core/worker-thread.js';
import { requireProcessorInfra } from './required-infra.js';

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

// The host's view of its worker (the worker's own series come through the metrics source).
const processorThreadUp = new promClient.Gauge({
  name: 'marginal_processor_thread_up',
  help: 'All-in-one: 1 while the processor worker thread consumes, 0 while it starts or restarts',
  registers: [registry],
});
const processorThreadFailures = new promClient.Counter({
  name: 'marginal_processor_thread_failures_total',
  help: 'All-in-one: processor worker threads that failed to start (phase=start) or died (phase=run)',
  labelNames: ['phase'] as const,
  registers: [registry],
});

export function processorThread(opts: ProcessorThreadOptions = {}): StartComponent {
  const stopTimeoutMs = opts.stopTimeoutMs ?? 60_000;
  const restartBackoff = { firstMs: opts.restartDelayMs ?? 1_000, maxMs: MAX_RESTART_DELAY_MS };
  const metricsTimeoutMs = opts.metricsTimeoutMs ?? 5_000;

  return async (ctx, infra): Promise<ProcessorThreadComponent> => {
    // What no retry can cure fails the start; the rest is the worker's to retry.
    requireProcessorInfra(infra);
    const logger: Logger = ctx.logger.child({ service: 'processor' });
    let current: Worker | null = null;
    let starts = 0;
    let stopping = false;
    let restartTimer: NodeJS.Timeout | null = null;
    /** Restarts since a worker last became ready: the backoff's attempt. */
    let restartAttempt = 0;
    const nextRestartMs = () => backoffStepMs(restartAttempt, restartBackoff);
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
            restartAttempt = 0;
            processorThreadUp.set(1);
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
          processorThreadUp.set(0);
          if (!ready) {
            reject(crash ?? new Error(`the processor thread exited before it was ready (code ${code})`));
            return;
          }
          if (stopping) return;
          processorThreadFailures.inc({ phase: 'run' });
          logger.error(
            { err: crash ?? undefined, exitCode: code, restartInMs: nextRestartMs() },
            'processor thread died; starting a new one',
          );
          scheduleRestart();
        });
      });

    /** Launches a worker; one that fails to start is logged, counted and launched again later. */
    const launchOrRetry = () => {
      launch().catch((err) => {
        if (stopping) return;
        processorThreadFailures.inc({ phase: 'start' });
        logger.error({ err, restartInMs: nextRestartMs() }, 'processor thread failed to start; retrying');
        scheduleRestart();
      });
    };

    const scheduleRestart = () => {
      if (stopping) return;
      const delay = nextRestartMs();
      restartAttempt++;
      restartTimer = setTimeout(() => {
        restartTimer = null;
        if (!stopping) launchOrRetry();
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

    // Not awaited: the host serves ingest and reads while the worker joins the consumer group
    // (seconds after a crash).
    processorThreadUp.set(0);
    launchOrRetry();

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
