// POST /otlp/v1/traces, the OTLP/HTTP traces receiver (OTLP spec "OTLP/HTTP"): so an exporter
// with OTEL_EXPORTER_OTLP_ENDPOINT=<origin>/otlp works unchanged. Order of checks: API key
// with usage:write and the ingest rate limit (401/403/429, as every ingest route) → encoding
// (415 unless application/x-protobuf or application/json) → body (gzip inflated by body-parser,
// 20 MB, decoded; 400) → spans (exportSpans). No HMAC signature: exporters cannot sign
// (docs/decisions/0066-otlp-authentication-without-a-signature.md). Answers in the request's encoding: 200 ExportTraceServiceResponse, with
// partial_success when spans were rejected; errors as google.rpc.Status (protobuf) or its JSON
// form merged with the spec's error envelope (JSON), with Retry-After on 429 and 503.
// Errors raised before this router (a compressed body with a bad key) get the shared envelope.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { appContext, service } from '../core/app-context.js';
import { expressAuthentication } from '../core/http/authentication.js';
import type { AuthContext } from '../core/auth/scopes.js';
import { AppError } from '../core/errors.js';
import { appErrorOf } from '../core/http/error-handler.js';
import { errorEnvelope } from '../core/http/error-envelope.js';
import { decodeExportRequest, encodeExportResponse, encodeStatus, OtlpDecodeError, type OtlpEncoding } from './otlp-codec.js';
import { exportSpans, OtlpPayloadError, rejectionMessage } from './otlp.js';

/** The route OTLP/HTTP exporters post traces to (at the origin, as the OTLP specification names it). */
export const OTLP_TRACES_PATH = '/otlp/v1/traces';

/** An export of 512 spans with GenAI attributes is well under 1 MB; collectors batch larger. */
const OTLP_BODY_LIMIT = '20mb';

const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

/** gRPC status codes (google.rpc.Code) for the HTTP statuses this receiver answers. */
const GRPC_CODES: Record<number, number> = { 400: 3, 401: 16, 402: 9, 403: 7, 404: 5, 413: 8, 415: 3, 429: 8, 503: 14 };
const GRPC_INTERNAL = 13;

function encodingOf(req: Request): OtlpEncoding | null {
  if (req.is(PROTOBUF)) return 'protobuf';
  if (req.is(JSON_TYPE)) return 'json';
  return null;
}

const readBody = express.raw({ type: () => true, limit: OTLP_BODY_LIMIT });

async function receiveTraces(req: Request, res: Response): Promise<void> {
  const receivedAt = new Date();
  const auth = (await expressAuthentication(req, 'api_key', ['usage:write'])) as AuthContext;
  const encoding = encodingOf(req);
  if (!encoding) {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `body: send ${PROTOBUF} or ${JSON_TYPE} (OTLP/HTTP)`, { field: 'body' });
  }
  await new Promise<void>((resolve, reject) => readBody(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  let spans: ReturnType<typeof decodeExportRequest>;
  try {
    spans = decodeExportRequest(body, encoding);
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw new OtlpPayloadError(err.message);
    throw err;
  }
  const rejected = await exportSpans({ db: appContext(req).db, ingest: service(req, 'ingest') }, auth, spans, receivedAt);
  const partial = rejected.length > 0 ? { rejectedSpans: rejected.length, errorMessage: rejectionMessage(rejected, spans.length) } : null;
  res
    .status(200)
    .type(encoding === 'protobuf' ? PROTOBUF : JSON_TYPE)
    .send(encodeExportResponse(partial, encoding));
}

/** Any failure of the route, in OTLP's error format for the request's encoding. */
function answerError(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  const appErr = appErrorOf(err, req, appContext(req).logger);
  for (const [k, v] of Object.entries(appErr.headers)) res.setHeader(k, v);
  const grpcCode = GRPC_CODES[appErr.status] ?? GRPC_INTERNAL;
  res.status(appErr.status);
  if (encodingOf(req) === 'protobuf') {
    res.type(PROTOBUF).send(encodeStatus(grpcCode, appErr.message));
    return;
  }
  // google.rpc.Status's JSON form (code, message) and the spec's envelope share no key.
  res.json({ code: grpcCode, message: appErr.message, ...errorEnvelope(req, appErr.code, appErr.message, appErr.details) });
}

export function registerOtlpRoutes(router: Router): void {
  router.post(OTLP_TRACES_PATH, (req, res, next) => {
    receiveTraces(req, res).catch(next);
  });
  // Not mounted at '/otlp': that would set req.baseUrl and the metrics' route label would read /otlp/otlp/v1/traces.
  router.use((err: unknown, req: Request, res: Response, next: NextFunction) =>
    req.path.startsWith('/otlp/') ? answerError(err, req, res, next) : next(err),
  );
}
