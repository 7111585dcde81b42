// The console's only way to the server: GET /v1/… of the public read API with the tab's API key.
// Failures become ApiError with the spec's envelope fields (code, message, the field or the scope).
import { storedApiKey } from './api-key.js';

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

function apiUrl(path: string, query: Query = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return `/v1${path}${s ? `?${s}` : ''}`;
}

export async function apiGet<T>(path: string, query: Query = {}, key: string | null = storedApiKey()): Promise<T> {
  const res = await fetch(apiUrl(path, query), { headers: { Authorization: `Bearer ${key ?? ''}`, Accept: 'application/json' } });
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    const err = body?.error;
    throw new ApiError(
      res.status,
      err?.code ?? 'HTTP_ERROR',
      err?.message ?? `HTTP ${res.status}`,
      err?.details?.requiredScope ?? null,
      err?.details?.field ?? null,
    );
  }
  return body as T;
}
