// SQL text for reading a list of lake files as one relation. The file list comes from manifests
// (never from request text); paths are still quoted as SQL string literals.
import { sqlTypeOf, type LakeColumn } from './events-schema.js';

export function sqlStringLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * A parenthesized relation over the given Parquet files, or an empty relation with the table's
 * columns when there are none. hive_partitioning is off: the org=/date= directories must not add
 * columns (organization_id and event_date are stored in every file).
 */
export function parquetRelationSql(absolutePaths: readonly string[], columns: readonly LakeColumn[]): string {
  if (absolutePaths.length === 0) return emptyRelationSql(columns);
  const list = absolutePaths.map(sqlStringLiteral).join(', ');
  return `(SELECT * FROM read_parquet([${list}], union_by_name = true, hive_partitioning = false))`;
}

export function emptyRelationSql(columns: readonly LakeColumn[]): string {
  const cols = columns.map((c) => `CAST(NULL AS ${sqlTypeOf(c.kind)}) AS "${c.name}"`).join(', ');
  return `(SELECT ${cols} WHERE false)`;
}
