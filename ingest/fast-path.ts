// POST /v1/usage-events answered straight from node:http, without express's middleware chain
// and router or tsoa's generated route: the per-request work they add (about a quarter of the
// main thread's CPU per event, bench/results/ingest.md) is not needed for one well-formed JSON
// request. The tsoa controller (ingest.controller.ts) stays the documented contract and serves
// every request this path declines. Invariant: for every request it takes, the answer (status,
// headers, body) is the one the express route gives, because it runs the same functions in the
// same order: request ids → body read and JSON parse (400) → API key, scope, rate limit
// (authenticateApiKey: 401/403/429) → signature (flat 401) → event rules (validateSingleEvent:
// 400) → IngestService.ingestOne (202/402/503), errors answered by errorResponse.
// test/integration/ingest-fast-path.test.ts proves it request by request against the express app.
// It takes only requests whose body express.json would read as is: no query string, no
// Content-Encoding, Content-Type application/json (charset utf-8 or none), a Content-Length of
// 1 byte to 1 MB. Everything else goes to express unchanged.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../core/app-context.js';
import type { FastPath } from '../core/process-host.js';
import { bearerToken } from '../core/auth/api-key-authenticator.js';
import { ValidationError } from '../core/errors.js';
import { authenticateApiKey } from '../core/http/authentication.js';
import { BODY_LIMIT } from '../core/http/app.js';
import { errorResponse } from '../core/http/error-handler.js';
import { assignRequestIds } from '../core/http/request-context.js';
import { httpDuration, httpRequests } from '../core/metrics.js';
import type { IngestService } from './ingest.js';
import { validateSingleEvent, verifyIngestSignature } from './ingest-request.js';

const PATH = '/v1/usage-events';
const JSON_TYPE = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i;
/** body-parser's strict mode: the first non-blank character must open an object or an array. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON's whitespace is tab, LF and CR by definition
const FIRST_CHAR = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d])/;

export function ingestFastPath(ctx: AppContext, ingest: IngestService): FastPath {
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== PATH) return false;
    const h = req.headers;
    if (h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined) return false;
    const length = Number(h['content-length']);
    if (!(length > 0 && length <= BODY_LIMIT) || !JSON_TYPE.test(h['content-type'] ?? '')) return false;
    serve(ctx, ingest, req, res);
    return true;
  };
}

function serve(ctx: AppContext, ingest: IngestService, req: IncomingMessage, res: ServerResponse): void {
  const end = httpDuration.startTimer();
  res.on('finish', () => {
    httpRequests.inc({ method: 'POST', route: PATH, status: String(res.statusCode) });
    end({ method: 'POST', route: PATH });
  });
  const ids = assignRequestIds(req, res);
  // What the error envelope reads of a request (its ids as requestIds() finds them on express's).
  const facts = { method: 'POST', originalUrl: PATH, path: PATH, ids };
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  // A client that went away gets no answer, as with express.
  req.on('error', () => res.destroy());
  req.on('end', () => {
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    answerEvent(ctx, ingest, req, res, raw)
      .then(
        (body) => send(res, 202, body),
        (err: unknown) => {
          const { status, headers, body } = errorResponse(err, facts, ctx.logger);
          for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
          send(res, status, body);
        },
      )
      .catch((err: unknown) => {
        ctx.logger.error({ err, requestId: ids.requestId }, 'ingest fast path could not answer');
        res.destroy();
      });
  });
}

async function answerEvent(ctx: AppContext, ingest: IngestService, req: IncomingMessage, res: ServerResponse, raw: Buffer) {
  const body = parseJsonBody(raw);
  const auth = await authenticateApiKey(ctx, bearerToken(req.headers.authorization), ['usage:write'], (k, v) => res.setHeader(k, v));
  verifyIngestSignature(auth.signingSecret, req.headers, raw);
  const receivedAt = new Date();
  const event = await validateSingleEvent(ingest, auth.organizationId, body);
  return ingest.ingestOne(auth, event, receivedAt);
}

/** As express.json reads a UTF-8 body: a leading BOM dropped, strict (object or array), else the same 400. */
function parseJsonBody(raw: Buffer): unknown {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = FIRST_CHAR.exec(text)?.[1];
  try {
    if (first !== '{' && first !== '[') throw new SyntaxError('not an object or array');
    return JSON.parse(text);
  } catch {
    throw new ValidationError('body', 'must be valid JSON');
  }
}

/** What express's res.status(s).json(body) writes. */
function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.end(text);
}
