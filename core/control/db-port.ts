// The control plane across a MessagePort, for a thread that must not open its own connection
// (PGlite is one embedded connection): a Queryable whose statements the PGlite thread answers
// directly over a port from ControlDb.connectPort() — one hop, no relay through the host. Same
// values as a direct call: NUMERIC/INT8 strings, Dates, Buffers, and errors with their SQLSTATE
// fields. Statements only, no transactions: the PGlite thread holds other clients' statements
// back while one client's transaction is open, so a transaction must not span a port's messages.
import type { MessagePort } from 'node:worker_threads';
import type { Queryable } from './db.js';
import type { StatementMessage } from './pglite-worker.js';
import { PendingStatements, type StatementReply } from './thread-values.js';

/** A Queryable over `port` (from ControlDb.connectPort, possibly transferred to this thread). */
export function queryableOverPort(port: MessagePort): Queryable & { close(): void } {
  const statements = new PendingStatements((m) => port.postMessage(m));
  port.on('message', (m: StatementReply) => statements.settle(m));
  port.on('close', () => statements.failAll(new Error('the control-plane port is closed')));
  const send = (msg: Omit<StatementMessage, 'id'>) => statements.send(msg);
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
