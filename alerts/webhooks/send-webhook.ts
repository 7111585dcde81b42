// One delivery attempt over HTTP(S): POST the body with its headers, never follow a redirect (a 3xx
// is a failed attempt), give up after the timeout (10 s), and keep only the first KiB of the answer
// for the attempt log. With private URLs refused, the connection goes only to a public address
// (outbound-address.ts).
import http from 'node:http';
import https from 'node:https';
import { isPrivateAddress, literalAddress, PrivateAddressError, publicOnlyLookup } from './outbound-address.js';

const DELIVERY_TIMEOUT_MS = 10_000;
const EXCERPT_BYTES = 1024;

type AttemptOutcome = 'delivered' | 'http_error' | 'timeout' | 'network_error' | 'refused';

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface SendOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
}

export async function sendWebhook(url: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { outcome: 'refused', statusCode: null, latencyMs: 0, error: 'invalid URL', responseExcerpt: null };
  }
  const literal = literalAddress(target);
  if (!opts.allowPrivate && literal && isPrivateAddress(literal)) {
    return { outcome: 'refused', statusCode: null, latencyMs: 0, error: new PrivateAddressError(literal).message, responseExcerpt: null };
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<AttemptResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, latencyMs: elapsed() });
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Marginal-Webhooks/1',
          ...headers,
          'content-length': Buffer.byteLength(body),
        },
        lookup: opts.allowPrivate ? undefined : publicOnlyLookup,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (c: Buffer) => {
          if (kept < EXCERPT_BYTES) {
            chunks.push(c.subarray(0, EXCERPT_BYTES - kept));
            kept += Math.min(c.length, EXCERPT_BYTES - kept);
          }
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          const excerpt = Buffer.concat(chunks).toString('utf8');
          const ok = status >= 200 && status < 300;
          const error = ok
            ? null
            : status >= 300 && status < 400
              ? `redirect not followed (${res.headers.location ?? 'no location'})`
              : `HTTP ${status}`;
          finish({ outcome: ok ? 'delivered' : 'http_error', statusCode: status, error, responseExcerpt: excerpt || null });
        };
        res.on('end', done);
        res.on('error', (err) =>
          finish({ outcome: 'network_error', statusCode: res.statusCode ?? null, error: err.message, responseExcerpt: null }),
        );
      },
    );
    // A total deadline (the socket's own timeout only measures idleness, which a slow drip resets).
    const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    const timer = setTimeout(() => {
      finish({ outcome: 'timeout', statusCode: null, error: `no complete answer within ${timeoutMs} ms`, responseExcerpt: null });
      req.destroy();
    }, timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err) => {
      const refused = err instanceof PrivateAddressError;
      finish({ outcome: refused ? 'refused' : 'network_error', statusCode: null, error: err.message, responseExcerpt: null });
    });
    req.end(body);
  });
}
