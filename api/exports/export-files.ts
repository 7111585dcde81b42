// Export files: FOCUS rows as CSV (the one CSV writer) or Parquet (exact DECIMAL(38,12), UTC
// TIMESTAMPTZ), and the publishing of a staged local file to its destination — a rename within a
// local folder, or DuckDB httpfs's COPY to S3 (its upload is a multipart upload, so the object
// appears whole or not at all; docs/decisions/0131). Invariants: a reader never sees half a file
// (temp file + rename; S3 completes the upload last); the S3 secret reaches DuckDB only in SQL
// built here, scoped to the bucket, and never comes back in an error's message.
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { toCsv } from '../../core/csv.js';
import { s3HttpBoundsSql, s3SecretSql } from '../../core/lake/lake-catalog.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import type { S3Settings } from '../../core/lake/lake-settings.js';
import { FOCUS_COLUMNS, type FocusColumnType, type FocusRow } from './focus.js';

/** Where a finished export goes: an S3 key, or a file under a local folder. */
export type ExportTarget = { type: 's3'; bucket: string; key: string; access: S3Settings } | { type: 'folder'; file: string };

const SQL_TYPES: Record<FocusColumnType, string> = {
  decimal: 'DECIMAL(38,12)',
  datetime: 'TIMESTAMPTZ',
  string: 'VARCHAR',
  json: 'VARCHAR',
};

export function focusCsv(rows: readonly FocusRow[]): string {
  const names = FOCUS_COLUMNS.map(([name]) => name);
  return toCsv(
    names,
    rows.map((r) => names.map((n) => r[n])),
  );
}

/** A DuckDB of the export's own (never the api's read DuckDB), with the provisioned extensions only. */
async function withDuckDb<T>(
  extensionDirectory: string,
  run: (sql: (text: string) => Promise<Record<string, unknown>[]>) => Promise<T>,
): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:', {
    extension_directory: extensionDirectory,
    autoinstall_known_extensions: 'false',
    allow_unsigned_extensions: 'false',
    threads: '1',
  });
  const conn = await instance.connect();
  try {
    return await run(async (text) => (await conn.runAndReadAll(text)).getRowObjectsJson() as Record<string, unknown>[]);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Writes FOCUS rows as Parquet to `file` (through newline-delimited JSON beside it, so every value is read as the exact text it is). */
export async function writeFocusParquet(rows: readonly FocusRow[], file: string, extensionDirectory: string): Promise<void> {
  const json = `${file}.ndjson`;
  fs.writeFileSync(json, rows.map((r) => JSON.stringify(r)).join('\n'));
  try {
    const columns = FOCUS_COLUMNS.map(([name]) => `${sqlStringLiteral(name)}: 'VARCHAR'`).join(', ');
    const select = FOCUS_COLUMNS.map(([name, type]) => `CAST("${name}" AS ${SQL_TYPES[type]}) AS "${name}"`).join(', ');
    await withDuckDb(extensionDirectory, (sql) =>
      sql(
        `COPY (SELECT ${select} FROM read_json(${sqlStringLiteral(json)}, format = 'newline_delimited', columns = {${columns}}))
           TO ${sqlStringLiteral(file)} (FORMAT parquet)`,
      ),
    );
  } finally {
    fs.rmSync(json, { force: true });
  }
}

/** Puts the staged Parquet file at the target, replacing what was there; returns the bytes the target now holds. */
export async function publishParquet(staged: string, target: ExportTarget, extensionDirectory: string): Promise<number> {
  if (target.type === 'folder') {
    const bytes = fs.statSync(staged).size;
    fs.mkdirSync(path.dirname(target.file), { recursive: true });
    fs.renameSync(staged, target.file);
    return bytes;
  }
  const url = sqlStringLiteral(`s3://${target.bucket}/${target.key}`);
  try {
    return await withDuckDb(extensionDirectory, async (sql) => {
      await sql('LOAD httpfs');
      for (const statement of s3HttpBoundsSql()) await sql(statement);
      await sql(s3SecretSql('export_s3', target.bucket, target.access));
      // Parquet to Parquet: the same rows and types; DuckDB writes no raw bytes.
      await sql(`COPY (SELECT * FROM read_parquet(${sqlStringLiteral(staged)})) TO ${url} (FORMAT parquet)`);
      const [object] = await sql(`SELECT size FROM read_blob(${url})`);
      return Number(object?.size ?? 0);
    });
  } catch (e) {
    throw new Error(target.access.secretAccessKey.redactFrom(e instanceof Error ? e.message : String(e)));
  } finally {
    fs.rmSync(staged, { force: true });
  }
}
