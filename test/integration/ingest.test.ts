// Ingestion end to end (spec "POST /usage-events", "Authentication", "Errors", "Limits"; docs/design.md
// "Ingest"): a live host with ingest + api on PGlite, the real broker and registry. Every accepted
// key must appear exactly once on the usage-events topic, decoded through the registry.
import { v5 as uuidv5 } from 'uuid';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApi } from '../../api/component.js';
import { getCreditBalance, grantCredits } from '../../core/control/credits.js';
import { createDimension } from '../../core/control/dimensions.js';
import { createRateCard } from '../../pricing/rate-cards.store.js';
import { createSubscription, listSubscriptions, setSubscriptionStatus } from '../../core/control/subscriptions.js';
import { createIngest } from '../../ingest/component.js';
import { createTestTenant, type TestTenant } from '../support/control-db.js';
import { http, startTestHost, type TestHost } from '../support/http.js';
import { signedPost, UsageEventTopicReader } from '../support/ingest-harness.js';

const brokers = inject('kafkaBrokers').split(',');
const registryUrl = inject('schemaRegistryUrl');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let host: TestHost;
let reader: UsageEventTopicReader;

// Independent of core/ids: UUIDv5 straight from the uuid package.
const expectedEventId = (org: string, key: string): string => uuidv5(key, org);
const expectedEndUserId = (org: string, user: string): string => uuidv5(`end-user:${user}`, org);

const llm = (key: string, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  idempotency_key: key,
  model: 'gpt-4o-mini',
  input_tokens: 1200,
  output_tokens: 300,
  ...over,
});

const post = (t: TestTenant, body: unknown, opts = {}) => signedPost(host.url, t, '/v1/usage-events', body, opts);
const postBatch = (t: TestTenant, body: unknown, opts = {}) => signedPost(host.url, t, '/v1/usage-events/batch', body, opts);

async function balance(t: TestTenant): Promise<number> {
  return (await getCreditBalance(host.db, t.organizationId))!;
}

async function ledger(t: TestTenant): Promise<Array<{ idempotency_key: string; state: string; event_id: string }>> {
  return host.db.query(
    'SELECT idempotency_key, state, event_id FROM ingest_ledger_states WHERE organization_id = $1 ORDER BY idempotency_key',
    [t.organizationId],
  );
}

async function topicRecords(t: TestTenant) {
  await reader.catchUp();
  return reader.recordsOf(t.organizationId);
}

