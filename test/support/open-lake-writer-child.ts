// A lake writer on a worker thread, as the all-in-one's processor thread would be: its own DuckDB
// instance opens the lake it is given (core/lake/lake-catalog.ts) and creates the tables, then flushes `flushes` batches
// of `batch` events, posting after each commit. Used by open-lake-foundation.test.ts to see which
// embedded catalogs let the main thread's DuckDB read while this thread writes.
import { parentPort, workerData } from 'node:worker_threads';
import { ensureLakeTables, openLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { flushBatch } from './open-lake.js';

export interface WriterData {
  /** An embedded catalog (a DuckDB or SQLite file): settings without credentials cross to the thread as plain data. */
  settings: LakeSettings;
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
  const db = await openLake(data.settings);
  await ensureLakeTables(db, [0]);
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
