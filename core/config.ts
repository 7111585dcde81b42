// Configuration: read from the environment once at start and validated; the same names in
// every run mode (all-in-one, distributed, tests). README lists every variable.
import path from 'node:path';
import { DEFAULT_EXTENSION_DIRECTORY, type LakeCatalogLocation, type LakeSettings, type S3Settings } from './lake/lake-settings.js';
import { SecretValue } from './secret-value.js';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /**
   * LAKE_DIR: where a lake of the removed manifest format lies, for `npm run cli -- lake migrate` to
   * read (decision 0158); unset, LAKE_URL's default folder.
   */
  lakeDir: string;
  /** The open lake (DuckLake; docs/open-lake-plan.md) the processor writes and the api reads. */
  lake: LakeSettings;
  /** Comma-separated brokers; unset in all-in-one mode means "start the local broker". */
  kafkaBrokers: string[] | null;
  /** Port of the embedded broker when this process starts one. */
  kafkaPort: number;
  /** Unset in all-in-one mode means "start the dev schema registry". */
  schemaRegistryUrl: string | null;
  schemaRegistryPort: number;
  /** Unset means PGlite under $DATA_DIR/control. */
  databaseUrl: string | null;
  adminToken: string | null;
  /** 32 bytes, hex or base64, encrypting signing secrets at rest (AES-256-GCM). */
  masterKey: string | null;
  rateLimitIngestPerMinute: number;
  rateLimitReadPer15Minutes: number;
  /** Requests per person (session cookie) per 15 minutes: sized for people browsing the console, not for keys. */
  rateLimitSessionPer15Minutes: number;
  /**
   * The service runs behind a proxy that says how it was reached (TRUST_PROXY): X-Forwarded-Proto
   * decides the session cookie's Secure flag and X-Forwarded-For the address audit rows record.
   */
  trustProxy: boolean;
  topicPartitions: number;
  /** The processor flushes a partition's buffer to the lake at this many rows... */
  processorFlushMaxRows: number;
  /** ...or once its oldest buffered record waited this long (freshness). */
  processorFlushMaxDelayMs: number;
  /** Kafka session timeout of the processor's group membership (how soon a dead member's partitions move). */
  processorSessionTimeoutMs: number;
  /**
   * Nice value (-20..19) of the processor's worker thread in the all-in-one mode (Linux). Above 0
   * the HTTP path gets the CPU first under a burst while the processor catches up from Kafka;
   * default 10 (docs/decisions/0025-processor-thread-nice-value.md).
   */
  processorThreadNice: number;
  /** How long ingest waits for Kafka's acknowledgement before answering 503 (a stalled broker). */
  ingestPublishTimeoutMs: number;
  logLevel: string;
  /**
   * Webhooks may go to loopback and private addresses (WEBHOOK_ALLOW_PRIVATE_URLS). Default: on
   * when the service listens on a loopback address (the all-in-one default), off otherwise.
   */
  webhookAllowPrivateUrls: boolean;
  /**
   * Days an OTLP structural span (a span without usage, kept for session trees) is kept after it
   * was received; 0 keeps them forever. Default 400: every bounded read (12-month margin ranges,
   * last-year windows) still sees whole trees.
   */
  otlpStructuralSpansRetentionDays: number;
  /** Days an audit-trail row is kept (AUDIT_RETENTION_DAYS); 0 keeps every row. Default 400. */
  auditRetentionDays: number;
  /** The origin people reach the service at (PUBLIC_URL): links in password-reset messages, never taken from a request's Host. */
  publicUrl: string | null;
  /** Where password-reset links go (people/password-reset-senders.ts). */
  passwordReset: PasswordResetDelivery;
}

interface PasswordResetDelivery {
  /** PASSWORD_RESET_WEBHOOK_URL: each link is POSTed here as JSON. */
  webhookUrl: string | null;
  /** PASSWORD_RESET_WEBHOOK_SECRET: signs that POST (Marginal-Signature, the webhooks' scheme). */
  webhookSecret: SecretValue | null;
  /** PASSWORD_RESET_LOG_LINKS: the log line carries the link itself (development only; decision 0138). */
  logLinks: boolean;
  /** SMTP_HOST and friends: mail the link to the person. */
  smtp: SmtpSettings | null;
}

