import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Marginal } from '../../src/client.js';
import { MarginalConfigError } from '../../src/errors.js';
import type { EventResult } from '../../src/events.js';

/** A port nothing listens on (a server bound and closed). */
async function closedPort(): Promise<number> {
  const server = http.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('Marginal client', () => {
  it('track fills idempotency_key and timestamp, keeps given ones, returns the key', async () => {
    const results: EventResult[] = [];
    const m = new Marginal({
      apiKey: 'k',
      signingSecret: 's',
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      retry: { maxRetries: 0 },
      flushOnExit: false,
      onResult: (r) => results.push(r),
    });
    const before = Date.now();
    const generated = m.track({ model: 'gpt-4o', input_tokens: 1, output_tokens: 1 });
    const given = m.track({
      idempotency_key: 'mine',
      timestamp: '2026-01-01T00:00:00Z',
      model: 'gpt-4o',
      input_tokens: 1,
      output_tokens: 1,
    });
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    expect(given).toBe('mine');
    await m.shutdown();
    expect(results.map((r) => [r.status, r.idempotencyKey])).toEqual([
      ['failed', generated],
      ['failed', 'mine'],
    ]);
    expect(Date.parse(results[0]!.event.timestamp!)).toBeGreaterThanOrEqual(before - 1);
    expect(results[1]!.event.timestamp).toBe('2026-01-01T00:00:00Z');
  });

  it('without onResult, drops and failures raise a process warning (once per kind)', async () => {
    const warnings: string[] = [];
    const listener = (w: Error) => warnings.push(w.message);
    process.on('warning', listener);
    try {
      const m = new Marginal({
        apiKey: 'k',
        signingSecret: 's',
        baseUrl: `http://127.0.0.1:${await closedPort()}`,
        maxQueueSize: 1,
        retry: { maxRetries: 0 },
        flushOnExit: false,
      });
      expect(m.track({ model: 'm', input_tokens: 1, output_tokens: 1 })).not.toBeNull();
      expect(m.track({ model: 'm', input_tokens: 1, output_tokens: 1 })).toBeNull();
      expect(m.track({ model: 'm', input_tokens: 1, output_tokens: 1 })).toBeNull();
      await m.shutdown();
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.startsWith('Marginal:'))).toEqual([
        expect.stringContaining('dropped (queue_full)'),
        expect.stringContaining('event failed'),
      ]);
      expect(m.stats()).toMatchObject({ dropped: 2, failed: 1 });
    } finally {
      process.off('warning', listener);
    }
  });

  it('sending needs a signing secret; reading does not', () => {
    const reader = new Marginal({ apiKey: 'k', flushOnExit: false });
    expect(() => reader.track({ model: 'm', input_tokens: 1, output_tokens: 1 })).toThrow(MarginalConfigError);
    expect(typeof reader.costSummary).toBe('function');
  });
});
