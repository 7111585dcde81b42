// Builders for people on a live test host: invite (admin token), accept, sign in, and requests
// made with a session (its cookie, and its CSRF token on writes unless the test says otherwise).
import crypto from 'node:crypto';
import { expect } from 'vitest';
import { admin, http, type HttpResult, type TestHost } from './http.js';

export const PASSWORD = 'correct horse battery staple';

export interface Session {
  cookie: string;
  csrf: string;
  body: any;
}

export interface Person extends Session {
  email: string;
  personId: string;
}

export function uniqueEmail(name: string): string {
  return `${name}-${crypto.randomBytes(4).toString('hex')}@example.com`;
}

export function expectEnvelope(res: HttpResult, status: number, field: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.success).toBe(false);
  expect(res.body.error.details.field).toBe(field);
}

export async function createOrganization(h: TestHost, name: string): Promise<string> {
  const res = await admin(h, 'POST', '/organizations', { name });
  expect(res.status).toBe(201);
  return res.body.organization_id;
}

export async function signIn(h: TestHost, email: string, password = PASSWORD, headers: Record<string, string> = {}) {
  const res = await http(h.url, 'POST', '/v1/auth/sign-in', { json: { email, password }, headers });
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { res, cookie: setCookie.split(';')[0]!, csrf: res.body?.csrf_token as string, body: res.body };
}

/** A new person of `org` with `role`, invited by the admin token and signed in. */
export async function signedInPerson(h: TestHost, org: string, role: string): Promise<Person> {
  const email = uniqueEmail(role);
  const invitation = await admin(h, 'POST', `/organizations/${org}/invitations`, { email, role });
  expect(invitation.status, JSON.stringify(invitation.body)).toBe(201);
  const accepted = await http(h.url, 'POST', '/v1/auth/invitations/accept', { json: { token: invitation.body.token, password: PASSWORD } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  const s = await signIn(h, email);
  expect(s.res.status, JSON.stringify(s.body)).toBe(200);
  return { ...s, email, personId: accepted.body.person_id };
}

/** A request with the session's cookie, and its CSRF token on writes (`csrf: null` leaves it out). */
export function asPerson(
  h: TestHost,
  s: Session,
  method: string,
  path: string,
  opts: { json?: unknown; headers?: Record<string, string>; csrf?: string | null } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { cookie: s.cookie, ...opts.headers };
  const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
  if (csrf !== null && method !== 'GET') headers['x-csrf-token'] = csrf;
  return http(h.url, method, path, { json: opts.json, headers });
}