function expectRateLimitHeaders(headers: Headers, limit: string): void {
  expect(headers.get('ratelimit-limit')).toBe(limit);
  expect(Number(headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  expect(Number(headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
}

beforeAll(async () => {
  host = await startTestHost({
    components: [createIngest({ settingsTtlMs: 100, sweeper: { intervalMs: 60_000 } }), startApi],
    infra: { kafkaBrokers: brokers, schemaRegistryUrl: registryUrl },
    env: { RATE_LIMIT_INGEST_PER_MINUTE: '10000' },
  });
  reader = await UsageEventTopicReader.start(brokers, registryUrl);
});

afterAll(async () => {
  await reader?.stop();
  await host?.stop();
});

describe('POST /v1/usage-events: accepted events', () => {
  it('202 with the deterministic event_id, one credit spent, exactly one Avro record with every field', async () => {
    const t = await createTestTenant(host.db, { credits: 10 });
    const [sub] = await listSubscriptions(host.db, t.organizationId);
    const before = Date.now();
    const body = llm('evt-1', {
      user_id: 'alice',
      timestamp: new Date(before - 60_000).toISOString(),
      cache_read_input_tokens: 100,
      session_id: 'sess-1',
      span_id: 'span-1',
      span_name: 'answer',
      span_kind: 'llm',
      started_at: new Date(before - 61_000).toISOString(),
      workflow_id: 'wf-top',
      metadata: { team: 'search', agent_id: 'agent-from-meta', workflow_id: 'wf-meta', depth: 2 },
    });
    const res = await post(t, body);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      event_id: expectedEventId(t.organizationId, 'evt-1'),
      status: 'accepted',
      message: 'Event queued for cost calculation',
    });
    expectRateLimitHeaders(res.headers, '10000');
    expect(res.headers.get('x-correlation-id')).toBeTruthy();

    expect(await balance(t)).toBe(9);
    expect(await ledger(t)).toEqual([
      { idempotency_key: 'evt-1', state: 'published', event_id: expectedEventId(t.organizationId, 'evt-1') },
    ]);
    const users = await host.db.query<{ id: string; external_id: string }>(
      'SELECT id, external_id FROM end_users WHERE organization_id = $1',
      [t.organizationId],
    );
    expect(users).toEqual([{ id: expectedEndUserId(t.organizationId, 'alice'), external_id: 'alice' }]);

    const records = await topicRecords(t);
    expect(records).toHaveLength(1);
    expect(records[0]!.key).toBe(t.organizationId);
    const e = records[0]!.event;
    expect(e.received_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(e.received_at.getTime()).toBeLessThanOrEqual(Date.now());
    expect({ ...e, received_at: null }).toEqual({
      event_id: expectedEventId(t.organizationId, 'evt-1'),
      organization_id: t.organizationId,
      idempotency_key: 'evt-1',
      api_key_id: t.keyId,
      owner_user_id: t.ownerUserId,
      subscription_id: sub!.id,
      received_at: null,
      timestamp: new Date(body.timestamp as string),
      timestamp_provided: true,
      user_id: 'alice',
      end_user_id: expectedEndUserId(t.organizationId, 'alice'),
      model: 'gpt-4o-mini',
      provider: null,
      metric: null,
      unit: null,
      quantity: null,
      input_tokens: 1200,
      output_tokens: 300,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: 100,
      reasoning_tokens: null,
      cost_override: null,
      session_id: 'sess-1',
      span_id: 'span-1',
      parent_span_id: null,
      span_name: 'answer',
      span_kind: 'llm',
      started_at: new Date(body.started_at as string),
      agent_id: 'agent-from-meta',
      workflow_id: 'wf-top',
      feature: null,
      metadata: JSON.stringify(body.metadata),
      flag_reason: null,
      service_tier: null,
      cache_creation_1h_input_tokens: null,
    });
  });

  it('without a timestamp the event time is the time received; a metric event keeps its unit', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const res = await post(t, {
      idempotency_key: 'img-1',
      metric: 'image_generation',
      unit: 'image',
      quantity: 3,
      provider: 'openai',
      cost_override: 0.12,
    });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('accepted');
    const [r] = await topicRecords(t);
    expect(r!.event).toMatchObject({
      metric: 'image_generation',
      unit: 'image',
      quantity: 3,
      provider: 'openai',
      cost_override: '0.12',
      timestamp_provided: false,
    });
    expect(r!.event.timestamp.getTime()).toBe(r!.event.received_at.getTime());
  });

  it('a retry with the same key answers 202 with the same event_id and spends nothing', async () => {
    const t = await createTestTenant(host.db, { credits: 10 });
    const first = await post(t, llm('retry-me'));
    expect(first.status).toBe(202);
    // The retry may differ in content; the stored event wins.
    const again = await post(t, llm('retry-me', { input_tokens: 1 }));
    expect(again.status).toBe(202);
    expect(again.body).toEqual({
      event_id: expectedEventId(t.organizationId, 'retry-me'),
      status: 'accepted',
      message: 'Event already accepted with this idempotency_key; it was not queued or charged again',
    });
    expect(await balance(t)).toBe(9);
    const records = await topicRecords(t);
    expect(records.map((r) => [r.event.idempotency_key, r.event.input_tokens])).toEqual([['retry-me', 1200]]);
  });

  it('50 concurrent identical requests spend exactly one credit and produce exactly one record', async () => {
    const t = await createTestTenant(host.db, { credits: 100 });
    const results = await Promise.all(Array.from({ length: 50 }, () => post(t, llm('storm'))));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(202));
    expect(new Set(results.map((r) => r.body.event_id))).toEqual(new Set([expectedEventId(t.organizationId, 'storm')]));
    expect(results.filter((r) => r.body.message === 'Event queued for cost calculation')).toHaveLength(1);
    expect(await balance(t)).toBe(99);
    expect(await topicRecords(t)).toHaveLength(1);
  });

  it('the same key in two organizations is two events', async () => {
    const a = await createTestTenant(host.db, { credits: 1 });
    const b = await createTestTenant(host.db, { credits: 1 });
    const [ra, rb] = await Promise.all([post(a, llm('shared')), post(b, llm('shared'))]);
    expect([ra.status, rb.status]).toEqual([202, 202]);
    expect(ra.body.event_id).toBe(expectedEventId(a.organizationId, 'shared'));
    expect(rb.body.event_id).toBe(expectedEventId(b.organizationId, 'shared'));
    expect(ra.body.event_id).not.toBe(rb.body.event_id);
  });
});

describe('flags', () => {
  it('more than 24 h old, more than 1 minute ahead, no rate card: accepted_flagged and still queued', async () => {
    const t = await createTestTenant(host.db, { credits: 10 });
    const now = Date.now();
    const old = new Date(now - 25 * 3600_000).toISOString();
    const ahead = new Date(now + 5 * 60_000).toISOString();
    const cases: Array<[string, Record<string, unknown>, string | null]> = [
      ['old', { timestamp: old }, 'timestamp is more than 24 hours old'],
      ['ahead', { timestamp: ahead }, 'timestamp is more than 1 minute in the future'],
      ['slightly-ahead', { timestamp: new Date(now + 20_000).toISOString() }, null],
      [
        'unpriced',
        { model: 'house-model-7b', timestamp: new Date(now).toISOString() },
        `no rate card for model "house-model-7b" at ${new Date(now).toISOString()}`,
      ],
      ['unpriced-override', { model: 'house-model-7b', cost_override: '0.5' }, null],
      [
        'old-unpriced',
        { model: 'house-model-7b', timestamp: old },
        `timestamp is more than 24 hours old; no rate card for model "house-model-7b" at ${old}`,
      ],
      [
        'no-unit-rate',
        {
          model: undefined,
          input_tokens: undefined,
          output_tokens: undefined,
          metric: 'transcription',
          unit: 'minute',
          quantity: 2,
          provider: 'acme',
          timestamp: new Date(now).toISOString(),
        },
        `no unit rate for metric "transcription" in unit "minute" for provider "acme" at ${new Date(now).toISOString()}`,
      ],
    ];
    for (const [key, over, reason] of cases) {
      const res = await post(t, llm(key, over));
      expect(res.status, key).toBe(202);
      expect(res.body, key).toEqual({
        event_id: expectedEventId(t.organizationId, key),
        status: reason ? 'accepted_flagged' : 'accepted',
        message: reason ? 'Event queued for cost calculation and flagged for attention' : 'Event queued for cost calculation',
        ...(reason ? { flag_reason: reason } : {}),
      });
    }
    const records = await topicRecords(t);
    expect(Object.fromEntries(records.map((r) => [r.event.idempotency_key, r.event.flag_reason]))).toEqual(
      Object.fromEntries(cases.map(([key, , reason]) => [key, reason])),
    );
    expect(await balance(t)).toBe(10 - cases.length);
    // A retry of a flagged key answers with the stored flag.
    const again = await post(t, llm('old', { timestamp: new Date().toISOString() }));
    expect(again.body).toMatchObject({ status: 'accepted_flagged', flag_reason: 'timestamp is more than 24 hours old' });
  });

  it("the organization's own rate card counts as a rate card", async () => {
    const t = await createTestTenant(host.db, { credits: 10 });
    await createRateCard(host.db, t.organizationId, {
      modelSlug: 'house-model',
      inputCostPerMillion: '1',
      outputCostPerMillion: '2',
      cacheCreationCostPerMillion: null,
      cacheReadCostPerMillion: null,
      reasoningCostPerMillion: null,
      effectiveFrom: new Date('2020-01-01T00:00:00Z'),
    });
    const res = await post(t, llm('own-card', { model: 'house-model-7b' }));
    expect(res.body.status).toBe('accepted');
  });
});

describe('validation: 400 VALIDATION_ERROR naming the field, nothing queued or charged', () => {
  const bad: Array<[string, unknown, string]> = [
    ['wrong type', llm('v1', { input_tokens: '1200' }), 'input_tokens'],
    ['negative tokens', llm('v2', { output_tokens: -1 }), 'output_tokens'],
    ['fractional tokens', llm('v3', { input_tokens: 1.5 }), 'input_tokens'],
    ['metric without unit', { idempotency_key: 'v4', metric: 'image_generation', quantity: 1, provider: 'openai' }, 'unit'],
    ['metric without quantity', { idempotency_key: 'v5', metric: 'image_generation', unit: 'image', provider: 'openai' }, 'quantity'],
    ['LLM without model', { idempotency_key: 'v6', input_tokens: 1, output_tokens: 1 }, 'model'],
    ['LLM without tokens', { idempotency_key: 'v7', model: 'gpt-4o' }, 'input_tokens'],
    ['bad timestamp', llm('v8', { timestamp: '15/01/2026' }), 'timestamp'],
    ['unknown field', llm('v9', { costs: 1 }), 'costs'],
    [
      'too many metadata keys',
      llm('v10', { metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) }),
      'metadata',
    ],
    ['oversized metadata', llm('v11', { metadata: { blob: 'x'.repeat(17_000) } }), 'metadata'],
    ['missing idempotency_key', { model: 'gpt-4o', input_tokens: 1, output_tokens: 1 }, 'idempotency_key'],
    ['bad span_kind', llm('v12', { span_kind: 'chain' }), 'span_kind'],
    ['negative quantity', { idempotency_key: 'v13', metric: 'm', unit: 'u', quantity: -1, provider: 'p' }, 'quantity'],
    ['negative cost_override', llm('v14', { cost_override: '-0.01' }), 'cost_override'],
    ['not an object', [llm('v15')], 'body'],
  ];

  it.each(bad)('%s', async (_name, body, field) => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const res = await post(t, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: { field } } });
    expect(res.body.error.message.startsWith(`${field}: `)).toBe(true);
    expect(res.body.error.correlationId).toBe(res.headers.get('x-correlation-id'));
    expect(res.body.meta).toMatchObject({ method: 'POST', path: '/v1/usage-events' });
    expectRateLimitHeaders(res.headers, '10000');
    expect(await balance(t)).toBe(5);
    expect(await ledger(t)).toEqual([]);
  });

  it('non-finite numbers (JSON 1e999) are rejected', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const res = await post(t, '{"idempotency_key":"inf","metric":"m","unit":"u","provider":"p","quantity":1e999}');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'quantity: must be a finite number',
      details: { field: 'quantity' },
    });
  });

  it('invalid JSON is a 400 on body', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const res = await post(t, '{"idempotency_key": ');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
  });

  it('required and number dimensions', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    await createDimension(host.db, t.organizationId, { name: 'Team', key: 'team', valueType: 'string', isRequired: true });
    await createDimension(host.db, t.organizationId, { name: 'Latency', key: 'latency_ms', valueType: 'number' });
    const missing = await post(t, llm('d1', { metadata: { latency_ms: 12 } }));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'metadata.team: is required (dimension team is marked is_required)',
      details: { field: 'metadata.team' },
    });
    const notNumber = await post(t, llm('d2', { metadata: { team: 'a', latency_ms: '12' } }));
    expect(notNumber.status).toBe(400);
    expect(notNumber.body.error.details.field).toBe('metadata.latency_ms');
    const ok = await post(t, llm('d3', { metadata: { team: 'a', latency_ms: 12 } }));
    expect(ok.status).toBe(202);
    expect(await balance(t)).toBe(4);
  });
});

