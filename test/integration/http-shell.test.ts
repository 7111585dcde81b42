// The HTTP shell every service shares, seen from a client: the spec's error envelope on 401, 400,
// 413 and 404, correlation ids, and the per-key read rate limit with its RateLimit-* headers.
import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachHost, http, type TestHost } from '../support/http.js';
import { createTestTenant, type TestTenant } from '../support/control-db.js';

const READ_LIMIT = 3;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every field of the spec's envelope, checked against the response headers and the request. */
function expectEnvelope(
  res: { status: number; headers: Headers; body: any },
  expected: { status: number; code: string; method: string; path: string },
): void {
  expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
  const { success, error, meta } = res.body;
  expect(success).toBe(false);
  expect(error.code).toBe(expected.code);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.correlationId).toBe(res.headers.get('x-correlation-id'));
  expect(error.referenceCode).toBe(error.correlationId);
  expect(new Date(meta.timestamp).toISOString()).toBe(meta.timestamp);
  expect(Math.abs(Date.now() - Date.parse(meta.timestamp))).toBeLessThan(60_000);
  expect(meta.method).toBe(expected.method);
  expect(meta.path).toBe(expected.path);
  expect(meta.requestId).toMatch(UUID);
  expect(meta.requestId).toBe(res.headers.get('x-request-id'));
}

