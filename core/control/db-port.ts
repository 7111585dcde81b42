// The control plane across a MessagePort: a thread that must not open its own connection (PGlite
// is one embedded connection owned by the host thread) gets a Queryable whose statements the host
// runs on its ControlDb. Same values as a direct call: NUMERIC/INT8 strings, Dates, Buffers, and
// errors with their SQLSTATE fields. Statements only, no transactions: a transaction would hold
// the host's single connection across messages.
import type { MessagePort } from 'node:worker_threads';
import type { Queryable } from './db.js';
import { errorFields, paramsWithBuffers, toError, withBuffers, type ErrorFields } from './thread-values.js';

interface Request {
  id: number;
  op: 'query' | 'exec';
  sql: string;
  params?: unknown[];
}

interface Reply {
  id: number;
  rows?: Array<Record<string, unknown>>;
  error?: ErrorFields;
}

/** Host side: runs the statements that arrive on `port` against `db`. Returns a function that stops serving and closes the port. */
export function serveQueryable(db: Queryable, port: MessagePort): () => void {
  const onMessage = async (m: Request) => {
    let reply: Reply;
    try {
      const rows = m.op === 'query' ? await db.query<Record<string, unknown>>(m.sql, paramsWithBuffers(m.params)) : (await db.exec(m.sql), []);
      reply = { id: m.id, rows };
    } catch (err) {
      reply = { id: m.id, error: errorFields(err) };
    }
    // The other side may be gone (its thread died); there is nobody left to answer.
    try {
      port.postMessage(reply);
    } catch {
      /* port closed */
    }
  };
  port.on('message', onMessage);
  return () => {
    port.off('message', onMessage);
    port.close();
  };
}

/** Thread side: a Queryable whose statements run on the host's connection behind `port`. */
export function queryableOverPort(port: MessagePort): Queryable & { close(): void } {
  const pending = new Map<number, { resolve: (rows: Array<Record<string, unknown>>) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let closed: Error | null = null;
  const failAll = (err: Error) => {
    closed ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  port.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error) p.reject(toError(m.error));
    else p.resolve(m.rows ?? []);
  });
  port.on('close', () => failAll(new Error('the control-plane port is closed')));
  const send = (msg: Omit<Request, 'id'>) =>
    new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      if (closed) return reject(closed);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      port.postMessage({ ...msg, id });
    });
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return withBuffers<T>(await send({ op: 'query', sql, params }));
    },
    async exec(sql: string) {
      await send({ op: 'exec', sql });
    },
    close() {
      failAll(new Error('the control-plane port is closed'));
      port.close();
    },
  };
}
