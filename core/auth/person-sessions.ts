// What the one authentication module needs from people's sessions, without core naming the
// capability that keeps them (people/ fills the `personSessions` slot at start): the session
// cookie's name, how to read it, and what a session resolves to. A session is looked up on every
// request (no cache), so signing out ends it at once on every replica.
import type { IncomingHttpHeaders } from 'node:http';

export const SESSION_COOKIE = 'marginal_session';

interface SessionMembership {
  organizationId: string;
  role: string;
}

export interface ResolvedSession {
  personId: string;
  sessionId: string;
  /** What X-CSRF-Token must carry on a state-changing request with this session. */
  csrfToken: string;
  memberships: SessionMembership[];
}

export interface PersonSessions {
  /** The live session the cookie's token names, or null (unknown, expired or signed out). */
  resolve(token: string): Promise<ResolvedSession | null>;
}

declare module '../app-context.js' {
  interface AppServices {
    /** People's sessions (people/): filled by the api's wiring. */
    personSessions: PersonSessions;
  }
}

/** The session token of the request's Cookie header, or null. */
export function sessionCookie(headers: IncomingHttpHeaders): string | null {
  const header = headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,200}$/.test(value) ? value : null;
    }
  }
  return null;
}
