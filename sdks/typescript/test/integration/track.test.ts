// track/send against the real service: thousands of events arrive exactly once across injected
// 503s, 429s and dropped connections; 402 and validation errors reach the caller typed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Marginal } from '../../src/client.js';
import { InsufficientCreditsError, ValidationError } from '../../src/errors.js';
import type { EventResult } from '../../src/events.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../support/fault-proxy.js';
import { aroundNow, createTenant, creditBalance, waitFor } from '../support/tenant.js';

const proxies: FaultProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.close();
});

describe('track through a faulty network', () => {
  it('3,000 events arrive exactly once across 503s, 429s and dropped connections', async () => {
    const N = 3000;
    const CREDITS = 10_000;
    const tenant = await createTenant({ credits: CREDITS });
    // Every request but the last few meets a fault at first; the retries then pass. Drops after
    // forwarding mean the service accepted a batch whose answer the client never got.
    const cycle: Fault[] = ['503', 'drop-after', '429', 'drop-before', 'pass', 'drop-after', '503', 'pass'];
    const proxy = await startFaultProxy(tenant.url, (n) => (n <= 40 ? cycle[(n - 1) % cycle.length]! : 'pass'));
    proxies.push(proxy);

    const results: EventResult[] = [];
    const marginal = new Marginal({
      apiKey: tenant.apiKey,
      signingSecret: tenant.signingSecret,
      baseUrl: proxy.url,
      batchSize: 250,
      flushIntervalMs: 100,
      retry: { initialDelayMs: 20, maxDelayMs: 200 },
      flushOnExit: false,
      onResult: (r) => results.push(r),
    });
    const keys: string[] = [];
    for (let i = 0; i < N; i++) {
      keys.push(marginal.track({ model: 'gpt-4o', input_tokens: 100 + (i % 7), output_tokens: 10, user_id: `u${i % 13}` })!);
    }
    await marginal.shutdown();

    // Client side: one outcome per event, all accepted, distinct event ids.
    expect(results).toHaveLength(N);
    expect(results.filter((r) => r.status !== 'accepted').map((r) => r.status)).toEqual([]);
    expect(new Set(results.map((r) => r.idempotencyKey))).toEqual(new Set(keys));
    expect(new Set(results.map((r) => (r.status === 'accepted' ? r.eventId : ''))).size).toBe(N);
    expect(marginal.stats()).toMatchObject({ accepted: N, queued: 0, inFlight: 0, failed: 0, dropped: 0 });

    // The faults really happened, including batches the service took whose answer was lost.
    const faults = proxy.records.map((r) => r.fault);
    for (const f of ['503', '429', 'drop-before', 'drop-after'] as const) expect(faults).toContain(f);
    expect(proxy.records.filter((r) => r.fault === 'drop-after' && r.upstreamStatus === 200).length).toBeGreaterThan(0);
    // A retry resends the same events with the same keys, and waits out Retry-After (1 s).
    for (const limited of proxy.records.filter((r) => r.fault === '429')) {
      const keysOf = (body: string) =>
        (JSON.parse(body) as { events: { idempotency_key: string }[] }).events.map((e) => e.idempotency_key).join();
      const retried = proxy.records.find((r) => r.n > limited.n && keysOf(r.body) === keysOf(limited.body));
      expect(retried, 'the 429 batch was sent again').toBeDefined();
      expect(retried!.at - limited.at).toBeGreaterThanOrEqual(950);
    }

    // Service side: exactly N credits spent, and exactly N events in the lake.
    expect(await creditBalance(tenant)).toBe(CREDITS - N);
    const reader = new Marginal({ apiKey: tenant.readKey, baseUrl: tenant.url, flushOnExit: false });
    let total = -1;
    await waitFor(`${N} events in the lake`, async () => {
      total = (await reader.usageSummary(aroundNow())).total_events;
      return total >= N;
    });
    expect(total).toBe(N);
  });
});

