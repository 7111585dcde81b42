// A person's session as the console holds it: the cookie stays with the browser (httpOnly), the
// CSRF token is asked again on each load (GET /v1/auth/session) and kept in memory only, and the
// organization picked is kept for this tab (sessionStorage), like the API key.
import { apiGet, apiSend, failureOf, type Credential } from './client.js';
import type { AcceptedInvitation, SessionView } from './types.js';

const ORGANIZATION_KEY = 'marginal.organizationId';

type SessionCredential = Extract<Credential, { kind: 'session' }>;

function storedOrganization(): string | null {
  try {
    return sessionStorage.getItem(ORGANIZATION_KEY);
  } catch {
    return null;
  }
}

/** The credential for one of the person's organizations: the one asked for, else the tab's last, else the first. */
export function sessionCredential(session: SessionView, organizationId: string | null = storedOrganization()): SessionCredential | null {
  const membership = session.organizations.find((m) => m.organization_id === organizationId) ?? session.organizations[0];
  if (!membership) return null;
  sessionStorage.setItem(ORGANIZATION_KEY, membership.organization_id);
  return {
    kind: 'session',
    csrfToken: session.csrf_token,
    organizationId: membership.organization_id,
    role: membership.role,
    email: session.email,
  };
}

/** The console pages a mailed or copied link opens, the token in the fragment so no server logs it. */
type LinkPage = 'accept-invitation' | 'reset-password';

/** The page and token of a link (`#/accept-invitation?token=…`, `#/reset-password?token=…`), or null. */
export function linkOf(hash: string): { page: LinkPage; token: string } | null {
  const match = /^#\/(accept-invitation|reset-password)\?(.*)$/.exec(hash);
  const token = match ? new URLSearchParams(match[2]).get('token') : null;
  return match && token ? { page: match[1] as LinkPage, token } : null;
}

/** The session the browser's cookie holds, or null when there is none (401). */
export async function currentSession(): Promise<SessionView | null> {
  try {
    return await apiGet<SessionView>('/auth/session', {}, null);
  } catch {
    return null;
  }
}

export function signIn(email: string, password: string): Promise<SessionView> {
  return apiSend<SessionView>('POST', '/auth/sign-in', { email, password }, null);
}

export function acceptInvitation(token: string, password: string): Promise<AcceptedInvitation> {
  return apiSend<AcceptedInvitation>('POST', '/auth/invitations/accept', { token, password }, null);
}

/** Asks for a reset link for the email; the API answers the same whether or not it has an account. */
export function requestPasswordReset(email: string): Promise<void> {
  return apiSend<void>('POST', '/auth/password-reset', { email }, null);
}

export function confirmPasswordReset(token: string, password: string): Promise<void> {
  return apiSend<void>('POST', '/auth/password-reset/confirm', { token, password }, null);
}

/** Ends this session (or every session of the person) with the client's current credential. */
export async function signOut(everywhere: boolean): Promise<void> {
  sessionStorage.removeItem(ORGANIZATION_KEY);
  await apiSend<void>('POST', everywhere ? '/auth/sign-out-everywhere' : '/auth/sign-out');
}

/**
 * Where "Sign in with SSO" goes: the server's start URL for the email's organization (found by its
 * domain). It is asked first without following the redirect, so a refusal (no organization with
 * SSO for that domain) is shown here as the API's message instead of a page of JSON.
 */
export async function ssoStartUrl(email: string): Promise<string> {
  const url = `/v1/auth/sso/start?${new URLSearchParams({ email })}`;
  const res = await fetch(url, { redirect: 'manual', headers: { Accept: 'application/json' } });
  if (res.type !== 'opaqueredirect') throw await failureOf(res);
  return url;
}
