// `npm run cli -- lake connect`: prints the DuckDB statements after which a plain DuckDB (CLI,
// Python, any program without Marginal) reads the open lake read-only from this environment's
// settings (LAKE_URL, LAKE_CATALOG_URL, the S3 variables; docs/configuration.md), one per line.
// Local: no server, no admin token. Credentials are printed: they are the caller's own.
import { loadConfig } from '../../core/config.js';
import { connectStatements } from '../../core/lake/lake-catalog.js';
import { attachEmbeddedLakeCatalog } from './embedded-lake-catalog.js';

export async function printLakeConnect(): Promise<number> {
  // The all-in-one's own catalog is read where it runs; its port (so these statements) changes
  // when the service restarts.
  if (!(await attachEmbeddedLakeCatalog({ start: false }))) {
    process.stderr.write("the all-in-one's lake catalog is not running: start the service (npm start) or set LAKE_CATALOG_URL\n");
    return 1;
  }
  const config = loadConfig();
  for (const statement of connectStatements(config.lake)) process.stdout.write(`${statement};\n`);
  return 0;
}
