// Maps every thrown error to the spec's envelope (or the flat body for signature faults).
// An unreachable control plane becomes 503 (retryable, Retry-After); unknown errors become 500
// with the correlation id; nothing a client sends crashes the process.
import type { NextFunction, Request, Response } from 'express';
import { ValidateError } from '@tsoa/runtime';
import { isConnectionFailure } from '../control/sql-errors.js';
import { AppError, ServiceUnavailableError, SignatureError, ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { errorEnvelope, type EnvelopeRequest } from './error-envelope.js';
import { requestIds } from './request-context.js';

/**
 * tsoa reports fields as "body.x.y", "body.items.$3.name", "start_date", "body"; we name the field
 * as the client sent it ("x.y", "items[3].name") and reword tsoa's messages ("invalid string
 * value", "Could not match the union…") into "must be …". Unknown fields win over every other
 * fault, since a misspelt name is usually also the cause of a "required" error.
 */
export function fromTsoaValidateError(err: ValidateError): ValidationError {
  const entries = Object.entries(err.fields ?? {});
  if (entries.length === 0) return new ValidationError('body', err.message || 'invalid request');
  const unknown = entries.flatMap(([rawField, info]) => {
    const m = EXCESS_PROPERTY.exec(info.message);
    if (!m) return [];
    const at = clientField(rawField);
    // Declared models key the fault by the extra field itself (value = its name); inline object
    // types key it by the object, listing the extras.
    if (typeof info.value === 'string') return [at];
    return m[1]!.split(',').map((name) => (at === 'body' ? name : `${at}.${name}`));
  });
  if (unknown.length > 0) {
    return new ValidationError(unknown[0]!, `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`, {
      unknownFields: unknown,
    });
  }
  const [rawField, info] = entries[0]!;
  let field = clientField(rawField);
  let message = humanizeTsoaMessage(info.message);
  // A bad item of a list of scalars: the field is the list, the message says which item.
  const item = /^(.*)\[(\d+)\]$/.exec(field);
  if (item?.[1]) {
    field = item[1];
    message = `item ${item[2]} ${message}`;
  }
  return new ValidationError(field, message);
}

const EXCESS_PROPERTY = /^"([^"]+)" is an excess property/;

function clientField(rawField: string): string {
  return rawField.replace(/^(body|requestBody)\.?/, '').replace(/\.\$(\d+)/g, '[$1]') || 'body';
}

const TYPE_NOUNS: Record<string, string> = {
  'invalid string value': 'a string',
  'invalid integer number': 'an integer',
  'invalid float number': 'a number',
  'invalid double number': 'a number',
  'invalid boolean value': 'a boolean',
  'invalid object': 'an object',
  'invalid array': 'an array',
  'invalid undefined value': 'absent',
  'invalid ISO 8601 date format, i.e. YYYY-MM-DD': 'an ISO 8601 date (YYYY-MM-DD)',
  'invalid ISO 8601 datetime format, i.e. YYYY-MM-DDTHH:mm:ss': 'an ISO 8601 date-time',
};

const ONE_OF = /^should be one of the following; \[(.*)\]$/;
const UNION = /^Could not match the union against any of the items\. Issues: (.*)$/s;

/** What a value must be, for one tsoa message; null when the message is not a type fault. */
function expectation(message: string): string[] | null {
  const noun = TYPE_NOUNS[message];
  if (noun) return [noun];
  const oneOf = ONE_OF.exec(message);
  if (oneOf) return oneOf[1]!.split(',').map((v) => v.trim().replace(/^'(.*)'$/, '$1'));
  return null;
}

export function humanizeTsoaMessage(message: string): string {
  if (/^'[^']*' is required$/.test(message)) return 'is required';
  const union = UNION.exec(message);
  if (union) {
    let issues: Array<Record<string, { message: string }>> = [];
    try {
      issues = JSON.parse(union[1]!);
    } catch {
      return 'does not match any allowed type';
    }
    const options = issues.flatMap((issue) => Object.values(issue).flatMap((i) => expectation(i.message) ?? []));
    const unique = [...new Set(options)];
    if (unique.length === 0) return 'does not match any allowed type';
    const allLiterals = issues.every((issue) => Object.values(issue).every((i) => ONE_OF.test(i.message)));
    return allLiterals ? `must be one of: ${unique.join(', ')}` : `must be ${unique.join(' or ')}`;
  }
  const single = expectation(message);
  if (single) return ONE_OF.test(message) ? `must be one of: ${single.join(', ')}` : `must be ${single[0]}`;
  return message;
}

export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    const { status, headers, body } = errorResponse(err, req, logger);
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.status(status).json(body);
  };
}

/** The request facts error answers read: express's request, or the ingest fast path's. */
export type ErrorRequest = EnvelopeRequest & Pick<Request, 'path'>;

/**
 * Status, extra headers and JSON body answering any thrown value: the flat body for signature
 * faults, the envelope otherwise (also written by the ingest fast path, ingest/fast-path.ts).
 */
export function errorResponse(
  err: unknown,
  req: ErrorRequest,
  logger: Logger,
): { status: number; headers: Record<string, string>; body: unknown } {
  if (err instanceof SignatureError) return { status: 401, headers: {}, body: { error: err.message, code: err.code } };
  const appErr = appErrorOf(err, req, logger);
  return { status: appErr.status, headers: appErr.headers, body: errorEnvelope(req, appErr.code, appErr.message, appErr.details) };
}

/**
 * The AppError any thrown value answers as (one rule for every route; the OTLP receiver writes the
 * same status in its own body format).
 */
export function appErrorOf(err: unknown, req: Pick<Request, 'path'>, logger: Logger): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ValidateError) return fromTsoaValidateError(err);
  if (isBodyParserError(err)) return bodyParserError(err);
  if (isInflateError(err)) return new ValidationError('body', 'could not be decompressed as its Content-Encoding says');
  if (err instanceof URIError) return new ValidationError('path', 'must be valid percent-encoded UTF-8');
  const ids = requestIds(req);
  if (isConnectionFailure(err)) {
    // Every control-plane read on a request's path (API key lookup, organization settings,
    // rates, ledger, admin and read endpoints) ends here when the database is unreachable.
    logger.warn({ err, requestId: ids?.requestId, correlationId: ids?.correlationId, path: req.path }, 'control plane unavailable');
    return new ServiceUnavailableError(
      'The control-plane database is unavailable; retry shortly',
      `Quote correlation id ${ids?.correlationId} to support`,
    );
  }
  logger.error({ err, requestId: ids?.requestId, correlationId: ids?.correlationId, path: req.path }, 'unhandled error');
  return new AppError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error', {
    retryable: true,
    supportMessage: `Quote correlation id ${ids?.correlationId} to support`,
  });
}

/** zlib's fault on a body whose bytes are not what its Content-Encoding says (body-parser passes it on with status 400). */
function isInflateError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

interface BodyParserError {
  type: string;
  status?: number;
  limit?: number;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return typeof err === 'object' && err !== null && typeof (err as { type?: unknown }).type === 'string' && 'status' in err;
}

function bodyParserError(err: BodyParserError): AppError {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ValidationError('body', 'must be valid JSON');
    case 'entity.too.large':
      return new AppError(413, 'PAYLOAD_TOO_LARGE', `body: request body exceeds ${err.limit} bytes`, { field: 'body' });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'body: unsupported encoding or charset', { field: 'body' });
    default:
      return new AppError(err.status && err.status < 500 ? err.status : 400, 'VALIDATION_ERROR', `body: ${err.type}`, { field: 'body' });
  }
}