interface SmtpSettings {
  host: string;
  /** SMTP_PORT, default 587 (465 with SMTP_SECURE). */
  port: number;
  /** SMTP_SECURE: TLS from the first byte (port 465) rather than STARTTLS. */
  secure: boolean;
  user: string | null;
  password: SecretValue | null;
  /** SMTP_FROM: the sender address. */
  from: string;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return Number(raw);
}

function intBetween(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function str(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const v = str(env, name);
  if (v === null) return fallback;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(v)}`);
}

function secret(env: NodeJS.ProcessEnv, name: string): SecretValue | null {
  const v = str(env, name);
  return v === null ? null : new SecretValue(v);
}

function publicUrl(env: NodeJS.ProcessEnv): string | null {
  const v = str(env, 'PUBLIC_URL');
  if (v === null) return null;
  if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol)) throw new ConfigError(`PUBLIC_URL must be an http(s) URL, got "${v}"`);
  return new URL(v).origin;
}

function smtpSettings(env: NodeJS.ProcessEnv): SmtpSettings | null {
  const host = str(env, 'SMTP_HOST');
  if (host === null) return null;
  const from = str(env, 'SMTP_FROM');
  if (from === null) throw new ConfigError('SMTP_FROM is required when SMTP_HOST is set');
  const secure = bool(env, 'SMTP_SECURE', false);
  return {
    host,
    port: int(env, 'SMTP_PORT', secure ? 465 : 587),
    secure,
    user: str(env, 'SMTP_USER'),
    password: secret(env, 'SMTP_PASSWORD'),
    from,
  };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * When the processor writes a partition's buffer to the lake: at this many rows, or once the
 * oldest row waited this long (freshness against file count and the fixed CPU of each flush; see
 * docs/decisions/0026-node-semi-space-and-processor-flush-delay.md). The one default, for the
 * environment and for a Processor built directly.
 */
export const PROCESSOR_FLUSH_DEFAULTS = { maxRows: 10_000, maxDelayMs: 500 } as const;

/**
 * How long a processor may go without heartbeats before the group gives its partitions to the
 * others (the trade-off is in docs/distributed.md: a shorter session moves a dead member's
 * partitions sooner, a longer one rides out longer stalls without a rebalance). A restarted
 * processor does not wait for it: it rejoins as its dead incarnation (processor/group-member.ts).
 */
export const PROCESSOR_SESSION_TIMEOUT_DEFAULT_MS = 10_000;

function dataDirOf(env: NodeJS.ProcessEnv): string {
  return path.resolve(str(env, 'DATA_DIR') ?? './data');
}

/**
 * Where `npm start` keeps the lake catalog's PostgreSQL it starts itself (docs/decisions/0148):
 * with neither LAKE_CATALOG_URL nor DATABASE_URL; else null.
 */
export function embeddedLakeCatalogDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const catalog = lakeCatalog(str(env, 'LAKE_CATALOG_URL') ?? str(env, 'DATABASE_URL'), dataDirOf(env));
  return catalog.kind === 'embedded' ? catalog.dir : null;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = dataDirOf(env);
  const brokers = str(env, 'KAFKA_BROKERS');
  const lake = lakeSettings(env, dataDir);
  // LAKE_FORMAT names the one lake there is: checked, not kept (decision 0158).
  checkLakeFormat(env);
  // The processor (a worker thread in the all-in-one) and the api each open the lake: a catalog
  // file would show the api none of the processor's commits (docs/decisions/0105, 0106).
  if (lake.catalog.kind === 'duckdb' || lake.catalog.kind === 'sqlite') {
    throw new ConfigError(
      'the open lake needs a PostgreSQL catalog: set LAKE_CATALOG_URL (or DATABASE_URL) to a postgres:// URL (npm start starts its own when neither is set)',
    );
  }
  return {
    host: str(env, 'HOST') ?? '127.0.0.1',
    port: int(env, 'PORT', 8080, 0),
    dataDir,
    lakeDir: path.resolve(str(env, 'LAKE_DIR') ?? path.join(dataDir, 'lake')),
    lake,
    kafkaBrokers: brokers
      ? brokers
          .split(',')
          .map((b) => b.trim())
          .filter(Boolean)
      : null,
    kafkaPort: int(env, 'KAFKA_PORT', 9092),
    schemaRegistryUrl: str(env, 'SCHEMA_REGISTRY_URL'),
    schemaRegistryPort: int(env, 'SCHEMA_REGISTRY_PORT', 8081, 0),
    databaseUrl: str(env, 'DATABASE_URL'),
    adminToken: str(env, 'MARGINAL_ADMIN_TOKEN'),
    masterKey: str(env, 'MARGINAL_MASTER_KEY'),
    rateLimitIngestPerMinute: int(env, 'RATE_LIMIT_INGEST_PER_MINUTE', 100),
    rateLimitReadPer15Minutes: int(env, 'RATE_LIMIT_READ_PER_15_MINUTES', 100),
    rateLimitSessionPer15Minutes: int(env, 'RATE_LIMIT_SESSION_PER_15_MINUTES', 3000),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    topicPartitions: int(env, 'KAFKA_TOPIC_PARTITIONS', 4),
    processorFlushMaxRows: int(env, 'PROCESSOR_FLUSH_MAX_ROWS', PROCESSOR_FLUSH_DEFAULTS.maxRows),
    processorFlushMaxDelayMs: int(env, 'PROCESSOR_FLUSH_MAX_DELAY_MS', PROCESSOR_FLUSH_DEFAULTS.maxDelayMs),
    processorSessionTimeoutMs: int(env, 'PROCESSOR_SESSION_TIMEOUT_MS', PROCESSOR_SESSION_TIMEOUT_DEFAULT_MS, 6_000),
    processorThreadNice: intBetween(env, 'PROCESSOR_THREAD_NICE', 10, -20, 19),
    ingestPublishTimeoutMs: int(env, 'INGEST_PUBLISH_TIMEOUT_MS', 3_000, 100),
    logLevel: str(env, 'LOG_LEVEL') ?? 'info',
    webhookAllowPrivateUrls: bool(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', isLoopbackHost(str(env, 'HOST') ?? '127.0.0.1')),
    otlpStructuralSpansRetentionDays: int(env, 'OTLP_STRUCTURAL_SPANS_RETENTION_DAYS', 400, 0),
    auditRetentionDays: int(env, 'AUDIT_RETENTION_DAYS', 400, 0),
    publicUrl: publicUrl(env),
    passwordReset: {
      webhookUrl: str(env, 'PASSWORD_RESET_WEBHOOK_URL'),
      webhookSecret: secret(env, 'PASSWORD_RESET_WEBHOOK_SECRET'),
      logLinks: bool(env, 'PASSWORD_RESET_LOG_LINKS', false),
      smtp: smtpSettings(env),
    },
  };
}

function checkLakeFormat(env: NodeJS.ProcessEnv): void {
  const v = str(env, 'LAKE_FORMAT') ?? 'ducklake';
  if (v === 'files') {
    throw new ConfigError(
      'LAKE_FORMAT=files is no longer supported (decision 0158): unset LAKE_FORMAT and move the old lake of LAKE_DIR into the open lake with `npm run cli -- lake migrate` (docs/configuration.md)',
    );
  }
  if (v !== 'ducklake') throw new ConfigError(`LAKE_FORMAT must be ducklake (or unset), got "${v}"`);
}

/**
 * LAKE_URL (a folder, or s3://bucket/prefix with the standard AWS variables, each overridden by
 * its MARGINAL_S3_ twin), LAKE_CATALOG_URL (PostgreSQL URL, sqlite:<file> or a DuckDB file;
 * default: DATABASE_URL when set, else the all-in-one's own PostgreSQL, which `npm start` runs
 * and names in LAKE_CATALOG_URL) and LAKE_EXTENSION_DIR.
 */
function lakeSettings(env: NodeJS.ProcessEnv, dataDir: string): LakeSettings {
  // Unset: the same folder as the file lake's (LAKE_DIR); DuckLake writes under its main/ subfolder.
  const url = str(env, 'LAKE_URL') ?? str(env, 'LAKE_DIR') ?? path.join(dataDir, 'lake');
  const onS3 = url.startsWith('s3://');
  if (!onS3 && /^[a-z][a-z0-9+.-]+:\/\//i.test(url)) throw new ConfigError(`LAKE_URL must be a folder or s3://bucket/prefix, got "${url}"`);
  const dataPath = onS3 ? s3DataPath(url) : `${path.resolve(url)}${path.sep}`;
  return {
    dataPath,
    catalog: lakeCatalog(str(env, 'LAKE_CATALOG_URL') ?? str(env, 'DATABASE_URL'), dataDir),
    s3: onS3 ? s3Settings(env) : null,
    extensionDirectory: path.resolve(str(env, 'LAKE_EXTENSION_DIR') ?? DEFAULT_EXTENSION_DIRECTORY),
  };
}

