// Resolves `Authorization: Bearer <key>` to an AuthContext, caching lookups briefly so the
// ingest hot path does not hit the control plane per request. A revoked key stops working
// within the cache TTL (negative answers are kept a shorter while); an admin key change clears it.
// ttlMs 0 switches the cache off (every request looks its key up; bench/read-path-layers weighs it).
import { LRUCache } from '../cache.js';
import type { AuthContext } from './scopes.js';

export type ApiKeyResolver = (apiKey: string) => Promise<AuthContext | null>;

export class ApiKeyAuthenticator {
  private readonly cache = new LRUCache<string, { value: AuthContext | null }>({ max: 50_000 });

  constructor(
    private readonly resolve: ApiKeyResolver,
    private readonly ttlMs = 30_000,
    private readonly negativeTtlMs = 2_000,
  ) {}

  async authenticate(apiKey: string): Promise<AuthContext | null> {
    if (this.ttlMs === 0) return this.resolve(apiKey);
    const hit = this.cache.get(apiKey);
    if (hit) return hit.value;
    // The TTL runs from before the lookup, so a revocation meanwhile is not kept a full TTL longer.
    const start = performance.now();
    const value = await this.resolve(apiKey);
    this.cache.set(apiKey, { value }, { ttl: value ? this.ttlMs : this.negativeTtlMs, start });
    return value;
  }

  invalidate(): void {
    this.cache.clear();
  }
}

/** The token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}
