// Retries of one HTTP request: network errors, timeouts, 408, 429 (waiting Retry-After) and 5xx
// are retried with exponential backoff and jitter; every other answer is final. The caller builds
// each attempt (so a signed request gets a fresh X-Timestamp over the same body, and the same
// idempotency keys); nothing here knows about events.
import { MarginalConnectionError, retryAfterSeconds } from './errors.js';
import type { RetryOptions } from './config.js';

export type RetryPolicy = Required<RetryOptions>;

/** A final answer: status, headers, the body's bytes and text, and the body parsed (JSON, else the text, else null). */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The body as received (a file download is not text); absent where only text was kept. */
  bytes?: Uint8Array<ArrayBuffer>;
  text: string;
  body: unknown;
}

export interface RetryEnvironment {
  timeoutMs: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * Backoff before retry number `retry` (0-based): the step doubles from initialDelayMs up to
 * maxDelayMs, and the wait is a uniform draw from the step's upper half ("equal jitter"), so
 * clients that failed together spread out but none retries at once.
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return Math.round(step / 2 + random() * (step / 2));
}

/** How long to wait before the next attempt after `answer` (Retry-After wins when present). */
export function retryDelayMs(retry: number, policy: RetryPolicy, answer: HttpAnswer | null, random?: () => number): number {
  const after = answer ? retryAfterSeconds(answer.headers.get('retry-after')) : null;
  return after !== null ? Math.ceil(after * 1000) : backoffDelayMs(retry, policy, random);
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends `attempt` until it gets a final answer or the retries run out. Returns the last answer
 * (which may be a retryable status once retries are exhausted); throws MarginalConnectionError
 * when the last attempt got no answer at all.
 */
export async function requestWithRetry(
  attempt: (signal: AbortSignal) => Promise<Response>,
  policy: RetryPolicy,
  env: RetryEnvironment,
): Promise<HttpAnswer> {
  const sleep = env.sleep ?? sleepFor;
  for (let retry = 0; ; retry++) {
    let answer: HttpAnswer | null = null;
    let fault: unknown = null;
    try {
      answer = await answerOf(attempt, env.timeoutMs);
    } catch (err) {
      fault = err;
    }
    if (answer && !isRetryableStatus(answer.status)) return answer;
    if (retry >= policy.maxRetries) {
      if (answer) return answer;
      throw new MarginalConnectionError(`no answer after ${retry + 1} attempts: ${describe(fault)}`, { cause: fault });
    }
    await sleep(retryDelayMs(retry, policy, answer, env.random));
  }
}

/** One attempt, body read included, bounded by the timeout. */
async function answerOf(attempt: (signal: AbortSignal) => Promise<Response>, timeoutMs: number): Promise<HttpAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  const res = await attempt(signal);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return { status: res.status, headers: res.headers, bytes, text, body: parseBody(text) };
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}