describe('refusals reach the caller', () => {
  it('402: track reports InsufficientCreditsError with actionHint per event; send throws it', async () => {
    const tenant = await createTenant({ credits: 3 });
    const results: EventResult[] = [];
    const marginal = new Marginal({
      apiKey: tenant.apiKey,
      signingSecret: tenant.signingSecret,
      baseUrl: tenant.url,
      flushOnExit: false,
      onResult: (r) => results.push(r),
    });
    for (let i = 0; i < 5; i++) marginal.track({ model: 'gpt-4o', input_tokens: 1, output_tokens: 1 });
    await marginal.flush();
    expect(results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'accepted', 'rejected', 'rejected']);
    const refused = results[3]!;
    expect(refused.status === 'rejected' && refused.error).toBeInstanceOf(InsufficientCreditsError);
    expect(refused.status === 'rejected' && refused.error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', actionHint: 'BUY_CREDITS' });

    const err = await marginal.send({ model: 'gpt-4o', input_tokens: 1, output_tokens: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientCreditsError);
    expect(err).toMatchObject({ status: 402, code: 'INSUFFICIENT_CREDITS', actionHint: 'BUY_CREDITS' });
    expect((err as InsufficientCreditsError).correlationId).toMatch(/\S/);
    await marginal.shutdown();
  });

  it('send returns the ingest response; the same key again gets the same event id and spends nothing', async () => {
    const tenant = await createTenant({ credits: 10 });
    const marginal = new Marginal({ apiKey: tenant.apiKey, signingSecret: tenant.signingSecret, baseUrl: tenant.url, flushOnExit: false });
    const first = await marginal.send({ idempotency_key: 'send-1', model: 'gpt-4o', input_tokens: 5, output_tokens: 2, user_id: 'ü-42' });
    const again = await marginal.send({ idempotency_key: 'send-1', model: 'gpt-4o', input_tokens: 5, output_tokens: 2, user_id: 'ü-42' });
    expect(first.status).toMatch(/^accepted/);
    expect(again.event_id).toBe(first.event_id);
    expect(await creditBalance(tenant)).toBe(9);
  });

  it('a bad field is rejected with the field named, never retried', async () => {
    const tenant = await createTenant({ credits: 10 });
    const proxy = await startFaultProxy(tenant.url, () => 'pass');
    proxies.push(proxy);
    const results: EventResult[] = [];
    const marginal = new Marginal({
      apiKey: tenant.apiKey,
      signingSecret: tenant.signingSecret,
      baseUrl: proxy.url,
      flushOnExit: false,
      onResult: (r) => results.push(r),
    });
    marginal.track({ model: 'gpt-4o', input_tokens: -1, output_tokens: 1 });
    await marginal.flush();
    expect(results[0]).toMatchObject({ status: 'rejected', error: { code: 'VALIDATION_ERROR', field: 'input_tokens' } });
    expect((results[0] as { error: unknown }).error).toBeInstanceOf(ValidationError);
    const err = await marginal.send({ model: 'gpt-4o', input_tokens: 1.5, output_tokens: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 400, field: 'input_tokens' });
    expect(proxy.records).toHaveLength(2); // one batch, one send: no retries of a 400
  });

  it('a wrong signing secret is a typed 401 carrying the flat body code', async () => {
    const tenant = await createTenant({ credits: 10 });
    const marginal = new Marginal({ apiKey: tenant.apiKey, signingSecret: 'mks_wrong', baseUrl: tenant.url, flushOnExit: false });
    await expect(marginal.send({ model: 'gpt-4o', input_tokens: 1, output_tokens: 1 })).rejects.toMatchObject({
      name: 'AuthenticationError',
      status: 401,
      code: 'SIGNATURE_INVALID',
    });
  });
});

describe('process exit', () => {
  it('events tracked by a process that just ends are delivered by the beforeExit hook', async () => {
    const tenant = await createTenant({ credits: 100 });
    const child = fileURLToPath(new URL('../support/exit-hook-child.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--import', 'tsx', child, tenant.url, tenant.apiKey, tenant.signingSecret, '7'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const outcomes = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string });
    expect(outcomes.map((o) => o.status)).toEqual(Array(7).fill('accepted'));
    expect(await creditBalance(tenant)).toBe(93);
  });
});
