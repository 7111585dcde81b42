// The whole pipeline in this process for read-API tests: ingest + processor + api on one host
// (127.0.0.1:0, temp DATA_DIR with the lake under it, PGlite), the real broker and schema registry
// from globalSetup. Tenants are made through the admin API; events go in through the real signed
// HTTP ingest (batch endpoint) and tests wait until the lake holds them. Builders keep each test
// to what matters: llmEvent/metricEvent fill valid defaults, TenantSpec names rates and dimensions.
import { inject } from 'vitest';
import { apiComponent, type ApiComponentOptions } from '../../api/component.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import type { StartComponent } from '../../core/process-host.js';
import { createIngest } from '../../ingest/component.js';
import { startProcessor } from '../../processor/component.js';
import { admin, http, startTestHost, type HttpResult, type TestHost } from './http.js';
import { openFreshControlDb } from './control-db.js';
import { signedPost, type Signer } from './ingest-harness.js';
import { duckLakeEnv, markDuckLake, testDuckLake } from './test-lake.js';

export interface PipelineOptions {
  /** The api's clock (time windows of /cost-data/summary). Default: wall clock. */
  now?: () => Date;
  /** Run the processor (default true); without it events stay `pending` (in the ledger only). */
  processor?: boolean;
  /** Run ingest (default true); without ingest and processor the host needs no Kafka. */
  ingest?: boolean;
  /** Extra environment (rate limits, flush timing). */
  env?: Record<string, string>;
  api?: Omit<ApiComponentOptions, 'now'>;
}

export interface Pipeline {
  host: TestHost;
  url: string;
  lakeDir: string;
  stop(): Promise<void>;
}

export async function startPipeline(opts: PipelineOptions = {}): Promise<Pipeline> {
  const components: StartComponent[] = [];
  if (opts.ingest !== false) components.push(createIngest({ settingsTtlMs: 100, sweeper: { intervalMs: 60_000 } }));
  if (opts.processor !== false) components.push(startProcessor);
  components.push(apiComponent({ ...opts.api, now: opts.now }));
  const lake = await testHostLake();
  const host = await startTestHost({
    components,
    infra: { kafkaBrokers: inject('kafkaBrokers').split(','), schemaRegistryUrl: inject('schemaRegistryUrl') },
    env: {
      // Read tests make hundreds of GETs with one key; the rate-limit test sets its own limit.
      RATE_LIMIT_READ_PER_15_MINUTES: '100000',
      RATE_LIMIT_INGEST_PER_MINUTE: '100000',
      PROCESSOR_FLUSH_MAX_DELAY_MS: '200',
      ...lake.env,
      ...opts.env,
    },
  });
  return { host, url: host.url, lakeDir: lake.mark(host.dataDir), stop: () => host.stop() };
}

/**
 * The lake of a test host whose lake is its DATA_DIR/lake: the open lake, its catalog in a fresh
 * PostgreSQL database (`env` for the host). `mark(dataDir)` records it for the test's readers once
 * the host has its folder, and gives the lake's folder.
 */
