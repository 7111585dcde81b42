// The ingest fast path (ingest/fast-path.ts) answers POST /v1/usage-events exactly as the
// documented express + tsoa route does: each request below is sent once to a server whose fast
// path is in front of the express app and once to the express app alone (same process, same
// services), and the two raw responses must match byte for byte: status line, every header in
// order, body. Only what differs by nature between two requests is masked: the request id,
// Date, RateLimit-Reset, meta.timestamp, and the event_id (checked against UUIDv5 computed here).
// Each side uses its own API key of the same organization, so rate-limit counts stay equal.
import crypto from 'node:crypto';
import http from 'node:http';
import zlib from 'node:zlib';
import { v5 as uuidv5 } from 'uuid';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startApi } from '../../api/component.js';
import type { Scope } from '../../core/auth/scopes.js';
import { issueApiKey } from '../../core/control/api-keys.js';
import { createDimension } from '../../core/control/dimensions.js';
import { createHttpApp } from '../../core/http/app.js';
import { createIngest } from '../../ingest/component.js';
import { ingestFastPath } from '../../ingest/fast-path.js';
import { RegisterRoutes } from '../../ingest/generated/routes.js';
import { createTestTenant, TEST_MASTER_KEY, type TestTenant } from '../support/control-db.js';
import { startTestHost, type TestHost } from '../support/http.js';

let host: TestHost;
/** The fast path in front of the express app; counts the requests the fast path took. */
let fastServer: http.Server;
let fastTaken = 0;
/** The express app alone: the documented route. */
let expressServer: http.Server;
/** Paid organization (required dimension `team`) and unpaid one; two keys each, one per side. */
let paid: { fast: TestTenant; express: TestTenant };
let unpaid: { fast: TestTenant; express: TestTenant };
let readOnly: { fast: TestTenant; express: TestTenant };

interface RawResponse {
  status: string;
  headers: string[];
  body: string;
}

interface Sent {
  /** Body bytes; a function of the side's key for bodies that hold an idempotency key. */
  body: string | Buffer;
  headers?: Record<string, string>;
  /** Signature headers: computed (default), a bad signature, none, or a stale timestamp. */
  sign?: 'ok' | 'bad' | 'none' | 'stale';
  auth?: 'key' | 'none' | 'bogus';
}

function listen(handler: http.RequestListener): Promise<http.Server> {
  return new Promise((resolve) => {
    const s = http.createServer(handler);
    s.keepAliveTimeout = host.host.server.keepAliveTimeout;
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

function send(server: http.Server, who: TestTenant, req: Sent): Promise<RawResponse> {
  const { port } = server.address() as { port: number };
  const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
  const ts = req.sign === 'stale' ? String(Math.floor(Date.now() / 1000) - 3600) : String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', ...req.headers };
  if ((req.auth ?? 'key') === 'key') headers.authorization = `Bearer ${who.apiKey}`;
  if (req.auth === 'bogus') headers.authorization = 'Bearer mk_live_not-a-key';
  if (req.sign !== 'none') {
    const mac = crypto.createHmac('sha256', who.signingSecret).update(`${ts}.`).update(body).digest('hex');
    headers['x-timestamp'] = ts;
    headers['x-signature'] = req.sign === 'bad' ? `v1=${'0'.repeat(64)}` : `v1=${mac}`;
  }
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/usage-events', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: `${res.statusCode} ${res.statusMessage}`, headers: res.rawHeaders, body: Buffer.concat(chunks).toString() }),
      );
    });
    r.on('error', reject);
    r.end(body);
  });
}

