// tsoa's authentication module. Security schemes:
//   api_key — Bearer API key, or a person's session cookie (core/auth/person-sessions.ts); the
//             listed scope is required (403 without; a person's scopes come from their role);
//             then the rate limit: per key by the route's tier (ingestion for usage:write, reads
//             otherwise), per person for sessions.
//   session — a person's session cookie only (routes for people: sign-out, members, audit).
//   admin   — Bearer admin token (MARGINAL_ADMIN_TOKEN), compared in constant time. A route that
//             lists `organization:admin` also serves, with no bearer token, the session of an owner
//             or admin of the organization its path names (and no other organization's).
// A session on a state-changing request must carry its CSRF token in X-CSRF-Token.
import crypto from 'node:crypto';
import type { Request } from 'express';
import { appContext, type AppContext } from '../app-context.js';
import { bearerToken } from '../auth/api-key-authenticator.js';
import { sessionCookie, type ResolvedSession } from '../auth/person-sessions.js';
import { isRole, scopesOfRole } from '../auth/roles.js';
import type { AuthContext } from '../auth/scopes.js';
import { AccessDeniedError, ForbiddenError, UnauthorizedError, ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { RateLimitTier } from './rate-limit.js';

export async function expressAuthentication(request: Request, securityName: string, scopes: string[] = []): Promise<unknown> {
  const ctx = appContext(request);
  const token = bearerToken(request.headers.authorization);
  const cookie = sessionCookie(request.headers);
  if (securityName === 'admin') {
    if (!token && cookie && scopes.includes('organization:admin')) {
      return authenticateSession(ctx, request, cookie, scopes, true, (name, value) => request.res?.setHeader(name, value));
    }
    if (!token && cookie) throw new AccessDeniedError('Authorization', 'Admin routes take the instance admin token, not a session');
    if (!token || !constantTimeEqual(token, ctx.adminToken)) throw new UnauthorizedError('Missing or invalid admin token');
    return { admin: true };
  }
  const setHeader = (name: string, value: string) => request.res?.setHeader(name, value);
  if (securityName === 'session' || (securityName === 'api_key' && !token && cookie)) {
    // Every api_key route answers for one organization, so a session there must name one.
    return authenticateSession(ctx, request, cookie, scopes, securityName === 'api_key', setHeader);
  }
  if (securityName !== 'api_key') throw new Error(`unknown security scheme ${securityName}`);
  return authenticateApiKey(ctx, token, scopes, setHeader);
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
  requireScopes(auth, scopes, 'API key');
  const tier: RateLimitTier = scopes.includes('usage:write')
    ? { name: 'ingest', limit: ctx.config.rateLimitIngestPerMinute, windowMs: 60_000 }
    : { name: 'read', limit: ctx.config.rateLimitReadPer15Minutes, windowMs: 15 * 60_000 };
  ctx.rateLimiter.enforce(tier, auth.keyId, setHeader);
  return auth;
}

/** The one scope check, for keys and people alike. */
function requireScopes(auth: AuthContext, scopes: string[], caller: string): void {
  for (const scope of scopes) {
    if (!(auth.scopes as string[]).includes(scope)) throw new ForbiddenError(scope, caller);
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A person's session: the session (401), its CSRF token on state-changing requests (403), the
 * organization (X-Organization-Id, or the person's only one; 403 when not theirs), the role's
 * scopes (403), then the per-person rate limit (429).
 */
async function authenticateSession(
  ctx: AppContext,
  request: Request,
  token: string | null,
  scopes: string[],
  needsOrganization: boolean,
  setHeader: (name: string, value: string) => void,
): Promise<AuthContext> {
  const sessions = ctx.services.personSessions;
  const session = token && sessions ? await sessions.resolve(token) : null;
  if (!session) throw new UnauthorizedError('Not signed in (no session, or it expired or was signed out)', 'marginal_session');
  if (!SAFE_METHODS.has(request.method)) {
    const sent = request.headers['x-csrf-token'];
    if (typeof sent !== 'string' || !constantTimeEqual(sent, session.csrfToken)) {
      throw new AccessDeniedError('X-CSRF-Token', 'X-CSRF-Token is missing or does not match the session', 'CSRF_TOKEN_INVALID');
    }
  }
  const membership = pickMembership(session, request.headers['x-organization-id'], request.params?.organizationId);
  const auth: AuthContext = {
    organizationId: membership?.organizationId ?? '',
    keyId: session.sessionId,
    ownerUserId: session.personId,
    scopes: membership && isRole(membership.role) ? scopesOfRole(membership.role) : [],
    signingSecret: '',
    person: { personId: session.personId, sessionId: session.sessionId, role: membership?.role ?? '' },
  };
  if ((needsOrganization || scopes.length > 0) && !membership) throw noOrganization(session);
  requireScopes(auth, scopes, `Role ${membership?.role ?? '(none)'}`);
  const windowMs = 15 * 60_000;
  ctx.rateLimiter.enforce({ name: 'person', limit: ctx.config.rateLimitSessionPer15Minutes, windowMs }, session.personId, setHeader);
  return auth;
}

/**
 * X-Organization-Id when sent (it must be one of the person's), else the organization the route's
 * path names, else the person's only organization. A path's organization is the one the route acts
 * on, so the header may not name another.
 */
function pickMembership(session: ResolvedSession, header: string | string[] | undefined, pathOrganization: string | undefined) {
  let found: ResolvedSession['memberships'][number] | undefined;
  if (typeof header === 'string' && header !== '') {
    if (!isUuid(header)) throw new ValidationError('X-Organization-Id', 'must be a UUID');
    found = session.memberships.find((m) => m.organizationId === header.toLowerCase());
    if (!found) throw new AccessDeniedError('X-Organization-Id', `You are not a member of organization ${header}`);
  }
  if (pathOrganization !== undefined) {
    const inPath = session.memberships.find((m) => m.organizationId === pathOrganization.toLowerCase());
    if (!inPath) throw new AccessDeniedError('organizationId', `You are not a member of organization ${pathOrganization}`);
    if (found && found !== inPath) throw new AccessDeniedError('X-Organization-Id', 'names another organization than the path');
    return inPath;
  }
  return found ?? (session.memberships.length === 1 ? session.memberships[0]! : null);
}

function noOrganization(session: ResolvedSession): Error {
  return session.memberships.length === 0
    ? new AccessDeniedError('X-Organization-Id', 'You are not a member of any organization')
    : new ValidationError('X-Organization-Id', 'is required: you belong to several organizations');
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

/** The signed-in person of a `session` route (their organization may be unset: see personAuthOf's callers). */
export function personAuthOf(request: Request): AuthContext & { person: NonNullable<AuthContext['person']> } {
  const user = (request as Request & { user?: AuthContext }).user;
  if (!user?.person) throw new UnauthorizedError('Not signed in');
  return user as AuthContext & { person: NonNullable<AuthContext['person']> };
}