describe('authentication and signing', () => {
  let t: TestTenant;
  beforeAll(async () => {
    t = await createTestTenant(host.db, { credits: 5 });
  });

  it('no key or an unknown key: 401 error envelope', async () => {
    const none = await http(host.url, 'POST', '/v1/usage-events', { json: llm('a1') });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    const wrong = await signedPost(host.url, { apiKey: 'mk_live_nope', signingSecret: 'x' }, '/v1/usage-events', llm('a2'));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('UNAUTHORIZED');
  });

  it('a key without usage:write: 403 even when signed', async () => {
    const readOnly = await createTestTenant(host.db, { credits: 5, scopes: ['usage:read', 'costs:read'] });
    const res = await post(readOnly, llm('a3'));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    expect(await balance(readOnly)).toBe(5);
  });

  it('signature faults: flat 401 {error, code}, checked before the body', async () => {
    const missing = await post(t, llm('s1'), { signature: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'Missing X-Signature header', code: 'SIGNATURE_MISSING' });
    expectRateLimitHeaders(missing.headers, '10000');

    const noTs = await post(t, llm('s2'), { noTimestamp: true });
    expect(noTs.body).toEqual({ error: 'Missing X-Timestamp header', code: 'SIGNATURE_MISSING' });

    const forged = await post(t, llm('s3'), { signature: `v1=${'0'.repeat(64)}` });
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ error: 'X-Signature does not match the request body and X-Timestamp', code: 'SIGNATURE_INVALID' });

    const malformed = await post(t, llm('s4'), { signature: 'sha256=abc' });
    expect(malformed.body).toEqual({ error: 'X-Signature must be v1=<64 hex digits>', code: 'SIGNATURE_INVALID' });

    const stale = await post(t, llm('s5'), { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.status).toBe(401);
    expect(stale.body).toEqual({ error: 'X-Timestamp is more than 5 minutes from server time', code: 'TIMESTAMP_OUT_OF_RANGE' });
    const ahead = await post(t, llm('s6'), { timestamp: Math.floor(Date.now() / 1000) + 301 });
    expect(ahead.body.code).toBe('TIMESTAMP_OUT_OF_RANGE');
    const within = await post(t, llm('s7'), { timestamp: Math.floor(Date.now() / 1000) - 240 });
    expect(within.status).toBe(202);

    // Signed with another key's secret.
    const other = await createTestTenant(host.db, { credits: 1 });
    const crossed = await signedPost(host.url, { apiKey: t.apiKey, signingSecret: other.signingSecret }, '/v1/usage-events', llm('s8'));
    expect(crossed.body.code).toBe('SIGNATURE_INVALID');

    // An invalid body with a bad signature is a signature fault, not a 400.
    const both = await post(t, { nonsense: true }, { signature: `v1=${'1'.repeat(64)}` });
    expect(both.status).toBe(401);
    expect(both.body.code).toBe('SIGNATURE_INVALID');

    expect(await balance(t)).toBe(4);
    expect((await topicRecords(t)).map((r) => r.event.idempotency_key)).toEqual(['s7']);
  });

  it('a body that is not JSON: 415 before the signature is checked', async () => {
    const res = await post(t, llm('ct-1'), { headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', details: { field: 'body' } });
  });

  it('the signature covers the exact raw bytes (whitespace included)', async () => {
    const raw = '{ "idempotency_key": "raw-1",  "model": "gpt-4o", "input_tokens": 1, "output_tokens": 2 }';
    const res = await post(t, raw);
    expect(res.status).toBe(202);
  });
});

describe('credits and subscriptions: 402, never 429', () => {
  it('balance zero: 402 INSUFFICIENT_CREDITS with actionHint BUY_CREDITS, nothing queued; after a grant the same key succeeds', async () => {
    const t = await createTestTenant(host.db, { credits: 0 });
    const res = await post(t, llm('broke-1'));
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      success: false,
      error: {
        code: 'INSUFFICIENT_CREDITS',
        details: { actionHint: 'BUY_CREDITS', retryable: false },
      },
    });
    expectRateLimitHeaders(res.headers, '10000');
    expect(await ledger(t)).toEqual([]);
    expect(await topicRecords(t)).toEqual([]);

    await grantCredits(host.db, t.organizationId, 1);
    const retry = await post(t, llm('broke-1'));
    expect(retry.status).toBe(202);
    expect(retry.body.event_id).toBe(expectedEventId(t.organizationId, 'broke-1'));
    expect(await balance(t)).toBe(0);
    expect(await topicRecords(t)).toHaveLength(1);
    // The next new key is 402 again; the accepted one still answers 202.
    expect((await post(t, llm('broke-2'))).status).toBe(402);
    expect((await post(t, llm('broke-1'))).status).toBe(202);
  });

  it('concurrent new keys beyond the balance: exactly `balance` are accepted', async () => {
    const t = await createTestTenant(host.db, { credits: 7 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(t, llm(`race-${i}`))));
    expect(results.filter((r) => r.status === 202)).toHaveLength(7);
    expect(results.filter((r) => r.status === 402)).toHaveLength(13);
    expect(results.every((r) => r.status === 202 || r.body.error.code === 'INSUFFICIENT_CREDITS')).toBe(true);
    expect(await balance(t)).toBe(0);
    const accepted = results
      .filter((r) => r.status === 202)
      .map((r) => r.body.event_id)
      .sort();
    expect((await topicRecords(t)).map((r) => r.event.event_id).sort()).toEqual(accepted);
    expect((await ledger(t)).filter((l) => l.state === 'published')).toHaveLength(7);
  });

  it('an inactive subscription: 402 SUBSCRIPTION_INACTIVE; reactivated, events carry its id', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const [sub] = await listSubscriptions(host.db, t.organizationId);
    await setSubscriptionStatus(host.db, t.organizationId, sub!.id, 'canceled');
    const res = await post(t, llm('sub-1'));
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'SUBSCRIPTION_INACTIVE', details: { actionHint: 'BUY_CREDITS' } });
    expect(await balance(t)).toBe(5);

    const fresh = await createSubscription(host.db, t.organizationId, { plan: 'pro' });
    await sleep(250); // organization settings are cached for 100 ms in this host
    const ok = await post(t, llm('sub-1'));
    expect(ok.status).toBe(202);
    const [r] = await topicRecords(t);
    expect(r!.event.subscription_id).toBe(fresh.id);
  });
});

