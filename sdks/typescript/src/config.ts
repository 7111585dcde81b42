// Client configuration: options first, then MARGINAL_BASE_URL / MARGINAL_API_KEY /
// MARGINAL_SIGNING_SECRET, then defaults. Resolved once, when the client is made. The base URL is
// the server's origin; every request goes to `${baseUrl}/v1/...`.
import { MarginalConfigError } from './errors.js';
import type { EventResult } from './events.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export interface RetryOptions {
  /** Attempts after the first (default 8). */
  maxRetries?: number;
  /** First backoff step in ms (default 250); doubles each attempt, full jitter. */
  initialDelayMs?: number;
  /** Ceiling of one backoff step in ms (default 30,000); a longer Retry-After is still honoured. */
  maxDelayMs?: number;
}

export interface MarginalOptions {
  /** `mk_live_…`; default MARGINAL_API_KEY. */
  apiKey?: string;
  /** `mks_…`, needed to send events; default MARGINAL_SIGNING_SECRET. */
  signingSecret?: string;
  /** Server origin, e.g. `https://marginal.example.com` (the SDK adds /v1); default MARGINAL_BASE_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Events `track` keeps waiting at most; beyond it new events are dropped and reported (default 10,000). */
  maxQueueSize?: number;
  /** Events per batch request (default 500, at most 1000). */
  batchSize?: number;
  /** Longest an event waits before its batch is sent, in ms (default 1000). */
  flushIntervalMs?: number;
  /** Batch requests in flight at once (default 2). */
  maxConcurrentRequests?: number;
  /** Per-attempt request timeout in ms (default 30,000). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Called once per tracked event with its outcome (accepted, flagged, rejected, failed or dropped). */
  onResult?: (result: EventResult) => void;
  /** Flush on the process's `beforeExit` (default true); `process.exit()` skips it: call `shutdown()`. */
  flushOnExit?: boolean;
  /** fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
}

export interface ResolvedConfig {
  apiKey: string;
  signingSecret: string | null;
  /** Origin without trailing slash. */
  baseUrl: string;
  /** `${baseUrl}/v1`. */
  apiUrl: string;
  maxQueueSize: number;
  batchSize: number;
  flushIntervalMs: number;
  maxConcurrentRequests: number;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  onResult: ((result: EventResult) => void) | null;
  flushOnExit: boolean;
  fetch: typeof fetch;
}

export function resolveConfig(options: MarginalOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const apiKey = options.apiKey ?? nonEmpty(env.MARGINAL_API_KEY);
  if (!apiKey) throw new MarginalConfigError('apiKey is required (option apiKey or MARGINAL_API_KEY)');
  const baseUrl = originOf(options.baseUrl ?? nonEmpty(env.MARGINAL_BASE_URL) ?? DEFAULT_BASE_URL);
  const batchSize = positiveInt('batchSize', options.batchSize, 500);
  if (batchSize > 1000) throw new MarginalConfigError('batchSize must be at most 1000 (the batch endpoint limit)');
  return {
    apiKey,
    signingSecret: options.signingSecret ?? nonEmpty(env.MARGINAL_SIGNING_SECRET) ?? null,
    baseUrl,
    apiUrl: `${baseUrl}/v1`,
    maxQueueSize: positiveInt('maxQueueSize', options.maxQueueSize, 10_000),
    batchSize,
    flushIntervalMs: positiveInt('flushIntervalMs', options.flushIntervalMs, 1000),
    maxConcurrentRequests: positiveInt('maxConcurrentRequests', options.maxConcurrentRequests, 2),
    timeoutMs: positiveInt('timeoutMs', options.timeoutMs, 30_000),
    retry: {
      maxRetries: nonNegativeInt('retry.maxRetries', options.retry?.maxRetries, 8),
      initialDelayMs: nonNegativeInt('retry.initialDelayMs', options.retry?.initialDelayMs, 250),
      maxDelayMs: nonNegativeInt('retry.maxDelayMs', options.retry?.maxDelayMs, 30_000),
    },
    onResult: options.onResult ?? null,
    flushOnExit: options.flushOnExit ?? true,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
  };
}

/** The origin the user meant: trailing slashes and a trailing `/v1` are tolerated and removed. */
function originOf(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MarginalConfigError(`baseUrl is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new MarginalConfigError(`baseUrl must be http(s): ${raw}`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.origin}${path}`;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function positiveInt(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 1) throw new MarginalConfigError(`${name} must be a positive integer`);
  return v;
}

function nonNegativeInt(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 0) throw new MarginalConfigError(`${name} must be a non-negative integer`);
  return v;
}
