// The wire shapes of scheduled exports: a schedule as created and listed (never the secret key),
// and its runs.

export type ExportKind = 'focus' | 'events' | 'rollups';
export type ExportFrequency = 'daily' | 'monthly';
export type ExportRunStatus = 'pending' | 'running' | 'succeeded' | 'failed';

/** How to reach an S3 bucket (AWS S3 or any S3-compatible store). */
interface ExportS3Access {
  /**
   * host[:port] of an S3-compatible service (MinIO, R2, S3Proxy); omit for AWS S3.
   * @maxLength 255
   */
  endpoint?: string;
  /**
   * Default us-east-1.
   * @maxLength 64
   */
  region?: string;
  /** `vhost` (default for AWS) or `path` (default with an endpoint). */
  url_style?: 'path' | 'vhost';
  /** Default true. */
  use_ssl?: boolean;
  /**
   * @minLength 1
   * @maxLength 255
   */
  access_key_id: string;
  /**
   * Stored encrypted under the master key; never shown again.
   * @minLength 1
   * @maxLength 1024
   */
  secret_access_key: string;
}

export interface CreateExportScheduleBody {
  /** `focus` (the FOCUS 1.2 file of GET /v1/exports/focus), `events` (raw events) or `rollups` (daily cost rollups); all Parquet. */
  kind: ExportKind;
  /** `daily`: each UTC day once it has ended; `monthly`: each UTC calendar month. */
  frequency: ExportFrequency;
  /**
   * `s3://bucket/prefix` (with `s3`), or a folder relative to the server's DATA_DIR.
   * @minLength 1
   * @maxLength 1024
   */
  destination: string;
  /** Required with an s3:// destination. */
  s3?: ExportS3Access;
  /**
   * With kind `focus`: comma-separated metadata keys (at most 5) that split the rows and appear in
   * Tags, as GET /v1/exports/focus?dimensions= does.
   * @maxLength 1300
   */
  dimensions?: string;
  /**
   * A UTC date (YYYY-MM-DD) at most 12 months back: the periods from the one holding it up to the
   * schedule's first are exported too (a backfill), oldest first.
   * @pattern ^\d{4}-\d{2}-\d{2}$
   * @example "2026-01-01"
   */
  backfill_from?: string;
}

export interface ExportScheduleView {
  id: string;
  organization_id: string;
  kind: ExportKind;
  frequency: ExportFrequency;
  destination: string;
  /** The S3 access without its secret (the key's last 4 characters as `secret_key_hint`); null for a folder. */
  s3: {
    endpoint: string | null;
    region: string;
    url_style: 'path' | 'vhost';
    use_ssl: boolean;
    access_key_id: string;
    secret_key_hint: string;
  } | null;
  /** The metadata keys a FOCUS export is split by; empty otherwise. */
  dimensions: string[];
  created_at: string;
}

export interface ExportScheduleList {
  schedules: ExportScheduleView[];
}

export interface ExportRunView {
  id: string;
  schedule_id: string;
  kind: ExportKind;
  frequency: ExportFrequency;
  /** UTC date, inclusive. */
  period_start: string;
  /** UTC date, exclusive. */
  period_end: string;
  status: ExportRunStatus;
  attempts: number;
  /** The S3 key or the file under the destination folder; the same for every run of the period. */
  object_key: string;
  /** Rows written; null until it succeeded. */
  rows: number | null;
  /** Bytes of the object; null until it succeeded. */
  bytes: number | null;
  /** The last attempt's error, if it failed. */
  error: string | null;
  /** When a pending run is tried next. */
  next_attempt_at: string;
  created_at: string;
  finished_at: string | null;
}

export interface ExportRunList {
  runs: ExportRunView[];
}
