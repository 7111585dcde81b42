// PGlite on a worker thread. PGlite is PostgreSQL compiled to WASM: every statement runs
// synchronously on the thread that calls it, so in-process it took a third of the event loop of a
// busy ingest (measured: 11,700 → 18,700 batch events/s when moved here). Same contract as the
// in-process database: one connection; a transaction holds it and other queries wait; NUMERIC and
// INT8 come back as strings, bytea as Buffer, timestamptz as Date.
// The worker's code is plain JavaScript evaluated from a string, so it loads the same way from
// source (tsx, vitest) and from dist/.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ControlDb, Queryable } from './db.js';
import { PendingStatements, toError, type StatementReply } from './thread-values.js';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglitePath);
// PostgreSQL type oids whose PGlite defaults differ from pg's: NUMERIC, INT8 stay exact strings;
// text-format bytea is "\\\\x" + hex.
const parsers = {
  1700: (v) => v,
  20: (v) => v,
  17: (v) => Buffer.from(v.slice(2), 'hex'),
};
const db = workerData.dir ? new PGlite(workerData.dir, { parsers }) : new PGlite({ parsers });
function errorFields(e) {
  const out = { message: e && e.message ? String(e.message) : String(e) };
  if (e && typeof e === 'object') {
    for (const k of Object.keys(e)) {
      const v = e[k];
      if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
    }
  }
  return out;
}
let queue = Promise.resolve();
parentPort.on('message', (m) => {
  queue = queue.then(async () => {
    try {
      let rows = [];
      // A transaction's BEGIN rides along with its first statement: one round trip fewer.
      if (m.begin) await db.exec('BEGIN');
      if (m.op === 'query') rows = (await db.query(m.sql, m.params)).rows;
      else if (m.op === 'exec') await db.exec(m.sql);
      else if (m.op === 'close') await db.close();
      parentPort.postMessage({ id: m.id, rows });
    } catch (e) {
      parentPort.postMessage({ id: m.id, error: errorFields(e) });
    }
  });
});
db.waitReady.then(
  () => parentPort.postMessage({ ready: true }),
  (e) => parentPort.postMessage({ fatal: errorFields(e) }),
);
`;

/** A statement's reply, or the thread's start-up outcome. */
type Reply = StatementReply | { ready: true } | { fatal: { message: string } };

/** Opens PGlite in `dir` (null: in memory) on its own thread. */
export async function openPgliteThread(dir: string | null): Promise<ControlDb> {
  if (dir) fs.mkdirSync(path.dirname(dir), { recursive: true });
  const pglitePath = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { dir, pglitePath } });
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

  const send = (msg: { op: 'query' | 'exec' | 'close'; sql?: string; params?: unknown[]; begin?: boolean }) => statements.send(msg);

  // One connection: a transaction holds it until it ends; everything else queues behind it.
  let held: Promise<void> = Promise.resolve();
  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    const before = held;
    let release!: () => void;
    held = new Promise<void>((r) => (release = r));
    await before;
    try {
      return await fn();
    } finally {
      release();
    }
  };
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
          if (!tx.pending) await direct.exec('COMMIT');
          return result;
        } catch (err) {
          if (!tx.pending) await direct.exec('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
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