describeEachHost(
  'HTTP shell',
  ({ host }) => {
    let h: TestHost;
    let tenant: TestTenant;
    beforeAll(async () => {
      h = host();
      tenant = await createTestTenant(h.db, { scopes: ['usage:write'] });
    });

    describe('401 UNAUTHORIZED in the envelope', () => {
      it.each([
        ['no Authorization header', undefined],
        ['a malformed header (not Bearer)', 'Basic dXNlcjpwYXNz'],
        ['a Bearer header without a token', 'Bearer'],
        ['an unknown key', `Bearer mk_live_${crypto.randomBytes(32).toString('base64url')}`],
        ['a token that is not a Marginal key', 'Bearer sk-something-else'],
      ])('for %s', async (_label, authorization) => {
        const res = await http(h.url, 'GET', '/v1/ping', authorization ? { headers: { authorization } } : {});
        expectEnvelope(res, { status: 401, code: 'UNAUTHORIZED', method: 'GET', path: '/v1/ping' });
        // A server-chosen correlation id is the request id.
        expect(res.body.error.correlationId).toBe(res.body.meta.requestId);
      });
    });

    it('403 FORBIDDEN when the key lacks the endpoint scope', async () => {
      // `tenant` holds only usage:write; the usage summary needs usage:read.
      const path = '/v1/usage/summary';
      const res = await http(h.url, 'GET', `${path}?start_date=2026-01-01&end_date=2026-01-02`, { token: tenant.apiKey });
      expectEnvelope(res, { status: 403, code: 'FORBIDDEN', method: 'GET', path });
      expect(res.body.error.message).toContain('usage:read');
    });

    it('a valid key passes (ping names its organization)', async () => {
      const res = await http(h.url, 'GET', '/v1/ping', { token: tenant.apiKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true, organization_id: tenant.organizationId });
    });

    it('echoes a client X-Correlation-ID in the header and the envelope', async () => {
      const res = await http(h.url, 'GET', '/v1/ping', { headers: { 'x-correlation-id': 'client-trace-42' } });
      expectEnvelope(res, { status: 401, code: 'UNAUTHORIZED', method: 'GET', path: '/v1/ping' });
      expect(res.headers.get('x-correlation-id')).toBe('client-trace-42');
      expect(res.body.error.correlationId).toBe('client-trace-42');
      expect(res.body.error.referenceCode).toBe('client-trace-42');
      expect(res.body.meta.requestId).not.toBe('client-trace-42');

      const ok = await http(h.url, 'GET', '/v1/ping', { token: tenant.apiKey, headers: { 'x-correlation-id': 'ok-trace' } });
      expect(ok.headers.get('x-correlation-id')).toBe('ok-trace');
    });

    it('replaces an unusable X-Correlation-ID with the request id', async () => {
      const res = await http(h.url, 'GET', '/v1/ping', { headers: { 'x-correlation-id': 'has spaces <and> tags' } });
      expect(res.body.error.correlationId).toBe(res.body.meta.requestId);
    });

    it('malformed JSON answers 400 VALIDATION_ERROR naming body', async () => {
      const res = await http(h.url, 'POST', '/v1/admin/organizations', { token: h.adminToken, raw: '{"name": "Acme",' });
      expectEnvelope(res, { status: 400, code: 'VALIDATION_ERROR', method: 'POST', path: '/v1/admin/organizations' });
      expect(res.body.error.details.field).toBe('body');
      expect(res.body.error.message.startsWith('body: ')).toBe(true);
    });

    it('a JSON body that is not an object answers 400 naming body', async () => {
      const res = await http(h.url, 'POST', '/v1/admin/organizations', { token: h.adminToken, json: ['Acme'] });
      expectEnvelope(res, { status: 400, code: 'VALIDATION_ERROR', method: 'POST', path: '/v1/admin/organizations' });
      expect(res.body.error.details.field).toBe('body');
    });

    it('a body over the 1 MB limit answers 413 in the envelope', async () => {
      const raw = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 1) });
      const res = await http(h.url, 'POST', '/v1/admin/organizations', { token: h.adminToken, raw });
      expectEnvelope(res, { status: 413, code: 'PAYLOAD_TOO_LARGE', method: 'POST', path: '/v1/admin/organizations' });
      expect(res.body.error.details.field).toBe('body');
    });

    it('an unknown route answers 404 NOT_FOUND in the envelope (query string not in meta.path)', async () => {
      const res = await http(h.url, 'GET', '/v1/no-such-thing?x=1');
      expectEnvelope(res, { status: 404, code: 'NOT_FOUND', method: 'GET', path: '/v1/no-such-thing' });
      // A known path with a method it does not support is 405 with Allow (issue 16).
      const post = await http(h.url, 'POST', '/v1/ping', { json: {} });
      expectEnvelope(post, { status: 405, code: 'METHOD_NOT_ALLOWED', method: 'POST', path: '/v1/ping' });
      expect(post.headers.get('allow')).toBe('GET');
      // The document's own path decides, even where a templated route takes the method:
      // PATCH /members/{personId} exists, /members/invitations has only POST and GET.
      const patch = await http(h.url, 'PATCH', '/v1/members/invitations', { json: { role: 'admin' } });
      expectEnvelope(patch, { status: 405, code: 'METHOD_NOT_ALLOWED', method: 'PATCH', path: '/v1/members/invitations' });
      expect(patch.headers.get('allow')).toBe('POST, GET');
      // HEAD goes where GET does.
      expect((await http(h.url, 'HEAD', '/v1/ping')).status).not.toBe(405);
      // OPTIONS lists exactly the document's methods for the path (Express would add GET and HEAD
      // of any matching route).
      const options = await http(h.url, 'OPTIONS', '/v1/usage-events');
      expect(options.status).toBe(204);
      expect(options.headers.get('allow')).toBe('POST');
      expect((await http(h.url, 'OPTIONS', '/v1/ping')).headers.get('allow')).toBe('GET');
    });

    it(`counts reads per key: RateLimit-* headers, then 429 RATE_LIMIT_EXCEEDED with Retry-After after ${READ_LIMIT}`, async () => {
      const limited = await createTestTenant(h.db, { scopes: ['usage:read'] });
      for (let i = 1; i <= READ_LIMIT; i++) {
        const res = await http(h.url, 'GET', '/v1/ping', { token: limited.apiKey });
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBe(String(READ_LIMIT));
        expect(res.headers.get('ratelimit-remaining')).toBe(String(READ_LIMIT - i));
        const reset = Number(res.headers.get('ratelimit-reset'));
        expect(Number.isInteger(reset) && reset >= 1 && reset <= 900).toBe(true);
      }
      const over = await http(h.url, 'GET', '/v1/ping', { token: limited.apiKey });
      expectEnvelope(over, { status: 429, code: 'RATE_LIMIT_EXCEEDED', method: 'GET', path: '/v1/ping' });
      expect(over.body.error.details.retryable).toBe(true);
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 900).toBe(true);
      expect(over.headers.get('ratelimit-limit')).toBe(String(READ_LIMIT));
      expect(over.headers.get('ratelimit-remaining')).toBe('0');
      expect(over.headers.get('ratelimit-reset')).toBe(String(retryAfter));

      // Another key has its own window.
      const other = await createTestTenant(h.db, { scopes: ['usage:read'] });
      const fresh = await http(h.url, 'GET', '/v1/ping', { token: other.apiKey });
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('ratelimit-remaining')).toBe(String(READ_LIMIT - 1));
    });
  },
  { env: { RATE_LIMIT_READ_PER_15_MINUTES: String(READ_LIMIT) } },
);
