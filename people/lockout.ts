// The sign-in lockout schedule, per account and per address. Pure: the store counts failures, this
// says how long the next attempt must wait. The first few failures are free (typos); from then on
// each failure locks for twice as long as the one before, up to a ceiling; an hour without a
// failure starts the count again.

export interface LockoutPolicy {
  /** Failures allowed before the first lock. */
  freeFailures: number;
  /** Lock after the first failure past the free ones. */
  firstLockSeconds: number;
  maxLockSeconds: number;
}

/** Per account: five tries, then 30 s, 60 s, … up to 15 minutes. */
export const ACCOUNT_LOCKOUT: LockoutPolicy = { freeFailures: 5, firstLockSeconds: 30, maxLockSeconds: 15 * 60 };
/** Per address: higher, since one office shares an address; the same doubling. */
export const ADDRESS_LOCKOUT: LockoutPolicy = { freeFailures: 20, firstLockSeconds: 30, maxLockSeconds: 15 * 60 };

/** Failures older than this no longer count. */
export const FAILURE_MEMORY_SECONDS = 60 * 60;

/** Seconds the subject is locked after its `failures`-th failure in a row (0: not locked). */
export function lockSeconds(policy: LockoutPolicy, failures: number): number {
  if (failures < policy.freeFailures) return 0;
  const doublings = failures - policy.freeFailures;
  // Past 2^20 the ceiling has long been reached; capping the exponent keeps the number finite.
  return Math.min(policy.maxLockSeconds, policy.firstLockSeconds * 2 ** Math.min(doublings, 20));
}