/** The response with per-request values masked; event_id checked against the organization's UUIDv5 first. */
function masked(res: RawResponse, who: TestTenant, key: string | null): string {
  const headers = new Map<string, string>();
  for (let i = 0; i < res.headers.length; i += 2) headers.set(res.headers[i]!.toLowerCase(), res.headers[i + 1]!);
  const requestId = headers.get('x-request-id')!;
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  let text = [res.status, ...res.headers, res.body].join('\n').replaceAll(requestId, '<request-id>');
  text = text.replace(/\nDate\n[^\n]+/, '\nDate\n<date>').replace(/\nRateLimit-Reset\n\d+/, '\nRateLimit-Reset\n<reset>');
  text = text.replace(/"timestamp":"[^"]+"/, '"timestamp":"<now>"');
  if (key !== null && res.status.startsWith('202')) {
    const eventId = uuidv5(key, who.organizationId);
    expect(res.body).toContain(`"event_id":"${eventId}"`);
    text = text.replaceAll(eventId, '<event-id>');
  }
  return text;
}

/**
 * Sends one case to both servers (each side's request built by `make(side)`) and expects identical masked
 * responses; returns the fast path's for further checks.
 */
async function both(
  pair: { fast: TestTenant; express: TestTenant },
  make: (side: 'fast' | 'express') => { req: Sent; key: string | null },
): Promise<{ status: number; text: string; body: string }> {
  const f = make('fast');
  const e = make('express');
  const fast = await send(fastServer, pair.fast, f.req);
  const slow = await send(expressServer, pair.express, e.req);
  const a = masked(fast, pair.fast, f.key);
  expect(a).toBe(masked(slow, pair.express, e.key));
  return { status: Number(fast.status.split(' ')[0]), text: a, body: fast.body };
}

const llm = (key: string, over: Record<string, unknown> = {}) =>
  JSON.stringify({
    idempotency_key: key,
    model: 'gpt-4o-mini',
    input_tokens: 1200,
    output_tokens: 300,
    metadata: { team: 'search' },
    ...over,
  });

/** A case whose body holds the side's own idempotency key. */
const keyed =
  (name: string, over: Record<string, unknown> = {}, req: Omit<Sent, 'body'> = {}) =>
  (side: string) => {
    const key = `${name}-${side}`;
    return { req: { ...req, body: llm(key, over) }, key };
  };
/** A case sent the same to both sides. */
const fixed = (req: Sent) => () => ({ req, key: null });

async function pairOf(opts: { credits: number; scopes?: Scope[] }) {
  const fast = await createTestTenant(host.db, { credits: opts.credits, scopes: opts.scopes });
  const key = await issueApiKey(host.db, TEST_MASTER_KEY, fast.organizationId, { scopes: opts.scopes ?? ['usage:write'] });
  return { fast, express: { ...fast, keyId: key.id, apiKey: key.apiKey, signingSecret: key.signingSecret } };
}

beforeAll(async () => {
  host = await startTestHost({
    components: [createIngest({ settingsTtlMs: 100, sweeper: { intervalMs: 60_000 } }), startApi],
    infra: { kafkaBrokers: inject('kafkaBrokers').split(','), schemaRegistryUrl: inject('schemaRegistryUrl') },
    env: { RATE_LIMIT_INGEST_PER_MINUTE: '10000' },
  });
  const ctx = host.host.ctx;
  const app = createHttpApp(ctx, [RegisterRoutes]);
  const fast = ingestFastPath(ctx, ctx.services.ingest!);
  fastServer = await listen((req, res) => {
    if (fast(req, res)) fastTaken++;
    else app(req, res);
  });
  expressServer = await listen(app);
  paid = await pairOf({ credits: 100 });
  await createDimension(host.db, paid.fast.organizationId, { name: 'Team', key: 'team', valueType: 'string', isRequired: true });
  unpaid = await pairOf({ credits: 0 });
  readOnly = await pairOf({ credits: 10, scopes: ['costs:read'] });
});

afterAll(async () => {
  for (const s of [fastServer, expressServer]) {
    s?.closeAllConnections();
    await new Promise((r) => (s ? s.close(r) : r(null)));
  }
  await host?.stop();
});

