// tsoa's authentication module. Security schemes:
//   api_key — Bearer API key; the listed scope is required (403 without); then the per-key
//             rate limit of the route's tier (ingestion for usage:write, reads otherwise).
//   admin   — Bearer admin token (MARGINAL_ADMIN_TOKEN), compared in constant time.
import crypto from 'node:crypto';
import type { Request } from 'express';
import { appContext, type AppContext } from '../app-context.js';
import { bearerToken } from '../auth/api-key-authenticator.js';
import type { AuthContext } from '../auth/scopes.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import type { RateLimitTier } from './rate-limit.js';

export async function expressAuthentication(request: Request, securityName: string, scopes: string[] = []): Promise<unknown> {
  const ctx = appContext(request);
  const token = bearerToken(request.headers.authorization);
  if (securityName === 'admin') {
    if (!token || !constantTimeEqual(token, ctx.adminToken)) throw new UnauthorizedError('Missing or invalid admin token');
    return { admin: true };
  }
  if (securityName !== 'api_key') throw new Error(`unknown security scheme ${securityName}`);
  return authenticateApiKey(ctx, token, scopes, (name, value) => request.res?.setHeader(name, value));
}

/**
 * The api_key scheme: the key (401), each scope (403), then the route tier's rate limit (429),
 * whose RateLimit-* headers go to `setHeader` whether or not the request is allowed. Also run
 * by the ingest fast path (ingest/fast-path.ts), so both answer alike.
 */
export async function authenticateApiKey(
  ctx: AppContext,
  token: string | null,
  scopes: string[],
  setHeader: (name: string, value: string) => void,
): Promise<AuthContext> {
  if (!token) throw new UnauthorizedError('Missing API key: send Authorization: Bearer <API_KEY>');
  const auth = await ctx.auth.authenticate(token);
  if (!auth) throw new UnauthorizedError('Invalid API key');
  for (const scope of scopes) {
    if (!(auth.scopes as string[]).includes(scope)) throw new ForbiddenError(scope);
  }
  const tier: RateLimitTier = scopes.includes('usage:write')
    ? { name: 'ingest', limit: ctx.config.rateLimitIngestPerMinute, windowMs: 60_000 }
    : { name: 'read', limit: ctx.config.rateLimitReadPer15Minutes, windowMs: 15 * 60_000 };
  ctx.rateLimiter.enforce(tier, auth.keyId, setHeader);
  return auth;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}

/** The caller's AuthContext, set by expressAuthentication for api_key routes. */
export function authOf(request: Request): AuthContext {
  const user = (request as Request & { user?: AuthContext }).user;
  if (!user?.organizationId) throw new UnauthorizedError();
  return user;
}