export async function testHostLake(): Promise<{
  env: Record<string, string>;
  mark(dataDir: string): string;
}> {
  const catalog = await openFreshControlDb('postgres', { migrate: false });
  await catalog.db.close();
  return {
    env: { LAKE_CATALOG_URL: catalog.url! },
    mark(dataDir) {
      const lakeDir = `${dataDir}/lake`;
      markDuckLake(lakeDir, duckLakeEnv(lakeDir, catalog.url!));
      return lakeDir;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Tenants

interface RateCardSpec {
  model_slug: string;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million?: string | null;
  cache_read_cost_per_million?: string | null;
  reasoning_cost_per_million?: string | null;
  cache_creation_1h_cost_per_million?: string | null;
  service_tier?: string;
  tiers?: Array<Record<string, string | number | null>>;
  effective_from?: string;
}

interface UnitRateSpec {
  model?: string;
  provider?: string;
  metric: string;
  unit: string;
  cost_per_unit: string;
}

interface DimensionSpec {
  key: string;
  name?: string;
  value_type: 'string' | 'number';
  is_required?: boolean;
}

export interface TenantSpec {
  name?: string;
  /** Event credits (default 100 000). */
  credits?: number;
  rateCards?: RateCardSpec[];
  unitRates?: UnitRateSpec[];
  dimensions?: DimensionSpec[];
  /** Start an active subscription (default true). */
  subscription?: boolean;
}

export interface Tenant {
  organizationId: string;
  /** usage:write key with its signing secret. */
  writer: Signer;
  /** A key with every read scope. */
  readKey: string;
  /** The read key's owner (GET /usage/summary user_id). */
  ownerUserId: string;
  /** The active subscription at creation, or null. */
  subscriptionId: string | null;
}

function ok<T>(res: HttpResult<T>, what: string): T {
  if (res.status >= 300) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** An organization with keys, credits, rates, dimensions and a subscription, all via /v1/admin. */
export async function createTenant(p: Pipeline, spec: TenantSpec = {}): Promise<Tenant> {
  const h = p.host;
  const org = ok(
    await admin<{ organization_id: string }>(h, 'POST', '/organizations', { name: spec.name ?? 'tenant' }),
    'create organization',
  );
  const id = org.organization_id;
  const base = `/organizations/${id}`;
  const writer = ok(await admin(h, 'POST', `${base}/api-keys`, { scopes: ['usage:write'] }), 'write key');
  const reader = ok(
    await admin(h, 'POST', `${base}/api-keys`, { scopes: ['usage:read', 'costs:read', 'dimensions:read', 'revenue:read'] }),
    'read key',
  );
  ok(await admin(h, 'POST', `${base}/credits`, { amount: spec.credits ?? 100_000 }), 'credits');
  for (const card of spec.rateCards ?? []) ok(await admin(h, 'POST', `${base}/rate-cards`, card), `rate card ${card.model_slug}`);
  for (const rate of spec.unitRates ?? []) ok(await admin(h, 'POST', `${base}/unit-rates`, rate), `unit rate ${rate.metric}`);
  for (const dim of spec.dimensions ?? []) {
    ok(await admin(h, 'POST', `${base}/dimensions`, { name: dim.name ?? dim.key, ...dim }), `dimension ${dim.key}`);
  }
  let subscriptionId: string | null = null;
  if (spec.subscription !== false) {
    subscriptionId = ok(await admin<{ subscription_id: string }>(h, 'POST', `${base}/subscriptions`, {}), 'subscription').subscription_id;
  }
  return {
    organizationId: id,
    writer: { apiKey: writer.api_key, signingSecret: writer.signing_secret },
    readKey: reader.api_key,
    ownerUserId: reader.owner_user_id,
    subscriptionId,
  };
}

/** Another key of the tenant with exactly these scopes (for 403 tests). */
export async function issueKey(p: Pipeline, t: Tenant, scopes: string[]): Promise<string> {
  return ok(await admin(p.host, 'POST', `/organizations/${t.organizationId}/api-keys`, { scopes }), 'key').api_key;
}

/** Starts a new active subscription (the previous one is canceled); returns its id. */
export async function switchSubscription(p: Pipeline, t: Tenant, plan = 'next'): Promise<string> {
  const res = await admin<{ subscription_id: string }>(p.host, 'POST', `/organizations/${t.organizationId}/subscriptions`, { plan });
  return ok(res, 'subscription').subscription_id;
}

// ---------------------------------------------------------------------------------------------
// Events

/** An ingestion request body (the spec's fields; see ingest/ingest.types.ts). */
export type EventBody = Record<string, unknown> & { idempotency_key: string };

/** An LLM call: model and token counts, at `timestamp`. */
export function llmEvent(key: string, fields: Record<string, unknown> = {}): EventBody {
  return { idempotency_key: key, model: 'gpt-4o', input_tokens: 100, output_tokens: 10, ...fields };
}

/** A metric event (priced per unit): metric, unit and quantity. */
export function metricEvent(key: string, fields: Record<string, unknown> = {}): EventBody {
  return { idempotency_key: key, metric: 'image_generation', unit: 'image', quantity: 1, provider: 'imagegen', ...fields };
}

export interface IngestResult {
  event_id: string;
  status: 'accepted' | 'accepted_flagged';
  flag_reason?: string;
}

/** Sends events through the signed batch endpoint (≤ 1000 per request); throws unless all are accepted. */
export async function ingest(p: Pipeline, t: Tenant, events: readonly EventBody[]): Promise<IngestResult[]> {
  const out: IngestResult[] = [];
  for (let i = 0; i < events.length; i += 1000) {
    const chunk = events.slice(i, i + 1000);
    const res = await signedPost<{ results: Array<IngestResult | { error: unknown }> }>(p.url, t.writer, '/v1/usage-events/batch', {
      events: chunk,
    });
    const body = ok(res, 'ingest batch');
    body.results.forEach((r, j) => {
      if ('error' in r) throw new Error(`event ${chunk[j]!.idempotency_key} rejected: ${JSON.stringify(r.error)}`);
      out.push(r);
    });
  }
  return out;
}

/** Rows the lake holds for the organization (events table, every status). */
export async function lakeEventCount(p: Pipeline, organizationId: string): Promise<number> {
  const duckLake = testDuckLake(p.lakeDir);
  if (!duckLake) throw new Error(`${p.lakeDir} holds no test DuckLake`);
  const conn = await (await duckLake).instance.connect();
  try {
    const counted = await conn.runAndReadAll(
      `SELECT count(*) FROM lake.events WHERE organization_id = ${sqlStringLiteral(organizationId)}`,
    );
    return Number(counted.getRows()[0]![0]);
  } finally {
    conn.closeSync();
  }
}

/** Waits until the lake holds `count` events of the organization. */
export async function waitForLake(p: Pipeline, organizationId: string, count: number, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await lakeEventCount(p, organizationId);
    if (n >= count) return;
    if (Date.now() > deadline) throw new Error(`lake holds ${n} of ${count} events of ${organizationId} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

/** GET /v1<path> with a bearer key; undefined query values are left out. */
export function apiGet<T = any>(
  p: Pipeline,
  key: string,
  path: string,
  query: Record<string, string | number | undefined> = {},
): Promise<HttpResult<T>> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
  const s = qs.toString();
  return http<T>(p.url, 'GET', `/v1${path}${s ? `?${s}` : ''}`, { token: key });
}
