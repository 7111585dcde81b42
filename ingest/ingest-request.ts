// Request-level steps of ingestion that run between authentication and the controller, as tsoa
// method middlewares, so the order of checks is: API key (401) → scope (403) → rate limit (429,
// inside authentication) → signature (flat 401; 415 first when the body is not JSON, as its bytes
// were never read) → body (400) → credits (402) → queue (202/503). Malformed JSON and oversized
// bodies are answered by the HTTP shell's body parser (400/413) before any of these.
// The rate limit comes before the signature on purpose: it bounds how much HMAC work (over bodies
// up to 20 MB) a caller holding a key but not its secret can make us do, and a client with a
// signing bug still sees its real request budget in the RateLimit headers.
// Body validation runs here, before tsoa's own check, because tsoa coerces body types ("5" to 5)
// and would reject a whole batch for one bad event; ours names the field and, in a batch, answers
// each event in its own result slot.
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { service } from '../core/app-context.js';
import { authOf } from '../core/http/authentication.js';
import { rawBodyOf } from '../core/http/app.js';
import { AppError, ValidationError } from '../core/errors.js';
import type { IngestService } from './ingest.js';
import { ingestEvents } from './ingest-metrics.js';
import { verifySignature } from './signature.js';
import { validateEvent, type ValidatedEvent } from './validate-event.js';

const MAX_BATCH_EVENTS = 1000;

/** One event of the request: valid and normalized, or its validation error. */
export type PreparedSlot = { event: ValidatedEvent; error?: undefined } | { event?: undefined; error: AppError };

export interface PreparedIngest {
  receivedAt: Date;
  slots: PreparedSlot[];
}

const prepared = new WeakMap<Request, PreparedIngest>();

/** What the middlewares prepared for the controller. */
export function preparedIngestOf(req: Request): PreparedIngest {
  const p = prepared.get(req);
  if (!p) throw new Error('ingest request was not prepared (middleware missing)');
  return p;
}

const EMPTY = Buffer.alloc(0);

/** X-Signature / X-Timestamp over the raw body (flat 401 on any fault): the route's and the fast path's one check. */
export function verifyIngestSignature(secret: string, headers: IncomingHttpHeaders, raw: Buffer): void {
  // Node joins repeated x-* headers into one string, as express's req.header returns it.
  const header = (name: string) => headers[name] as string | undefined;
  verifySignature(
    secret,
    { signature: header('x-signature'), timestamp: header('x-timestamp'), rawBody: raw },
    Math.floor(Date.now() / 1000),
  );
}

/** The express route's signature step (verifyIngestSignature on the raw body express.json kept). */
export function checkSignature(req: Request, _res: Response, next: NextFunction): void {
  try {
    let raw = rawBodyOf(req);
    if (raw === undefined) {
      // express.json reads only JSON bodies; an empty one leaves nothing to keep.
      if (!req.is('application/json') && Number(req.header('content-length') ?? 0) > 0) {
        throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'body: send the event as JSON with Content-Type: application/json', {
          field: 'body',
        });
      }
      raw = EMPTY;
    }
    verifyIngestSignature(authOf(req).signingSecret, req.headers, raw);
    next();
  } catch (err) {
    next(err);
  }
}

function asyncMiddleware(fn: (req: Request) => Promise<void>) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    fn(req).then(() => next(), next);
  };
}

function requireJsonBody(req: Request): void {
  // express.json leaves rawBody unset when the request is not JSON.
  if (rawBodyOf(req) === undefined) throw new ValidationError('body', 'must be a JSON object sent with Content-Type: application/json');
}

/** The one event of POST /usage-events, or a 400 naming its first bad field (also the fast path's, ingest/fast-path.ts). */
export async function validateSingleEvent(ingest: IngestService, organizationId: string, body: unknown): Promise<ValidatedEvent> {
  const dimensions = await ingest.dimensionsFor(organizationId);
  try {
    return validateEvent(body, dimensions);
  } catch (err) {
    ingestEvents.inc({ outcome: 'VALIDATION_ERROR' });
    throw err;
  }
}

/** POST /usage-events: the one event, or a 400 naming its first bad field. */
export const prepareEvent = asyncMiddleware(async (req) => {
  const receivedAt = new Date();
  requireJsonBody(req);
  const event = await validateSingleEvent(service(req, 'ingest'), authOf(req).organizationId, req.body);
  prepared.set(req, { receivedAt, slots: [{ event }] });
  // As for batches below: tsoa's second check of a body ours has passed costs several percent of
  // a busy ingest, so it sees only the one field it requires.
  req.body = { idempotency_key: event.idempotency_key };
});

/**
 * POST /usage-events/batch: the envelope must be right (400 otherwise); each event is validated
 * on its own and a bad one answers in its result slot.
 */
export const prepareBatch = asyncMiddleware(async (req) => {
  const receivedAt = new Date();
  requireJsonBody(req);
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError('body', 'must be a JSON object {"events": [...]}');
  const unknown = Object.keys(body).filter((k) => k !== 'events');
  if (unknown.length > 0) {
    throw new ValidationError(unknown[0]!, `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`, {
      unknownFields: unknown,
    });
  }
  const events = (body as { events?: unknown }).events;
  if (events === undefined || events === null) throw new ValidationError('events', 'is required');
  if (!Array.isArray(events)) throw new ValidationError('events', 'must be an array of events');
  if (events.length < 1 || events.length > MAX_BATCH_EVENTS) {
    throw new ValidationError('events', `must hold 1 to ${MAX_BATCH_EVENTS} events (has ${events.length})`);
  }
  const dimensions = await service(req, 'ingest').dimensionsFor(authOf(req).organizationId);
  const slots = events.map((raw): PreparedSlot => {
    try {
      return { event: validateEvent(raw, dimensions) };
    } catch (err) {
      if (err instanceof ValidationError) {
        ingestEvents.inc({ outcome: 'VALIDATION_ERROR' });
        return { error: err };
      }
      throw err;
    }
  });
  prepared.set(req, { receivedAt, slots });
  // tsoa checks the body again after us. Our rules are stricter, and its check costs about as much
  // as the rest of the event's handling, so it is handed one minimal event (the documented list
  // holds 1 to 1000): one bad event must not fail the whole batch, and the valid ones have been
  // checked already. The controller reads the prepared slots, never this body.
  req.body = { events: [{ idempotency_key: 'checked' }] };
});