function s3DataPath(url: string): string {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(url);
  if (!m) throw new ConfigError(`LAKE_URL must be s3://bucket/prefix with a valid bucket name, got "${url}"`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return `s3://${m[1]}/${prefix ? `${prefix}/` : ''}`;
}

function lakeCatalog(raw: string | null, dataDir: string): LakeCatalogLocation {
  if (raw === null) return { kind: 'embedded', dir: path.join(dataDir, 'lake-catalog') };
  if (/^postgres(ql)?:\/\//.test(raw)) return { kind: 'postgres', url: new SecretValue(raw) };
  if (raw.startsWith('sqlite:')) return { kind: 'sqlite', path: path.resolve(raw.slice('sqlite:'.length)) };
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(raw)) throw new ConfigError('LAKE_CATALOG_URL must be a postgres:// URL, sqlite:<file> or a file');
  return { kind: 'duckdb', path: path.resolve(raw) };
}

/** Marginal's own variable first, then the AWS SDK's standard one. */
function s3Variable(env: NodeJS.ProcessEnv, own: string, ...standard: string[]): string | null {
  for (const name of [`MARGINAL_S3_${own}`, ...standard]) {
    const v = str(env, name);
    if (v !== null) return v;
  }
  return null;
}

function s3Settings(env: NodeJS.ProcessEnv): S3Settings {
  const accessKeyId = s3Variable(env, 'ACCESS_KEY_ID', 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = s3Variable(env, 'SECRET_ACCESS_KEY', 'AWS_SECRET_ACCESS_KEY');
  if (!accessKeyId || !secretAccessKey) {
    throw new ConfigError(
      'LAKE_URL is on S3: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or MARGINAL_S3_ACCESS_KEY_ID and MARGINAL_S3_SECRET_ACCESS_KEY)',
    );
  }
  const sessionToken = s3Variable(env, 'SESSION_TOKEN', 'AWS_SESSION_TOKEN');
  const endpointUrl = s3Variable(env, 'ENDPOINT_URL', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL');
  let endpoint: URL | null = null;
  if (endpointUrl) {
    endpoint = URL.canParse(endpointUrl) ? new URL(endpointUrl) : null;
    if (!endpoint || !/^https?:$/.test(endpoint.protocol) || endpoint.pathname.length > 1 || endpoint.search) {
      throw new ConfigError(`the S3 endpoint must be http(s)://host[:port], got "${endpointUrl}"`);
    }
  }
  const urlStyle = s3Variable(env, 'URL_STYLE') ?? (endpoint ? 'path' : 'vhost');
  if (urlStyle !== 'path' && urlStyle !== 'vhost') throw new ConfigError(`MARGINAL_S3_URL_STYLE must be path or vhost, got "${urlStyle}"`);
  return {
    region: s3Variable(env, 'REGION', 'AWS_REGION', 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    endpoint: endpoint ? endpoint.host : null,
    useSsl: endpoint ? endpoint.protocol === 'https:' : true,
    urlStyle,
    accessKeyId,
    secretAccessKey: new SecretValue(secretAccessKey),
    sessionToken: sessionToken ? new SecretValue(sessionToken) : null,
  };
}