describe('rate limit', () => {
  let small: TestHost;
  beforeAll(async () => {
    small = await startTestHost({
      components: [createIngest(), startApi],
      infra: { kafkaBrokers: brokers, schemaRegistryUrl: registryUrl },
      env: { RATE_LIMIT_INGEST_PER_MINUTE: '3' },
    });
  });
  afterAll(async () => {
    await small?.stop();
  });

  it('3 per minute: RateLimit headers on every response, then 429 with Retry-After (before the signature is checked)', async () => {
    const t = await createTestTenant(small.db, { credits: 1 });
    const sent = [
      await signedPost(small.url, t, '/v1/usage-events', llm('rl-1')),
      // Out of credits: 402, and it still counts against the request limit.
      await signedPost(small.url, t, '/v1/usage-events', llm('rl-2')),
      await signedPost(small.url, t, '/v1/usage-events/batch', { events: [llm('rl-3'), llm('rl-4')] }),
    ];
    expect(sent.map((r) => r.status)).toEqual([202, 402, 200]);
    expect(sent.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
    for (const r of sent) expect(r.headers.get('ratelimit-limit')).toBe('3');

    const limited = await signedPost(small.url, t, '/v1/usage-events', llm('rl-5'), { signature: null });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', details: { retryable: true } } });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-limit')).toBe('3');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('ratelimit-reset')).toBe(String(retryAfter));
  });
});

