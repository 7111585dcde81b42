// The processor's worker thread (all-in-one mode; started by processor/thread-host.ts). First it
// sets its own OS thread's nice value when PROCESSOR_THREAD_NICE asks; then it runs the processor
// with the host's config and infra; its control plane is the PGlite thread behind the transferred
// port, or its own PostgreSQL pool. It answers the host's 'metrics' requests with its registry and stops cleanly
// on 'stop'. The nice value covers this thread's work (consuming, decoding, pricing, appending rows
// to DuckDB) and any thread started from it; node-api runs DuckDB's asynchronous calls, opening the
// database included, on libuv's process-wide pool, so DuckDB's own threads keep the process's value.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../core/config.js';
import { queryableOverPort } from '../core/control/db-port.js';
import { openControlDb } from '../core/control/db.js';
import { errorFields } from '../core/control/thread-values.js';
import { createLogger, type Logger } from '../core/logger.js';
import { threadOwnMetrics } from '../core/metrics.js';
import type { RunningProcessor } from './component.js';
import type { HostMessage, ProcessorThreadData, ThreadMessage } from './thread-host.js';

if (!parentPort) throw new Error('processor/thread.ts runs only as a worker thread');
const port = parentPort;
const data = workerData as ProcessorThreadData;
const post = (m: ThreadMessage) => port.postMessage(m);
const logger = createLogger(data.logLevel).child({ service: 'processor' });

/** Linux: this thread's id is the last segment of /proc/thread-self ("<pid>/task/<tid>"). */
function setThreadNice(nice: number, log: Logger): void {
  if (nice === 0) return;
  try {
    const tid = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    os.setPriority(tid, nice);
    log.info({ nice, tid }, 'processor thread nice value set');
  } catch (err) {
    // No /proc (not Linux), or EACCES for a negative value without privilege: run at the default.
    log.warn({ err, nice }, 'could not set the processor thread nice value');
  }
}

setThreadNice(data.config.processorThreadNice, logger);

/**
 * The host's config, with the open lake's settings read again here: structured clone keeps a
 * SecretValue's shape but not its value, and openLake refuses such copies.
 */
function threadConfig(): ProcessorThreadData['config'] {
  return { ...data.config, lake: loadConfig().lake };
}

if (!data.dbPort && !data.config.databaseUrl) throw new Error('the processor thread needs the PGlite port or DATABASE_URL');
const db = data.dbPort
  ? queryableOverPort(data.dbPort)
  : await openControlDb({ databaseUrl: data.config.databaseUrl, pgliteDir: null, maxConnections: 2 });
// Imported only now, so nothing of the processor runs before the nice value is set.
const started: Promise<RunningProcessor | null> = import('./component.js')
  .then(({ runProcessor }) => runProcessor({ config: threadConfig(), db, logger }, data.infra))
  .then(
    (running) => {
      post({ type: 'ready' });
      return running;
    },
    (err: unknown) => {
      logger.error({ err }, 'processor failed to start');
      post({ type: 'failed', error: errorFields(err) });
      return null;
    },
  );

// A bug that escapes (an uncaught exception or rejection) ends this thread, and the host starts a
// new one. The processor is stopped first, DuckDB closed with it: a thread torn down while
// node-api DuckDB work is in flight aborts the whole process ("terminate called after throwing
// Napi::Error"). The lake's exactly-once rule makes the replacement safe either way.
let dying = false;
function die(err: unknown): void {
  if (dying) return;
  dying = true;
  logger.error({ err }, 'processor thread failed; stopping the processor before the thread exits');
  const giveUp = new Promise<void>((resolve) => setTimeout(resolve, 10_000));
  void Promise.race([started.then((running) => running?.stop()).catch(() => undefined), giveUp]).finally(() => {
    void db.close();
    process.exit(1);
  });
}
process.on('uncaughtException', die);
process.on('unhandledRejection', die);

port.on('message', (m: HostMessage) => {
  if (m.type === 'crash') {
    setImmediate(() => {
      throw new Error('processor thread crash requested by the host (tests)');
    });
  } else if (m.type === 'metrics') {
    threadOwnMetrics().then(
      (text) => post({ type: 'metrics', id: m.id, text }),
      () => post({ type: 'metrics', id: m.id, text: '' }),
    );
  } else if (m.type === 'stop') {
    void (async () => {
      try {
        await (await started)?.stop();
        post({ type: 'stopped' });
      } catch (err) {
        post({ type: 'stopped', error: errorFields(err) });
      } finally {
        void db.close();
      }
    })();
  }
});
