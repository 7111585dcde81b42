// The one backoff schedule of the services: the wait doubles from `firstMs` with each attempt, up
// to `maxMs`. Callers keep their own attempt count (and add jitter where many clients retry at
// once, as webhook deliveries do). The SDKs are separate packages and keep their own (retry.ts).

export interface BackoffSchedule {
  firstMs: number;
  maxMs: number;
}

/** The wait before retry `attempt` (0: the first retry): firstMs × 2^attempt, at most maxMs. */
export function backoffStepMs(attempt: number, { firstMs, maxMs }: BackoffSchedule): number {
  // The exponent is bounded so that 2^attempt stays finite (0 × Infinity would be NaN).
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(0, attempt), 52));
}
