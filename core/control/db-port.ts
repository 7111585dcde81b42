// The control plane across a MessagePort: a thread that must not open its own connection (PGlite
// is one embedded connection owned by the host thread) gets a Queryable whose statements the host
// runs on its ControlDb. Same values as a direct call: NUMERIC/INT8 strings, Dates, Buffers, and
// errors with their SQLSTATE fields. Statements only, no transactions: a transaction would hold
// the host's single connection across messages.
import type { MessagePort } from 'node:worker_threads';
import type { Queryable } from './db.js';
import { PendingStatements, errorFields, paramsWithBuffers, type StatementReply } from './thread-values.js';

interface Request {
  id: number;
  op: 'query' | 'exec';
  sql: string;
  params?: unknown[];
}

/** Host side: runs the statements that arrive on `port` against `db`. Returns a function that stops serving and closes the port. */
export function serveQueryable(db: Queryable, port: MessagePort): () => void {
  const onMessage = async (m: Request) => {
    let reply: StatementReply;
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
  const statements = new PendingStatements((m) => port.postMessage(m));
  port.on('message', (m: StatementReply) => statements.settle(m));
  port.on('close', () => statements.failAll(new Error('the control-plane port is closed')));
  const send = (msg: Omit<Request, 'id'>) => statements.send(msg);
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return (await send({ op: 'query', sql, params })) as T[];
    },
    async exec(sql: string) {
      await send({ op: 'exec', sql });
    },
    close() {
      statements.failAll(new Error('the control-plane port is closed'));
      port.close();
    },
  };
}
