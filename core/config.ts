// Configuration: read from the environment once at start and validated; the same names in
// every run mode (all-in-one, distributed, tests). README lists every variable.
import path from 'node:path';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  lakeDir: string;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(str(env, 'DATA_DIR') ?? './data');
  const brokers = str(env, 'KAFKA_BROKERS');
  return {
    host: str(env, 'HOST') ?? '127.0.0.1',
    port: int(env, 'PORT', 8080, 0),
    dataDir,
    lakeDir: path.resolve(str(env, 'LAKE_DIR') ?? path.join(dataDir, 'lake')),
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
  };
}
