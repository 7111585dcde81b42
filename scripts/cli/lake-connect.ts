// `npm run cli -- lake connect`: prints the DuckDB statements after which a plain DuckDB (CLI,
// Python, any program without Marginal) reads the open lake read-only from this environment's
// settings (LAKE_URL, LAKE_CATALOG_URL, the S3 variables; docs/configuration.md), one per line.
// Local: no server, no admin token. Credentials are printed: they are the caller's own.
import { loadConfig } from '../../core/config.js';
import { connectStatements } from '../../core/lake/lake-catalog.js';

export function printLakeConnect(): number {
  const config = loadConfig();
  if (config.lakeFormat !== 'ducklake') {
    process.stderr.write('LAKE_FORMAT is files: the lake is not a DuckLake yet (docs/open-lake-plan.md)\n');
    return 1;
  }
  for (const statement of connectStatements(config.lake)) process.stdout.write(`${statement};\n`);
  return 0;
}
