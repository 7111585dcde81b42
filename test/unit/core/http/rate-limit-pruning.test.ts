// The rate limiter's pruning keeps each tier's own window (issue 16): past 100,000 windows, an
// ingest request (1-minute tier) must not drop read windows (15-minute tier) that are still open.
import { describe, expect, it } from 'vitest';
import { RateLimiter, type RateLimitTier } from '../../../../core/http/rate-limit.js';

const READ: RateLimitTier = { name: 'read', limit: 3, windowMs: 15 * 60_000 };
const INGEST: RateLimitTier = { name: 'ingest', limit: 1000, windowMs: 60_000 };

describe('RateLimiter pruning', () => {
  it('an ingest request past 100,000 windows keeps a read window that is 2 minutes old', () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    for (let i = 0; i < READ.limit; i++) expect(limiter.take(READ, 'reader').allowed).toBe(true);
    expect(limiter.take(READ, 'reader').allowed).toBe(false);
    // 100,000 other keys' ingest windows, then two minutes later one more ingest request prunes.
    for (let i = 0; i < 100_000; i++) limiter.take(INGEST, `k${i}`);
    now = 2 * 60_000;
    limiter.take(INGEST, 'trigger');
    // The reader's 15-minute window is still open: still refused, with the reset 13 minutes away.
    const after = limiter.take(READ, 'reader');
    expect(after.allowed).toBe(false);
    expect(after.headers['RateLimit-Reset']).toBe(String(13 * 60));
  });

  it('pruning still drops windows that have ended, of every tier', () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    limiter.take(READ, 'old-reader');
    for (let i = 0; i < 100_001; i++) limiter.take(INGEST, `k${i}`);
    now = 16 * 60_000;
    limiter.take(INGEST, 'trigger');
    expect(limiter.size).toBe(1);
  });
});
