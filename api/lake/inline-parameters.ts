// Named parameters ($name) written into the SQL text as literals, so a read query is one call
// into DuckDB (parse, plan and run on its worker) instead of extract, prepare, bind and run: the
// node binding parses a statement with parameters on the main thread (about 1 ms of a warm
// dimension request's main-thread time, bench/results/dimensions.md). Values become literals of
// the type they would have been bound as (VARCHAR strings, BIGINT integers, DOUBLE other numbers,
// BOOLEAN, TIMESTAMP for Date, NULL); strings are quoted by the same rule as every lake path, and
// `$name` inside a quoted string or identifier is left alone.
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';

export type InlineValue = string | number | boolean | Date | null;

export function sqlLiteral(value: InlineValue): string {
  if (value === null) return 'NULL';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new Error('invalid Date parameter');
    return `TIMESTAMP '${value.toISOString()}'`;
  }
  switch (typeof value) {
    case 'string':
      return sqlStringLiteral(value);
    case 'boolean':
      return value ? 'TRUE' : 'FALSE';
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`parameter ${value} is not a finite number`);
      return Number.isSafeInteger(value) ? `CAST(${value} AS BIGINT)` : `CAST(${value} AS DOUBLE)`;
  }
}

/** A quoted string, a quoted identifier (doubled quotes escape), or a parameter. */
const TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$([A-Za-z0-9_]+)/g;

/**
 * `sql` with every `$name` whose name `values` has replaced by its literal, outside quoted
 * strings ('…') and quoted identifiers ("…"). Names `values` lacks are left as they are.
 */
export function inlineParameters(sql: string, values: Readonly<Record<string, InlineValue>>): string {
  if (!sql.includes('$')) return sql;
  return sql.replace(TOKEN, (token, name: string | undefined) =>
    name !== undefined && Object.hasOwn(values, name) ? sqlLiteral(values[name]!) : token,
  );
}
