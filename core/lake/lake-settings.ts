// Where the open lake lives (docs/decisions/0105), as core/config.ts reads it from the environment
// and core/lake/lake-catalog.ts opens it. Plain data: no DuckDB here, so every process may read its
// config without loading the engine. Credentials are SecretValues (printing one shows "[redacted]").
import { fromRoot } from '../paths.js';
import type { SecretValue } from '../secret-value.js';

/** Where `npm run lake:extensions` (scripts/duckdb-extensions.ts) lays the extensions out. */
export const DEFAULT_EXTENSION_DIRECTORY = fromRoot('.cache', 'duckdb-extensions');

/** Where the catalog (DuckLake's metadata) lives. */
export type LakeCatalogLocation =
  /** A PostgreSQL database (URL with its credentials); DuckLake's tables go in its schema `ducklake`. */
  | { kind: 'postgres'; url: SecretValue }
  /**
   * The all-in-one's own PostgreSQL under `dir` (0148), not named yet: `npm start` runs it and puts
   * its URL in LAKE_CATALOG_URL before reading the config, so a process that still sees this kind
   * has no catalog it can open.
   */
  | { kind: 'embedded'; dir: string }
  /** A DuckDB file: one DuckDB instance may have it open (0105). */
  | { kind: 'duckdb'; path: string }
  /** An SQLite file: one process at a time (0105 measured reader and writer locking each other out). */
  | { kind: 'sqlite'; path: string };

export interface S3Settings {
  region: string;
  /** host[:port] of an S3-compatible service (MinIO, R2, GCS, S3Proxy); null for AWS S3. */
  endpoint: string | null;
  useSsl: boolean;
  /** `path` (https://host/bucket/key) or `vhost` (https://bucket.host/key). */
  urlStyle: 'path' | 'vhost';
  accessKeyId: string;
  secretAccessKey: SecretValue;
  sessionToken: SecretValue | null;
}

export interface LakeSettings {
  /** Where DuckLake writes data files: `s3://bucket/prefix/` or an absolute folder, ending in `/`. */
  dataPath: string;
  catalog: LakeCatalogLocation;
  /** Set exactly when dataPath is on S3. */
  s3: S3Settings | null;
  /** DuckDB's extension_directory holding ducklake, httpfs and postgres_scanner for its version. */
  extensionDirectory: string;
}
