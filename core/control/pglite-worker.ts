// The PGlite thread's own code (started by pglite-thread.ts): one embedded PostgreSQL connection
// serving statements from its host (parentPort) and from any port the host connects later (the
// all-in-one processor's thread talks to it directly, one hop). Invariant: a transaction belongs
// to the client that began it: from its BEGIN until its COMMIT/ROLLBACK (`end`), statements of
// other clients wait, so nothing of theirs ever runs inside it.
import { PGlite } from '@electric-sql/pglite';
import { Mutex } from 'async-mutex';
import { pgliteOptions } from './pglite-options.js';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { errorFields } from './thread-values.js';

/** A statement from a client. `begin` opens the client's transaction first; `end` closes it after. */
export interface StatementMessage {
  id: number;
  op: 'query' | 'exec' | 'close';
  sql?: string;
  params?: unknown[];
  begin?: boolean;
  end?: boolean;
}

/** Host → worker, besides statements: a further client to serve. */
export interface ConnectMessage {
  connect: MessagePort;
}

if (!parentPort) throw new Error('pglite-worker runs only as a worker thread');
const host = parentPort;
const { dir } = workerData as { dir: string | null };

const db = dir ? new PGlite(dir, pgliteOptions()) : new PGlite(pgliteOptions());

type Client = Pick<MessagePort, 'postMessage'>;
/** One statement at a time, in the order accepted (run never rejects). */
const connection = new Mutex();
let holder: Client | null = null;
let waiting: Array<{ client: Client; m: StatementMessage }> = [];

function accept(client: Client, m: StatementMessage): void {
  if (holder !== null && holder !== client) {
    waiting.push({ client, m });
    return;
  }
  if (m.begin) holder = client;
  void connection.runExclusive(() => run(client, m));
}

async function run(client: Client, m: StatementMessage): Promise<void> {
  try {
    let rows: unknown[] = [];
    // A transaction's BEGIN rides along with its first statement: one round trip fewer.
    if (m.begin) await db.exec('BEGIN');
    if (m.op === 'query') rows = (await db.query(m.sql!, m.params)).rows;
    else if (m.op === 'exec') await db.exec(m.sql!);
    else if (m.op === 'close') await db.close();
    client.postMessage({ id: m.id, rows });
  } catch (e) {
    client.postMessage({ id: m.id, error: errorFields(e) });
  } finally {
    if (m.end && holder === client) {
      holder = null;
      const held = waiting;
      waiting = [];
      for (const w of held) accept(w.client, w.m);
    }
  }
}

host.on('message', (m: StatementMessage | ConnectMessage) => {
  if ('connect' in m) {
    const port = m.connect;
    port.on('message', (s: StatementMessage) => accept(port, s));
    return;
  }
  accept(host, m);
});
db.waitReady.then(
  () => host.postMessage({ ready: true }),
  (e: unknown) => host.postMessage({ fatal: errorFields(e) }),
);
