// Tenants for integration tests, made through the service's admin API (/v1/admin): an
// organization, a usage:write key with its signing secret, a key with every read scope, credits
// and rate cards. Plus waiting until the processor has put events in the lake.
import { inject } from 'vitest';

export interface RateCard {
  model_slug: string;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million?: string | null;
  cache_read_cost_per_million?: string | null;
  reasoning_cost_per_million?: string | null;
  effective_from?: string;
}

export interface Tenant {
  url: string;
  organizationId: string;
  apiKey: string;
  signingSecret: string;
  readKey: string;
}

/** Where the service runs: the test run's (injected by globalSetup) unless given. */
export interface ServiceAddress {
  url: string;
  adminToken: string;
}

const injected = (): ServiceAddress => ({ url: inject('marginalUrl'), adminToken: inject('adminToken') });

export async function admin<T = any>(method: string, path: string, body?: unknown, at: ServiceAddress = injected()): Promise<T> {
  const res = await fetch(`${at.url}/v1/admin${path}`, {
    method,
    headers: { Authorization: `Bearer ${at.adminToken}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

export async function createTenant(
  spec: { credits?: number; rateCards?: RateCard[] } = {},
  at: ServiceAddress = injected(),
): Promise<Tenant> {
  const org = await admin<{ organization_id: string }>('POST', '/organizations', { name: 'sdk-test' }, at);
  const base = `/organizations/${org.organization_id}`;
  const writer = await admin<{ api_key: string; signing_secret: string }>('POST', `${base}/api-keys`, { scopes: ['usage:write'] }, at);
  const reader = await admin<{ api_key: string }>(
    'POST',
    `${base}/api-keys`,
    { scopes: ['usage:read', 'costs:read', 'dimensions:read', 'revenue:read'] },
    at,
  );
  if ((spec.credits ?? 100_000) > 0) await admin('POST', `${base}/credits`, { amount: spec.credits ?? 100_000 }, at);
  for (const card of spec.rateCards ?? [])
    await admin('POST', `${base}/rate-cards`, { effective_from: '2020-01-01T00:00:00Z', ...card }, at);
  return {
    url: at.url,
    organizationId: org.organization_id,
    apiKey: writer.api_key,
    signingSecret: writer.signing_secret,
    readKey: reader.api_key,
  };
}

export async function creditBalance(t: Tenant, at: ServiceAddress = injected()): Promise<number> {
  const view = await admin<{ balance: number | string }>('GET', `/organizations/${t.organizationId}/credits`, undefined, at);
  return Number(view.balance);
}

/** Polls `probe` until it returns true (or throws after `timeoutMs`). */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A window around now, as the read endpoints take it. */
export function aroundNow(): { start_date: string; end_date: string } {
  const now = Date.now();
  return { start_date: new Date(now - 86_400_000).toISOString(), end_date: new Date(now + 86_400_000).toISOString() };
}
