// The api's full collection after a burst of requests (api/idle-gc.ts): once per quiet spell
// that followed requests, never while requests keep coming, never with no request since the last.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { collectGarbageWhenIdle } from '../../../api/idle-gc.js';

// Generous against a loaded machine: a request every 50 ms never leaves a gap of 1 s.
const IDLE_MS = 1_000;
let server: http.Server | null = null;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function serve(gc: () => void): Promise<() => Promise<void>> {
  server = http.createServer((_req, res) => res.end('ok'));
  collectGarbageWhenIdle(server, { idleMs: IDLE_MS, gc });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return async () => {
    await (await fetch(url)).text();
  };
}

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

describe('collectGarbageWhenIdle', () => {
  it('collects once after a burst, only when the requests stop, and again after the next burst', async () => {
    let collections = 0;
    const request = await serve(() => collections++);
    await sleep(IDLE_MS * 2);
    expect(collections).toBe(0); // no request yet: nothing to collect

    // A request every 50 ms for well over the idle time: no collection meanwhile.
    for (let i = 0; i < 30; i++) {
      await request();
      await sleep(50);
    }
    expect(collections).toBe(0);
    await sleep(IDLE_MS * 2);
    expect(collections).toBe(1);
    await sleep(IDLE_MS * 2);
    expect(collections).toBe(1); // quiet, no request since: not again

    await request();
    await sleep(IDLE_MS * 2);
    expect(collections).toBe(2);
  });

  it.skipIf((globalThis as { gc?: () => void }).gc !== undefined)(
    'is a no-op without a gc function (node started without --expose-gc)',
    async () => {
      server = http.createServer((_req, res) => res.end('ok'));
      collectGarbageWhenIdle(server, { idleMs: IDLE_MS });
      expect(server.listenerCount('request')).toBe(1); // only the handler: nothing was hooked
    },
  );
});
