// How the embedded control plane opens PGlite (pglite-worker.ts; bench/ingest/ledger-statements.ts
// measures the same database).
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

export function pgliteOptions(): PGliteOptions {
  return {
    // PostgreSQL type oids whose PGlite defaults differ from pg's: NUMERIC and INT8 stay exact
    // strings; text-format bytea is "\x" + hex, handed back as a Buffer as pg does.
    parsers: {
      1700: (v: string) => v,
      20: (v: string) => v,
      17: (v: string) => Buffer.from(v.slice(2), 'hex'),
    },
    // PostgreSQL's default 128 MB of shared buffers, held in the WASM heap whether used or not;
    // pages beyond 16 MB are read back through the OS page cache. Ingest measured no slower and
    // the all-in-one ~70–120 MB smaller (bench/results/api-rss.md, docs/decisions/0086-pglite-shared-buffers-of-16-mb.md).
    startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
  };
}