describe('ingest fast path: the same answer as the express route', () => {
  it('valid events: 202 accepted, flagged, then the duplicate answer, each byte-identical', async () => {
    const before = fastTaken;
    const first = await both(paid, keyed('ok'));
    expect(first.status).toBe(202);
    expect(JSON.parse(first.body)).toMatchObject({ status: 'accepted', message: 'Event queued for cost calculation' });
    expect((await both(paid, keyed('ok'))).text).toContain('already accepted');
    const flagged = await both(paid, keyed('old', { timestamp: new Date(Date.now() - 3 * 86_400_000).toISOString() }));
    expect(JSON.parse(flagged.body)).toMatchObject({ status: 'accepted_flagged' });
    const withBom = await both(paid, (side) => ({ req: { body: `\uFEFF${llm(`bom-${side}`)}` }, key: `bom-${side}` }));
    expect(withBom.status).toBe(202);
    const correlated = await both(paid, keyed('corr', {}, { headers: { 'x-correlation-id': 'trace-42' } }));
    expect(correlated.text).toContain('X-Correlation-ID\ntrace-42');
    expect(fastTaken - before).toBe(5);
  });

  it('invalid events: the same 400 envelope naming the field', async () => {
    const cases: Array<[string, Sent]> = [
      ['missing key', { body: JSON.stringify({ model: 'gpt-4o-mini', input_tokens: 1, output_tokens: 1, metadata: { team: 'a' } }) }],
      ['wrong type', { body: llm('t1', { input_tokens: '5' }) }],
      ['unknown field', { body: llm('t2', { colour: 'red' }) }],
      ['required dimension', { body: llm('t3', { metadata: {} }) }],
      ['malformed JSON', { body: '{"idempotency_key": ' }],
      ['JSON string, not an object', { body: '"hello"' }],
      ['JSON array', { body: '[1, 2]' }],
      ['invalid UTF-8', { body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) }],
    ];
    for (const [name, req] of cases) {
      const res = await both(paid, fixed(req));
      expect(res.status, name).toBe(400);
      expect(JSON.parse(res.body).error.code, name).toBe('VALIDATION_ERROR');
    }
  });

  it('authentication, scope, signature and credits: 401, 403, flat 401s and 402 alike', async () => {
    const expectations: Array<[string, { fast: TestTenant; express: TestTenant }, Sent, number]> = [
      ['no key', paid, { body: llm('a1'), auth: 'none' }, 401],
      ['unknown key', paid, { body: llm('a2'), auth: 'bogus' }, 401],
      ['key without usage:write', readOnly, { body: llm('a3') }, 403],
      ['bad signature', paid, { body: llm('a4'), sign: 'bad' }, 401],
      ['no signature', paid, { body: llm('a5'), sign: 'none' }, 401],
      ['stale timestamp', paid, { body: llm('a6'), sign: 'stale' }, 401],
      ['no credits', unpaid, { body: llm('a7', { metadata: {} }) }, 402],
      ['malformed JSON before a bad key', paid, { body: '{', auth: 'bogus' }, 400],
    ];
    for (const [name, pair, req, status] of expectations) {
      const res = await both(pair, fixed(req));
      expect(res.status, name).toBe(status);
    }
  });

  it('declines what express.json would treat differently, which then gets the express answer', async () => {
    const before = fastTaken;
    const gz = zlib.gzipSync(llm('gz-x'));
    const declined: Sent[] = [
      { body: llm('ct'), headers: { 'content-type': 'text/plain' } },
      { body: gz, headers: { 'content-encoding': 'gzip' } },
      { body: llm('cs'), headers: { 'content-type': 'application/json; charset=latin1' } },
    ];
    for (const req of declined) await both(paid, fixed(req));
    expect(fastTaken).toBe(before);
  });

  it('the service as started (hostComponents) serves POST /v1/usage-events through the fast path', async () => {
    const res = await send(host.host.server, paid.fast, { body: llm('hosted') });
    expect(res.status).toBe('202 Accepted');
    const viaExpress = await send(expressServer, paid.express, { body: llm('hosted-2') });
    expect(masked(res, paid.fast, 'hosted')).toBe(masked(viaExpress, paid.express, 'hosted-2'));
  });
});
