// Resolves `Authorization: Bearer <key>` to an AuthContext, caching lookups briefly so the
// ingest hot path does not hit the control plane per request. A revoked key stops working
// within the cache TTL.
import type { AuthContext } from './scopes.js';

export type ApiKeyResolver = (apiKey: string) => Promise<AuthContext | null>;

export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { at: number; value: AuthContext | null }>();

  constructor(
    private readonly resolve: ApiKeyResolver,
    private readonly ttlMs = 30_000,
    private readonly negativeTtlMs = 2_000,
  ) {}

  async authenticate(apiKey: string): Promise<AuthContext | null> {
    const now = Date.now();
    const hit = this.cache.get(apiKey);
    if (hit && now - hit.at < (hit.value ? this.ttlMs : this.negativeTtlMs)) return hit.value;
    const value = await this.resolve(apiKey);
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(apiKey, { at: now, value });
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
