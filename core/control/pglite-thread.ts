// PGlite on a worker thread (its code: pglite-worker.ts). PGlite is PostgreSQL compiled to WASM:
// every statement runs synchronously on the thread that calls it, so in-process it took a third
// of the event loop of a busy ingest (measured: 11,700 → 18,700 batch events/s when moved here).
// Same contract as PostgreSQL through `pg`: NUMERIC and INT8 come back as strings, bytea as Buffer,
// timestamptz as Date. One connection: a transaction holds it and other statements wait; this
// client queues its own, the worker holds back other threads' (see connectPort).
import { Mutex } from 'async-mutex';
import fs from 'node:fs';
import path from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { startModuleWorker } from '../worker-thread.js';
import type { ControlDb, Queryable } from './db.js';
import type { ConnectMessage, StatementMessage } from './pglite-worker.js';
import { PendingStatements, toError, type StatementReply } from './thread-values.js';

/** A statement's reply, or the thread's start-up outcome. */
type Reply = StatementReply | { ready: true } | { fatal: { message: string } };

/** Opens PGlite in `dir` (null: in memory) on its own thread. */
export async function openPgliteThread(dir: string | null): Promise<ControlDb> {
  if (dir) fs.mkdirSync(path.dirname(dir), { recursive: true });
  const worker = startModuleWorker(import.meta.url, 'pglite-worker', { workerData: { dir } });
  const statements = new PendingStatements((m) => worker.postMessage(m));

  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: Reply) => {
      if ('ready' in m) return resolve();
      if ('fatal' in m) return reject(toError(m.fatal));
      statements.settle(m);
    });
    const fail = (err: Error) => {
      reject(err);
      statements.failAll(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the PGlite thread exited (code ${code})`)));
  });
  try {
    await ready;
  } catch (err) {
    await worker.terminate();
    throw err;
  }

  const send = (msg: Omit<StatementMessage, 'id'>) => statements.send(msg);

  // One connection: a transaction holds it until it ends; everything else of ours queues behind it.
  const connection = new Mutex();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => connection.runExclusive(fn);
  /** Statements on the held connection; a pending transaction sends BEGIN with the first one. */
  const on = (tx: { pending: boolean }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const begin = tx.pending;
      tx.pending = false;
      return (await send({ op: 'query', sql, params, begin })) as T[];
    },
    async exec(sql: string) {
      const begin = tx.pending;
      tx.pending = false;
      await send({ op: 'exec', sql, begin });
    },
  });
  const direct = on({ pending: false });

  return {
    kind: 'pglite',
    query: (sql, params) => exclusive(() => direct.query(sql, params)),
    exec: (sql) => exclusive(() => direct.exec(sql)),
    transaction: (fn) =>
      exclusive(async () => {
        const tx = { pending: true };
        try {
          const result = await fn(on(tx));
          if (!tx.pending) await send({ op: 'exec', sql: 'COMMIT', end: true });
          return result;
        } catch (err) {
          if (!tx.pending) await send({ op: 'exec', sql: 'ROLLBACK', end: true }).catch(() => undefined);
          throw err;
        }
      }),
    connectPort(): MessagePort {
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ connect: port1 } satisfies ConnectMessage, [port1]);
      return port2;
    },
    async close() {
      try {
        await exclusive(() => send({ op: 'close' }));
      } finally {
        worker.removeAllListeners('exit');
        await worker.terminate();
      }
    },
  };
}
