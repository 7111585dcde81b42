// Per-key fixed-window request limits (spec "Limits"): ingestion 100/min, reads 100/15 min by
// default. In-process state: each replica enforces its own window (docs/decisions/0001-rate-limits-in-process-memory-per-replica.md).
import { RateLimitError } from '../errors.js';

export interface RateLimitTier {
  name: string;
  limit: number;
  windowMs: number;
}

export interface RateLimitOutcome {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

export class RateLimiter {
  /** Each window keeps its own length, so pruning never ends another tier's window early. */
  private readonly windows = new Map<string, { start: number; count: number; windowMs: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  take(tier: RateLimitTier, key: string): RateLimitOutcome {
    const now = this.now();
    const id = `${tier.name}:${key}`;
    let w = this.windows.get(id);
    if (!w || now - w.start >= tier.windowMs) {
      w = { start: now, count: 0, windowMs: tier.windowMs };
      this.windows.set(id, w);
    }
    const resetMs = w.start + tier.windowMs - now;
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    const allowed = w.count < tier.limit;
    if (allowed) w.count++;
    if (this.windows.size > 100_000) this.prune(now);
    return {
      allowed,
      retryAfterSeconds: resetSeconds,
      headers: {
        'RateLimit-Limit': String(tier.limit),
        'RateLimit-Remaining': String(Math.max(0, tier.limit - w.count)),
        'RateLimit-Reset': String(resetSeconds),
      },
    };
  }

  /** Throws the 429 error (with Retry-After and RateLimit-* headers) when over the limit. */
  enforce(tier: RateLimitTier, key: string, setHeader: (name: string, value: string) => void): void {
    const outcome = this.take(tier, key);
    for (const [k, v] of Object.entries(outcome.headers)) setHeader(k, v);
    if (!outcome.allowed) throw new RateLimitError(outcome.retryAfterSeconds, outcome.headers);
  }

  /** Windows held (open or not yet pruned). */
  get size(): number {
    return this.windows.size;
  }

  private prune(now: number): void {
    for (const [id, w] of this.windows) if (now - w.start >= w.windowMs) this.windows.delete(id);
  }
}
