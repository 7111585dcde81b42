// The console's only way to the server. It speaks for one credential at a time: an API key typed
// into this tab (Authorization: Bearer), or a person's session (the httpOnly cookie the browser
// sends by itself, X-Organization-Id for the organization picked, X-CSRF-Token on every write).
// Failures become ApiError with the spec's envelope fields (code, message, the field or the scope).
import type { Role } from './types.js';

export type Credential =
  | { kind: 'api_key'; key: string }
  | { kind: 'session'; csrfToken: string; organizationId: string; role: Role; email: string };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requiredScope: string | null = null,
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | undefined | null>;

let current: Credential | null = null;

/** Set by the shell when someone signs in, switches organization or signs out. */
export function setCredential(credential: Credential | null): void {
  current = credential;
}

export function currentCredential(): Credential | null {
  return current;
}

/** What a cached answer belongs to: answers of one organization are never shown for another. */
export function credentialScope(): string {
  if (!current) return '';
  return current.kind === 'api_key' ? 'key' : current.organizationId;
}

/** An admin route of the organization a person acts in (owners and admins call them with their session). */
export function adminPath(resource: string): string {
  return `/admin/organizations/${current?.kind === 'session' ? current.organizationId : ''}/${resource}`;
}

function apiUrl(path: string, query: Query = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return `/v1${path}${s ? `?${s}` : ''}`;
}

function credentialHeaders(credential: Credential | null, method: string): Record<string, string> {
  if (!credential) return {};
  if (credential.kind === 'api_key') return { Authorization: `Bearer ${credential.key}` };
  return {
    'X-Organization-Id': credential.organizationId,
    ...(method === 'GET' ? {} : { 'X-CSRF-Token': credential.csrfToken }),
  };
}

async function request<T>(method: string, url: string, body: unknown, credential: Credential | null): Promise<T> {
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: {
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...credentialHeaders(credential, method),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await failureOf(res);
  return (res.status === 204 ? null : await res.json()) as T;
}

interface EnvelopeError {
  code?: string;
  message?: string;
  details?: { requiredScope?: string; field?: string };
}

/** A failed answer as an ApiError, from the spec's envelope when it has one. */
export async function failureOf(res: Response): Promise<ApiError> {
  const answer = (await res.json().catch(() => null)) as { error?: EnvelopeError } | null;
  const err = answer?.error;
  return new ApiError(
    res.status,
    err?.code ?? 'HTTP_ERROR',
    err?.message ?? `HTTP ${res.status}`,
    err?.details?.requiredScope ?? null,
    err?.details?.field ?? null,
  );
}

export function apiGet<T>(path: string, query: Query = {}, credential: Credential | null = current): Promise<T> {
  return request<T>('GET', apiUrl(path, query), undefined, credential);
}

/**
 * A state-changing request (POST, PATCH, PUT, DELETE) with a JSON body. A sign-in in another tab
 * replaces the browser's session and with it the CSRF token: refused for that, the token is asked
 * again once, if the session is still the same person's.
 */
export async function apiSend<T>(method: string, path: string, body?: unknown, credential: Credential | null = current): Promise<T> {
  try {
    return await request<T>(method, apiUrl(path), body, credential);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'CSRF_TOKEN_INVALID' && credential?.kind === 'session')) throw err;
    const session = await request<{ email: string; csrf_token: string }>('GET', apiUrl('/auth/session'), undefined, null);
    if (session.email !== credential.email) throw err;
    const renewed = { ...credential, csrfToken: session.csrf_token };
    if (current === credential) current = renewed;
    return request<T>(method, apiUrl(path), body, renewed);
  }
}
