// `tsx scripts/duckdb-extensions.ts [--duckdb-version X.Y.Z]`: fetch the lake's DuckDB extensions
// (scripts/duckdb-extensions/provision.ts) into .cache/duckdb-extensions once, and print where
// they are and how a DuckDB is pointed at them. Exits non-zero when they cannot be provisioned.
import { parseArgs } from 'node:util';
import { ensureDuckDBExtensions } from './duckdb-extensions/provision.js';

const { values } = parseArgs({
  options: { 'duckdb-version': { type: 'string' } },
});
const began = Date.now();
try {
  const ext = await ensureDuckDBExtensions({
    duckdbVersion: values['duckdb-version'],
    log: (l) => console.log(l),
  });
  console.log(
    `DuckDB v${ext.duckdbVersion} ${ext.platform}: ${ext.names.join(', ')} in ${ext.extensionDirectory} ` +
      `(${Date.now() - began} ms). Use: SET extension_directory = '${ext.extensionDirectory}'; LOAD ducklake;`,
  );
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