describe('POST /v1/usage-events/batch', () => {
  it('one result per event in order: accepted, flagged, invalid, duplicate, out of credits', async () => {
    const t = await createTestTenant(host.db, { credits: 3 });
    await post(t, llm('b-seen'));
    const old = new Date(Date.now() - 48 * 3600_000).toISOString();
    const res = await postBatch(t, {
      events: [
        llm('b-1'),
        llm('b-2', { input_tokens: -5 }),
        llm('b-seen'),
        llm('b-3', { timestamp: old }),
        llm('b-1'),
        { idempotency_key: 'b-4', model: 'gpt-4o', input_tokens: 1, output_tokens: 1, extra: 1 },
        llm('b-5'),
      ],
    });
    expect(res.status).toBe(200);
    expectRateLimitHeaders(res.headers, '10000');
    const id = (k: string) => expectedEventId(t.organizationId, k);
    expect(res.body).toEqual({
      results: [
        { event_id: id('b-1'), status: 'accepted', message: 'Event queued for cost calculation' },
        {
          error: {
            code: 'VALIDATION_ERROR',
            message: 'input_tokens: must be a non-negative integer',
            details: { field: 'input_tokens' },
          },
        },
        {
          event_id: id('b-seen'),
          status: 'accepted',
          message: 'Event already accepted with this idempotency_key; it was not queued or charged again',
        },
        {
          event_id: id('b-3'),
          status: 'accepted_flagged',
          message: 'Event queued for cost calculation and flagged for attention',
          flag_reason: 'timestamp is more than 24 hours old',
        },
        {
          event_id: id('b-1'),
          status: 'accepted',
          message: 'Event already accepted with this idempotency_key; it was not queued or charged again',
        },
        {
          error: { code: 'VALIDATION_ERROR', message: 'extra: unknown field extra', details: { field: 'extra', unknownFields: ['extra'] } },
        },
        {
          error: {
            code: 'INSUFFICIENT_CREDITS',
            message: 'Event credit balance is zero; the event was not queued',
            details: {
              actionHint: 'BUY_CREDITS',
              retryable: false,
              userMessage: 'Buy event credits, then retry with the same idempotency_key.',
            },
          },
        },
      ],
    });
    expect(await balance(t)).toBe(0);
    expect((await topicRecords(t)).map((r) => r.event.idempotency_key).sort()).toEqual(['b-1', 'b-3', 'b-seen']);
    // b-5 could not be paid: no ledger row.
    expect((await ledger(t)).map((l) => [l.idempotency_key, l.state])).toEqual([
      ['b-1', 'published'],
      ['b-3', 'published'],
      ['b-seen', 'published'],
    ]);
  });

  it('1000 events in one request, each once on the topic', async () => {
    const t = await createTestTenant(host.db, { credits: 1000 });
    const events = Array.from({ length: 1000 }, (_, i) => llm(`bulk-${i}`, { user_id: `u${i % 10}` }));
    const res = await postBatch(t, { events });
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(1000);
    expect(res.body.results.every((r: { status?: string }) => r.status === 'accepted')).toBe(true);
    expect(res.body.results[999].event_id).toBe(expectedEventId(t.organizationId, 'bulk-999'));
    expect(await balance(t)).toBe(0);
    const records = await topicRecords(t);
    expect(records).toHaveLength(1000);
    expect(new Set(records.map((r) => r.event.idempotency_key)).size).toBe(1000);
    const [users] = await host.db.query<{ n: string }>('SELECT count(*) AS n FROM end_users WHERE organization_id = $1', [
      t.organizationId,
    ]);
    expect(users!.n).toBe('10');
    // One reservation transaction: one group, marked published once, its blob and members dropped.
    const groups = await host.db.query<{ rows: string; published: boolean; payloads: Buffer | null; members: string | null }>(
      `SELECT count(*) AS rows, g.published_at IS NOT NULL AS published, g.payloads, g.members
         FROM ingest_ledger l JOIN ingest_groups g ON g.id = l.group_id
        WHERE l.organization_id = $1 GROUP BY g.id`,
      [t.organizationId],
    );
    expect(groups).toEqual([{ rows: '1000', published: true, payloads: null, members: null }]);
  });

  it('envelope errors are request-level 400s', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const cases: Array<[unknown, string, string]> = [
      [{}, 'events', 'events: is required'],
      [{ events: [] }, 'events', 'events: must hold 1 to 1000 events (has 0)'],
      [{ events: Array.from({ length: 1001 }, (_, i) => llm(`x${i}`)) }, 'events', 'events: must hold 1 to 1000 events (has 1001)'],
      [{ events: llm('x') }, 'events', 'events: must be an array of events'],
      [{ events: [llm('x')], dry_run: true }, 'dry_run', 'dry_run: unknown field dry_run'],
      [[llm('x')], 'body', 'body: must be a JSON object {"events": [...]}'],
    ];
    for (const [body, field, message] of cases) {
      const res = await postBatch(t, body);
      expect(res.status, message).toBe(400);
      expect(res.body.error, message).toMatchObject({ code: 'VALIDATION_ERROR', message, details: { field } });
    }
    expect(await balance(t)).toBe(5);
  });

  it('the signature covers the whole batch body', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const res = await postBatch(t, { events: [llm('sig-b')] }, { signature: `v1=${'a'.repeat(64)}` });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'X-Signature does not match the request body and X-Timestamp', code: 'SIGNATURE_INVALID' });
  });

  it('an inactive subscription answers 402 in every slot', async () => {
    const t = await createTestTenant(host.db, { credits: 5 });
    const [sub] = await listSubscriptions(host.db, t.organizationId);
    await setSubscriptionStatus(host.db, t.organizationId, sub!.id, 'inactive');
    const res = await postBatch(t, { events: [llm('i-1'), llm('i-2', { output_tokens: 'x' })] });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { error: { code: string } }) => r.error.code)).toEqual(['SUBSCRIPTION_INACTIVE', 'VALIDATION_ERROR']);
  });
});
