// A lake writer on a worker thread, as the all-in-one's processor thread would be: its own DuckDB
// instance attaches the catalog it is given, creates the tables, then flushes `flushes` batches
// of `batch` events, posting after each commit. Used by open-lake-foundation.test.ts to see which
// embedded catalogs let the main thread's DuckDB read while this thread writes.
import { parentPort, workerData } from 'node:worker_threads';
import { attachLake, createLakeTables, flushBatch, type LakeStore, openLakeDuckDB } from './open-lake.js';

export interface WriterData {
  extensionDirectory: string;
  store: LakeStore;
  flushes: number;
  batch: number;
  /** Pause between commits, so the reader's queries fall between and during them. */
  pauseMs: number;
}

export type WriterMessage =
  | { kind: 'ready' }
  | { kind: 'committed'; nextOffset: number; ms: number }
  | { kind: 'done' }
  | { kind: 'failed'; message: string };

const data = workerData as WriterData;
const post = (m: WriterMessage): void => parentPort?.postMessage(m);
try {
  const db = await openLakeDuckDB(data.extensionDirectory);
  await attachLake(db.conn, data.store);
  await createLakeTables(db.conn);
  post({ kind: 'ready' });
  for (let i = 0; i < data.flushes; i++) {
    const began = performance.now();
    await flushBatch(db.conn, i * data.batch, data.batch);
    post({ kind: 'committed', nextOffset: (i + 1) * data.batch, ms: performance.now() - began });
    await new Promise((r) => setTimeout(r, data.pauseMs));
  }
  db.close();
  post({ kind: 'done' });
} catch (e) {
  post({ kind: 'failed', message: (e as Error).message });
}
