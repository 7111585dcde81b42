// Control-plane values across a thread boundary. Structured cloning keeps Dates, strings (exact
// NUMERIC/INT8), arrays and objects, but an Error loses its own fields (pg's `code`, `detail`, …)
// and a Buffer arrives as a plain Uint8Array; these put both back the way callers expect them.

export type ErrorFields = Record<string, unknown> & { message: string };

/** The message and every primitive own field of an error (SQLSTATE `code`, `constraint`, …). */
export function errorFields(e: unknown): ErrorFields {
  const out: ErrorFields = { message: e instanceof Error ? e.message : String(e) };
  if (e && typeof e === 'object') {
    for (const [k, v] of Object.entries(e)) {
      if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
    }
  }
  return out;
}

export function toError(fields: ErrorFields): Error {
  const { message, ...rest } = fields;
  return Object.assign(new Error(message), rest);
}

function asBuffer(v: unknown): unknown {
  return v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
}

/** Rows as the database gave them: bytea columns as Buffers again (in place). */
function withBuffers<T>(rows: Array<Record<string, unknown>>): T[] {
  for (const row of rows) {
    for (const k of Object.keys(row)) row[k] = asBuffer(row[k]);
  }
  return rows as T[];
}

/** A statement's answer coming back across the boundary: its rows, or its error's fields. */
export interface StatementReply {
  id: number;
  rows?: Array<Record<string, unknown>>;
  error?: ErrorFields;
}

/**
 * The asking side of statements sent across a thread boundary: numbers each request, settles it
 * when its reply arrives, and fails every waiting one (and all later ones) once the other side is
 * gone. Used by the PGlite thread's client and by the control-plane port (db-port.ts).
 */
export class PendingStatements {
  private readonly pending = new Map<number, { resolve: (rows: Array<Record<string, unknown>>) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(private readonly post: (message: { id: number }) => void) {}

  /** Posts `message` with a fresh id; resolves with the rows of its reply (bytea as Buffers). */
  send<M extends object>(message: M): Promise<Array<Record<string, unknown>>> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.post({ ...message, id });
    });
  }

  /** Settles the request a reply answers (replies to unknown ids are ignored). */
  settle(reply: StatementReply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (reply.error) p.reject(toError(reply.error));
    else p.resolve(withBuffers(reply.rows ?? []));
  }

  /** The other side is gone: every waiting and later request fails with the first such error. */
  failAll(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}
