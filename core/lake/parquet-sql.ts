// SQL text for reading a list of lake files as one relation. The file list comes from manifests
// (never from request text); paths are still quoted as SQL string literals.
import { sqlTypeOf, type LakeColumn } from './events-schema.js';

/**
 * A string as SQL. DuckDB's parser ends a statement's text at a NUL, so a NUL is written as chr(0)
 * between quoted parts (request guards refuse NUL in query parameters; this keeps any other path
 * safe), an expression rather than a literal then.
 */
export function sqlStringLiteral(value: string): string {
  const quoted = (s: string) => `'${s.replaceAll("'", "''")}'`;
  return value.includes('\u0000') ? `(${value.split('\u0000').map(quoted).join(' || chr(0) || ')})` : quoted(value);
}

/**
 * `read_parquet([...])` over lake files, the one place that writes it: each path quoted as a SQL
 * string literal, hive_partitioning off (the org=/date= directories must not add columns:
 * organization_id and event_date are stored in every file), union_by_name so files written
 * before a column was added still read, and optionally the `filename` column.
 */
export function readParquetSql(absolutePaths: readonly string[], opts: { filename?: boolean } = {}): string {
  const list = absolutePaths.map(sqlStringLiteral).join(', ');
  return `read_parquet([${list}], ${opts.filename ? 'filename = true, ' : ''}union_by_name = true, hive_partitioning = false)`;
}

/** A parenthesized relation over the given Parquet files, or an empty relation with the table's columns when there are none. */
export function parquetRelationSql(absolutePaths: readonly string[], columns: readonly LakeColumn[]): string {
  if (absolutePaths.length === 0) return emptyRelationSql(columns);
  return `(SELECT * FROM ${readParquetSql(absolutePaths)})`;
}

export function emptyRelationSql(columns: readonly LakeColumn[]): string {
  const cols = columns.map((c) => `CAST(NULL AS ${sqlTypeOf(c.kind)}) AS "${c.name}"`).join(', ');
  return `(SELECT ${cols} WHERE false)`;
}
