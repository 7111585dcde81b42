// A loopback HTTP proxy in front of the real service that injects the faults a client meets on a
// bad network: 503 and 429 answers (never forwarded), connections dropped before forwarding, and
// connections dropped after the service answered (the service did the work, the client never hears
// of it: the case only idempotency keys make safe). `plan(n)` picks the fault of the n-th request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'pass' | '503' | '429' | 'drop-before' | 'drop-after';

export interface ProxyRecord {
  n: number;
  fault: Fault;
  at: number;
  body: string;
  /** Status the service answered (forwarded requests only). */
  upstreamStatus?: number;
}

export interface FaultProxy {
  url: string;
  records: ProxyRecord[];
  close(): Promise<void>;
}

export async function startFaultProxy(
  target: string,
  plan: (n: number, path: string) => Fault,
  retryAfterSeconds = '1',
): Promise<FaultProxy> {
  const records: ProxyRecord[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const n = records.length + 1;
    const fault = plan(n, req.url ?? '');
    const record: ProxyRecord = { n, fault, at: Date.now(), body: body.toString() };
    records.push(record);
    if (fault === 'drop-before') return req.socket.destroy();
    if (fault === '503' || fault === '429') {
      const code = fault === '503' ? 'SERVICE_UNAVAILABLE' : 'RATE_LIMIT_EXCEEDED';
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-correlation-id': `proxy-${n}` };
      if (fault === '429') headers['retry-after'] = retryAfterSeconds;
      res.writeHead(Number(fault), headers).end(
        JSON.stringify({
          success: false,
          error: { code, message: 'injected by the test proxy', correlationId: `proxy-${n}`, details: { retryable: true } },
        }),
      );
      return;
    }
    const upstream = await forward(target, req, body);
    record.upstreamStatus = upstream.status;
    if (fault === 'drop-after') return req.socket.destroy();
    res.writeHead(upstream.status, upstream.headers).end(upstream.body);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    records,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function forward(
  target: string,
  req: http.IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: new URL(target).host };
    const up = http.request(`${target}${req.url}`, { method: req.method, headers }, async (res) => {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      const h = { ...res.headers };
      delete h['transfer-encoding'];
      delete h.connection;
      resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks) });
    });
    up.on('error', reject);
    up.end(body);
  });
}
