// Inputs from the fuzzing of issue 16, sent over HTTP to the real service (ingest + processor +
// api on one host, real broker and registry): each was a 500 or a 202 that hurt other tenants and
// must be the right 4xx in the spec's envelope, naming the field ("Every 4xx uses the spec's error
// envelope and names the field").
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type HttpResult } from '../support/http.js';
import { signedPost } from '../support/ingest-harness.js';
import { apiGet, createTenant, ingest, llmEvent, startPipeline, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';

let p: Pipeline;
let t: Tenant;

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { name: 'robustness' });
});
afterAll(async () => {
  await p?.stop();
});

function expect400(res: HttpResult, field: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details.field).toBe(field);
  expect(res.body.error.correlationId).toEqual(expect.any(String));
}

const RANGE = { start_date: '2026-01-01', end_date: '2026-01-31' };

describe('ingestion refuses what would poison a partition or fail a group', () => {
  it.each([
    ['timestamp', { timestamp: '0000-01-01T00:00:00Z' }],
    ['timestamp', { timestamp: '0001-01-01T00:00:00+01:00' }],
    ['started_at', { started_at: '2100-01-01T00:00:00Z' }],
    ['input_tokens', { input_tokens: 2 ** 53 - 1 }],
  ])('400 naming %s for %j', async (field, fields) => {
    expect400(await signedPost(p.url, t.writer, '/v1/usage-events', llmEvent('poison-1', fields)), field);
  });

  it('an unpaired surrogate, escaped in the JSON text, is a 400 naming the field', async () => {
    const raw = '{"idempotency_key":"k\\udfff","model":"gpt-4o","input_tokens":1,"output_tokens":1}';
    expect400(await signedPost(p.url, t.writer, '/v1/usage-events', raw), 'idempotency_key');
    const model = '{"idempotency_key":"k-model","model":"gpt\\ud800","input_tokens":1,"output_tokens":1}';
    expect400(await signedPost(p.url, t.writer, '/v1/usage-events', model), 'model');
    const meta = '{"idempotency_key":"k-meta","model":"gpt-4o","input_tokens":1,"output_tokens":1,"metadata":{"team":["a","\\udc00"]}}';
    expect400(await signedPost(p.url, t.writer, '/v1/usage-events', meta), 'metadata.team[1]');
  });

  it('metadata nested 5,000 deep is a 400 on metadata, not a stack overflow', async () => {
    const raw = `{"idempotency_key":"deep","model":"gpt-4o","input_tokens":1,"output_tokens":1,"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    expect400(await signedPost(p.url, t.writer, '/v1/usage-events', raw), 'metadata');
    const batch = `{"events":[${raw}]}`;
    const res = await signedPost(p.url, t.writer, '/v1/usage-events/batch', batch);
    expect(res.status).toBe(200);
    expect(res.body.results[0].error.details.field).toBe('metadata');
  });

  it('a body sent as gzip that is not gzip: 401 without a key (nothing inflated), 400 with one', async () => {
    const headers = { 'content-encoding': 'gzip' };
    const body = JSON.stringify(llmEvent('gz-1'));
    const anonymous = await http(p.url, 'POST', '/v1/usage-events', { raw: body, headers });
    expect(anonymous.status).toBe(401);
    expect400(await signedPost(p.url, t.writer, '/v1/usage-events', body, { headers }), 'body');
    // Real gzip still works (the signature covers the inflated JSON).
    const ts = String(Math.floor(Date.now() / 1000));
    const ok = await http(p.url, 'POST', '/v1/usage-events', {
      token: t.writer.apiKey,
      raw: zlib.gzipSync(body),
      headers: {
        ...headers,
        'x-timestamp': ts,
        'x-signature': `v1=${crypto.createHmac('sha256', t.writer.signingSecret).update(`${ts}.${body}`).digest('hex')}`,
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
  });
});

describe('costs at the per-event bound', () => {
  // Before the bound (core/money.ts), costs up to 10^26 were accepted and two of them overflowed
  // DuckDB's SUM over DECIMAL(38,12): every read of the organization's range answered 500.
  it('10^15 is refused; three events just below it add up exactly in the reads', async () => {
    const own = await createTenant(p, { name: 'cost-bound' });
    expect400(
      await signedPost(p.url, own.writer, '/v1/usage-events', llmEvent('cb-over', { cost_override: '1000000000000000' })),
      'cost_override',
    );
    const top = '999999999999999.999999999999';
    const now = new Date().toISOString();
    await ingest(
      p,
      own,
      ['cb-1', 'cb-2', 'cb-3'].map((k) => llmEvent(k, { cost_override: top, timestamp: now })),
    );
    await waitForLake(p, own.organizationId, 3);
    const summary = await apiGet(p, own.readKey, '/cost-data/summary');
    expect(summary.status, JSON.stringify(summary.body)).toBe(200);
    // 3 × (10^15 − 10^-12), worked by hand.
    expect(summary.body.current_period_cost).toBe('2999999999999999.999999999997');
  });
});

describe('read parameters and path ids', () => {
  it('NUL in a query parameter is a 400 naming it', async () => {
    expect400(await apiGet(p, t.readKey, '/dimension-data/cost-trend', { ...RANGE, dimension_key: '\u0000' }), 'dimension_key');
    expect400(await apiGet(p, t.readKey, '/usage/events', { ...RANGE, metric_name: 'a\u0000b' }), 'metric_name');
  });

  it('NUL in a path id is a 400 naming it', async () => {
    expect400(
      await http(p.url, 'GET', '/v1/end-user-costs/%00/summary?start_date=2026-01-01&end_date=2026-01-31', { token: t.readKey }),
      'externalId',
    );
    expect400(await http(p.url, 'GET', '/v1/attribution-data/sessions/a%00b/tree', { token: t.readKey }), 'sessionId');
  });

  it('malformed percent-encoding in a path id is a 400; a well-encoded "%" is just an unknown session', async () => {
    expect400(await http(p.url, 'GET', '/v1/attribution-data/sessions/%E0%A4%A/tree', { token: t.readKey }), 'sessionId');
    expect400(await http(p.url, 'GET', '/v1/end-user-costs/%ED%A0%80/summary', { token: t.readKey }), 'externalId');
    const percent = await http(p.url, 'GET', '/v1/attribution-data/sessions/%25/tree', { token: t.readKey });
    expect(percent.status, JSON.stringify(percent.body)).toBe(404);
    expect(percent.body.error.code).toBe('NOT_FOUND');
  });

  it('limit and offset follow one rule on every paged endpoint: integers, limit 1-1000, offset 0-2147483647', async () => {
    for (const path of ['/usage/events', '/attribution-data/sessions']) {
      expect400(await apiGet(p, t.readKey, path, { ...RANGE, offset: '9223372036854775808' }), 'offset');
      expect400(await apiGet(p, t.readKey, path, { ...RANGE, offset: '1e26' }), 'offset');
      expect400(await apiGet(p, t.readKey, path, { ...RANGE, offset: '2147483648' }), 'offset');
      expect400(await apiGet(p, t.readKey, path, { ...RANGE, limit: '1001' }), 'limit');
      const ok = await apiGet(p, t.readKey, path, { ...RANGE, offset: '2147483647', limit: '1000' });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.offset).toBe(2147483647);
    }
  });
});
