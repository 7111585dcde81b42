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
export function withBuffers<T>(rows: Array<Record<string, unknown>>): T[] {
  for (const row of rows) {
    for (const k of Object.keys(row)) row[k] = asBuffer(row[k]);
  }
  return rows as T[];
}

/** Statement parameters as the caller passed them: bytea values as Buffers again. */
export function paramsWithBuffers(params: unknown[] | undefined): unknown[] | undefined {
  return params?.map(asBuffer);
}
