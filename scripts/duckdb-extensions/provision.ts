// DuckDB's signed extension binaries for the lake (ducklake, httpfs, aws, postgres_scanner,
// sqlite_scanner), for the exact DuckDB version inside @duckdb/node-bindings, laid out as DuckDB's
// own `extension_directory` (<dir>/v<version>/<platform>/<name>.duckdb_extension) under .cache/.
// DuckDB's extension server is not reachable everywhere (our CI), so they come from PyPI, where
// DuckDB repackages the same signed files (`duckdb-extension-<name>==<version>`), fetched with pip.
// Invariant: the folder is complete or absent (fetched into a private folder, renamed into place,
// a marker naming the version and the list); DuckDB's signature check stays on: never
// allow_unsigned_extensions.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_EXTENSION_DIRECTORY } from '../../core/lake/lake-settings.js';
import { fromRoot } from '../../core/paths.js';

const run = promisify(execFile);

/** Extension file names DuckDB loads, each with the PyPI package that carries it. */
const LAKE_EXTENSIONS: Record<string, string> = {
  ducklake: 'duckdb-extension-ducklake',
  httpfs: 'duckdb-extension-httpfs',
  aws: 'duckdb-extension-aws',
  postgres_scanner: 'duckdb-extension-postgres-scanner',
  sqlite_scanner: 'duckdb-extension-sqlite-scanner',
};

export interface ProvisionedExtensions {
  /** Give this to DuckDB as `extension_directory`; `LOAD ducklake` etc. then find the files. */
  extensionDirectory: string;
  /** The DuckDB version the files were built for, e.g. "1.5.5". */
  duckdbVersion: string;
  /** DuckDB's platform name, e.g. "linux_amd64". */
  platform: string;
  names: string[];
}

/** The DuckDB version of the engine the project loads: @duckdb/node-bindings "1.5.5-r.5" is 1.5.5. */
export function projectDuckDBVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(fromRoot('node_modules', '@duckdb', 'node-bindings', 'package.json'), 'utf8')) as {
    version: string;
  };
  const m = /^(\d+\.\d+\.\d+)/.exec(pkg.version);
  if (!m) throw new Error(`cannot read a DuckDB version from @duckdb/node-bindings ${pkg.version}`);
  return m[1];
}

/** DuckDB's own platform names (what `PRAGMA platform` says) for the hosts we run on. */
function duckdbPlatform(): string {
  const key = `${process.platform}-${process.arch}`;
  const known: Record<string, string> = {
    'linux-x64': 'linux_amd64',
    'linux-arm64': 'linux_arm64',
    'darwin-x64': 'osx_amd64',
    'darwin-arm64': 'osx_arm64',
  };
  const platform = known[key];
  if (!platform) throw new Error(`no DuckDB extension platform known for ${key}`);
  return platform;
}

function python(): string {
  return process.env.PYTHON ?? 'python3';
}

/**
 * Makes sure the lake's extensions for the project's DuckDB are in
 * `.cache/duckdb-extensions/v<version>/<platform>/` and says where. pip runs only when the marker
 * is missing or names another list, so a provisioned machine answers in a millisecond, offline.
 */
export async function ensureDuckDBExtensions(
  options: { duckdbVersion?: string; root?: string; log?: (line: string) => void } = {},
): Promise<ProvisionedExtensions> {
  const duckdbVersion = options.duckdbVersion ?? projectDuckDBVersion();
  const platform = duckdbPlatform();
  const extensionDirectory = options.root ?? DEFAULT_EXTENSION_DIRECTORY;
  const names = Object.keys(LAKE_EXTENSIONS);
  const result = { extensionDirectory, duckdbVersion, platform, names };
  const target = path.join(extensionDirectory, `v${duckdbVersion}`, platform);
  const markerText = `${names.join(',')}\n`;
  const marker = path.join(target, '.complete');
  const isComplete = (): boolean => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === markerText;
  if (isComplete()) return result;

  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staging = fs.mkdtempSync(`${target}.fetch-`);
  try {
    const wheels = path.join(staging, 'wheels');
    const specs = names.map((n) => `${LAKE_EXTENSIONS[n]}==${duckdbVersion}`);
    options.log?.(`fetching ${specs.join(' ')} from PyPI`);
    await run(
      python(),
      ['-m', 'pip', 'download', '--quiet', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-d', wheels, ...specs],
      { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 },
    ).catch((e: Error & { stderr?: string }) => {
      throw new Error(
        `pip could not fetch DuckDB ${duckdbVersion}'s extensions (${specs.join(' ')}); PyPI carries them only for ` +
          `released DuckDB versions it repackaged (\`pip index versions duckdb-extension-ducklake\`): ` +
          `${(e.stderr ?? e.message).trim().split('\n').slice(-3).join(' ')}`,
      );
    });
    const files = path.join(staging, 'files');
    for (const wheel of fs.readdirSync(wheels).filter((f) => f.endsWith('.whl'))) {
      await run(python(), ['-m', 'zipfile', '-e', path.join(wheels, wheel), files], { timeout: 120_000 });
    }
    // Each wheel holds <package>/extensions/v<version>/<name>.duckdb_extension.
    const laid = path.join(staging, 'laid');
    fs.mkdirSync(laid);
    for (const name of names) {
      const pkgDir = LAKE_EXTENSIONS[name].replaceAll('-', '_');
      const file = path.join(files, pkgDir, 'extensions', `v${duckdbVersion}`, `${name}.duckdb_extension`);
      if (!fs.existsSync(file)) throw new Error(`the wheel of ${LAKE_EXTENSIONS[name]} holds no ${path.relative(files, file)}`);
      fs.renameSync(file, path.join(laid, `${name}.duckdb_extension`));
    }
    fs.writeFileSync(path.join(laid, '.complete'), markerText);
    if (isComplete()) return result; // another process finished first
    fs.rmSync(target, { recursive: true, force: true });
    try {
      fs.renameSync(laid, target);
    } catch (e) {
      if (!isComplete()) throw e;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return result;
}
