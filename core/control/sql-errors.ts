// Recognizing PostgreSQL errors by SQLSTATE, the same on pg and PGlite (both expose `code`), so
// storage modules can turn constraint violations into the typed errors of core/errors.ts.
export const UNIQUE_VIOLATION = '23505';
export const FOREIGN_KEY_VIOLATION = '23503';
export const CHECK_VIOLATION = '23514';
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

