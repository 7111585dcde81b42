// When to try a failed delivery again: exponential backoff from 30 s doubling to a 6 h cap, with
// "full jitter" (a uniform draw between half the step and the step) so that many endpoints failing
// together do not retry in lockstep. A delivery whose first failure is RETRY_WINDOW_MS old is not
// retried again; an endpoint failing without a success for that long is disabled.
import { backoffStepMs } from '../../core/backoff.js';

export const RETRY_WINDOW_MS = 3 * 24 * 3600_000;
const STEPS = { firstMs: 30_000, maxMs: 6 * 3600_000 };

/** Milliseconds before the next attempt after `failures` failed attempts (1 = the first failed). */
export function backoffMs(failures: number, random: () => number = Math.random): number {
  const step = backoffStepMs(failures - 1, STEPS);
  return Math.round(step / 2 + (step / 2) * random());
}

export type RetryDecision = { retryAt: Date } | { giveUp: true };

/**
 * After a failed attempt at `now`: retry at a jittered time, or give up when the retry window
 * since the first failure has passed (or the next try would fall beyond it).
 */
export function nextAttempt(failures: number, firstFailedAt: Date, now: Date, random: () => number = Math.random): RetryDecision {
  const deadline = firstFailedAt.getTime() + RETRY_WINDOW_MS;
  if (now.getTime() >= deadline) return { giveUp: true };
  const at = Math.min(now.getTime() + backoffMs(failures, random), deadline);
  return { retryAt: new Date(at) };
}
