// A local node:http server that answers like OpenAI (/v1/chat/completions, /v1/responses) and
// Anthropic (/v1/messages) with the recorded shapes of sdks/test-vectors/providers.json, as JSON
// or as server-sent events. The test queues the vector to answer next; the server records each
// request body so tests can see what the wrapped client really sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderVector } from './vectors.js';

const PATHS: Record<ProviderVector['api'], string> = {
  'chat.completions': '/v1/chat/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
};

export interface FakeProvider {
  url: string;
  /** Answer the next request with this vector (or an error status with a provider-style body). */
  enqueue(answer: ProviderVector | { status: number; body: unknown }): void;
  requests: Array<{ path: string; body: Record<string, any> }>;
  close(): Promise<void>;
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const queue: Array<ProviderVector | { status: number; body: unknown }> = [];
  const requests: FakeProvider['requests'] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, any>;
    requests.push({ path: req.url ?? '', body });
    const answer = queue.shift();
    if (!answer) return void res.writeHead(500).end('{"error":"nothing queued"}');
    if ('status' in answer) {
      return void res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    }
    if (req.url !== PATHS[answer.api]) return void res.writeHead(404).end(`{"error":"expected ${PATHS[answer.api]}"}`);
    if (!answer.stream) {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.response));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const wantsUsage = body.stream_options?.include_usage === true;
    for (const item of answer.sse!) {
      const data = item.data as Record<string, any> | string;
      // OpenAI only sends the usage chunk when the request asked for it.
      if (
        answer.api === 'chat.completions' &&
        typeof data === 'object' &&
        Array.isArray(data.choices) &&
        data.choices.length === 0 &&
        !wantsUsage
      )
        continue;
      res.write(`${item.event ? `event: ${item.event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      await new Promise((r) => setImmediate(r));
    }
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    enqueue: (a) => queue.push(a),
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
