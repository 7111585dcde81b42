// Recognizing PostgreSQL errors by SQLSTATE, the same on pg and PGlite (both expose `code`), so
// storage modules can turn constraint violations into the typed errors of core/errors.ts, and the
// HTTP error handler can tell an unreachable control plane (503) from a bug (500).
export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';
export const CHECK_VIOLATION = '23514';
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Socket faults of a connection that could not be made or was lost. */
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** SQLSTATEs of a server that is going away or not taking connections (class 08 is checked apart). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What `pg` and `pg-pool` say when a connection is lost or cannot be had in time. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
];

/**
 * True when the control plane could not be reached or went away (refused, reset, timed out,
 * shutting down): a fault of availability, answered 503, not a bug (500). Follows `cause` and an
 * AggregateError's members (Node's connect to several addresses).
 */
export function isConnectionFailure(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 4) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_ERRNOS.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)))
    return true;
  const message = (err as { message?: unknown }).message;
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((m) => message.includes(m))) return true;
  if (err instanceof AggregateError && err.errors.some((e) => isConnectionFailure(e, depth + 1))) return true;
  return isConnectionFailure((err as { cause?: unknown }).cause, depth + 1);
}
