// The bare-HTTP ceiling of the ingest benchmark: a plain `node:http` server, run as its own
// process by bench/ingest/run.ts, that does per request only what no ingest can skip: the API
// key looked up in memory, the same HMAC check (ingest/signature.ts) and a JSON parse of the body,
// then 202 with an ingest response (200 with one result per event for /batch). No ledger, no
// Kafka, no validation: the fastest any signed ingest on this machine could answer.
//   node --import tsx bench/ingest/bare-server.ts '<json {apiKey, signingSecret}>'
// Prints its URL on stdout once listening; stops on SIGTERM.
import crypto from 'node:crypto';
import http from 'node:http';
import { bearerToken } from '../../core/auth/api-key-authenticator.js';
import { SignatureError } from '../../core/errors.js';
import { verifySignature } from '../../ingest/signature.js';

interface BareKey {
  organizationId: string;
  signingSecret: string;
}

const { apiKey, signingSecret } = JSON.parse(process.argv[2]!) as { apiKey: string; signingSecret: string };
const keys = new Map<string, BareKey>([[apiKey, { organizationId: crypto.randomUUID(), signingSecret }]]);

function answer(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const accepted = () => ({ event_id: crypto.randomUUID(), status: 'accepted', message: 'Event queued for cost calculation' });

function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): void {
  const key = keys.get(bearerToken(req.headers.authorization) ?? '');
  if (!key) return answer(res, 401, { success: false, error: { code: 'UNAUTHORIZED', message: 'Invalid API key' } });
  try {
    verifySignature(
      key.signingSecret,
      {
        signature: req.headers['x-signature'] as string | undefined,
        timestamp: req.headers['x-timestamp'] as string | undefined,
        rawBody: raw,
      },
      Math.floor(Date.now() / 1000),
    );
  } catch (err) {
    if (err instanceof SignatureError) return answer(res, 401, { error: err.message, code: err.code });
    throw err;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return answer(res, 400, { success: false, error: { code: 'VALIDATION_ERROR', message: 'body: must be valid JSON' } });
  }
  if (req.url === '/v1/usage-events/batch') {
    const events = (body as { events?: unknown[] }).events ?? [];
    return answer(res, 200, { results: events.map(accepted) });
  }
  answer(res, 202, accepted());
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => handle(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  process.stdout.write(`http://127.0.0.1:${addr.port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
