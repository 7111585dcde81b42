import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarginalConnectionError, retryAfterSeconds } from '../../src/errors.js';
import { backoffDelayMs, requestWithRetry, retryDelayMs, type RetryPolicy } from '../../src/retry.js';

const policy: RetryPolicy = { maxRetries: 3, initialDelayMs: 100, maxDelayMs: 1000 };

describe('backoff', () => {
  it('doubles per retry up to the ceiling, waiting within the upper half of each step', () => {
    expect([0, 1, 2, 3, 4, 5].map((r) => backoffDelayMs(r, policy, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 5].map((r) => backoffDelayMs(r, policy, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('Retry-After (seconds or HTTP date) replaces the backoff', () => {
    const answer = (v: string) => ({ status: 429, headers: new Headers({ 'retry-after': v }), text: '', body: null });
    expect(retryDelayMs(0, policy, answer('2'))).toBe(2000);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 01:00:10 GMT', Date.parse('2026-11-24T01:00:00Z'))).toBe(10);
    expect(retryAfterSeconds('soon')).toBeNull();
    expect(retryDelayMs(1, policy, answer('soon'), () => 0)).toBe(100);
  });
});

describe('requestWithRetry against a scripted server', () => {
  let server: http.Server;
  let url: string;
  let script: Array<(res: http.ServerResponse, req: http.IncomingMessage) => void> = [];
  const seen: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(String(req.headers['x-attempt']));
      const step = script.shift();
      if (step) step(res, req);
      else res.writeHead(200).end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const noSleep = { timeoutMs: 500, sleep: async () => undefined };
  let n = 0;
  const attempt = (signal: AbortSignal) => fetch(url, { signal, headers: { 'x-attempt': String(++n) } });

  it('retries 503, 429, 500 and a reset connection, then returns the answer', async () => {
    seen.length = 0;
    script = [
      (res) => res.writeHead(503).end(),
      (res) => res.writeHead(429, { 'retry-after': '0' }).end(),
      (_res, req) => req.socket.destroy(),
    ];
    const answer = await requestWithRetry(attempt, policy, noSleep);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true });
    expect(seen).toHaveLength(4);
  });

  it('never retries other 4xx', async () => {
    seen.length = 0;
    script = [(res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"success":false}')];
    const answer = await requestWithRetry(attempt, policy, noSleep);
    expect(answer.status).toBe(400);
    expect(seen).toHaveLength(1);
  });

  it('a timeout is retried; with no answer at all it ends in MarginalConnectionError', async () => {
    seen.length = 0;
    const hang = () => undefined; // never answers
    script = [hang, hang, hang, hang];
    await expect(requestWithRetry(attempt, policy, { timeoutMs: 100, sleep: async () => undefined })).rejects.toBeInstanceOf(
      MarginalConnectionError,
    );
    expect(seen).toHaveLength(4);
  });

  it('returns the last retryable answer when retries run out', async () => {
    seen.length = 0;
    script = [0, 1, 2, 3].map(() => (res: http.ServerResponse) => res.writeHead(502).end());
    const answer = await requestWithRetry(attempt, policy, noSleep);
    expect(answer.status).toBe(502);
    expect(seen).toHaveLength(4);
  });
});
