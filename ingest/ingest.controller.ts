// POST /v1/usage-events and POST /v1/usage-events/batch: parameters, scope, documented responses.
// Signature and body checks are the middlewares of ingest-request.ts, so the body and header
// parameters below are declared for the OpenAPI document and tsoa's final check; the controller
// reads what the middlewares prepared. The work is IngestService's. In a running service
// POST /usage-events is answered by ingest/fast-path.ts (the same functions without express's
// chain; proven alike by test/integration/ingest-fast-path.test.ts); this controller is its
// documented contract and answers the requests the fast path declines.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Header, Middlewares, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { service } from '../core/app-context.js';
import { authOf } from '../core/http/authentication.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { ingestResponse } from './ingest.js';
import { checkSignature, prepareBatch, prepareEvent, preparedIngestOf } from './ingest-request.js';
import type {
  BatchEventError,
  IngestResponse,
  SignatureErrorBody,
  UsageEventBatchRequest,
  UsageEventBatchResponse,
  UsageEventRequest,
} from './ingest.types.js';

@Route('usage-events')
@Tags('Ingestion')
@Security('api_key', ['usage:write'])
@Response<ErrorEnvelope | SignatureErrorBody>(
  401,
  'Missing or invalid API key (error envelope, code UNAUTHORIZED); or a missing or invalid signature, or X-Timestamp more than 5 minutes off (flat body {error, code}: SIGNATURE_MISSING, SIGNATURE_INVALID, TIMESTAMP_OUT_OF_RANGE)',
)
@Response<ErrorEnvelope>(403, 'The API key lacks the usage:write scope (FORBIDDEN)')
@Response<ErrorEnvelope>(413, 'PAYLOAD_TOO_LARGE: the body exceeds 1 MB (20 MB for a batch)')
@Response<ErrorEnvelope>(415, 'UNSUPPORTED_MEDIA_TYPE: the body is not sent as application/json')
@Response<ErrorEnvelope>(
  429,
  'More than the ingestion rate limit (default 100 requests per minute per key): RATE_LIMIT_EXCEEDED with Retry-After and RateLimit-* headers',
)
export class IngestController extends Controller {
  /**
   * Queues one usage event for cost calculation. Answers 202 only once the event is durably on the
   * queue, and spends one event credit; a retry with the same idempotency_key answers 202 with
   * the same event_id and spends nothing. Sign the request: X-Timestamp = Unix seconds,
   * X-Signature = "v1=" + hex HMAC-SHA256(signing secret, X-Timestamp + "." + raw body).
   * Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.
   * @summary Send a usage event
   * @param _signature "v1=" + hex HMAC-SHA256 of X-Timestamp + "." + the raw body, keyed by the API key's signing secret.
   * @param _timestamp Unix time in seconds; at most 5 minutes from server time.
   */
  @Post()
  @Middlewares(checkSignature, prepareEvent)
  @SuccessResponse(202, 'Accepted: queued for cost calculation')
  @Response<ErrorEnvelope>(400, 'Invalid event (VALIDATION_ERROR); error.details.field names the field')
  @Response<ErrorEnvelope>(
    402,
    'INSUFFICIENT_CREDITS (balance zero) or SUBSCRIPTION_INACTIVE; error.details.actionHint is BUY_CREDITS. Nothing was queued; retrying later with the same idempotency_key is safe.',
  )
  @Response<ErrorEnvelope>(503, 'SERVICE_UNAVAILABLE: the queue cannot take the event; nothing was charged; details.retryable is true')
  public async ingestEvent(
    @Request() req: ExRequest,
    // Declared for the OpenAPI document and tsoa's validation; the fast path has already read them.
    @Body() _body: UsageEventRequest,
    @Header('X-Signature') _signature: string,
    @Header('X-Timestamp') _timestamp: string,
  ): Promise<IngestResponse> {
    const { receivedAt, slots } = preparedIngestOf(req);
    const response = await service(req, 'ingest').ingestOne(authOf(req), slots[0]!.event!, receivedAt);
    this.setStatus(202);
    return response;
  }

  /**
   * Queues up to 1000 events in one request, each under the rules of POST /usage-events and
   * spending one credit when accepted. Authentication, scope, rate limit (one request counts
   * once) and the signature (over the whole raw body) apply to the request; everything else to
   * each event. Answers 200 with one result per event, in order: the 202 body of POST
   * /usage-events, or {"error": {code, message, details}} for that event.
   * @summary Send a batch of usage events
   * @param _signature "v1=" + hex HMAC-SHA256 of X-Timestamp + "." + the raw body, keyed by the API key's signing secret.
   * @param _timestamp Unix time in seconds; at most 5 minutes from server time.
   */
  @Post('batch')
  @Middlewares(checkSignature, prepareBatch)
  @SuccessResponse(200, 'One result per event, in request order')
  @Response<ErrorEnvelope>(400, 'The request is not {"events": [1 to 1000 events]} (VALIDATION_ERROR naming the field)')
  public async ingestBatch(
    @Request() req: ExRequest,
    @Body() _body: UsageEventBatchRequest,
    @Header('X-Signature') _signature: string,
    @Header('X-Timestamp') _timestamp: string,
  ): Promise<UsageEventBatchResponse> {
    const { receivedAt, slots } = preparedIngestOf(req);
    const valid = slots.flatMap((s) => (s.event ? [s.event] : []));
    const outcomes = valid.length > 0 ? await service(req, 'ingest').ingest(authOf(req), valid, receivedAt) : [];
    let next = 0;
    const results = slots.map((s): IngestResponse | BatchEventError => {
      if (s.error) return errorResult(s.error);
      const o = outcomes[next++]!;
      return o.ok ? ingestResponse(o) : errorResult(o.error);
    });
    // Events answered 503 in their slots: the request says when to retry, as a whole 503 would.
    const retryAfter = outcomes.find((o) => !o.ok && o.error.headers['Retry-After']);
    if (retryAfter && !retryAfter.ok) this.setHeader('Retry-After', retryAfter.error.headers['Retry-After']);
    return { results };
  }
}

function errorResult(err: { code: string; message: string; details?: Record<string, unknown> }): BatchEventError {
  return { error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } };
}
