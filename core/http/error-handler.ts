// Maps every thrown error to the spec's envelope (or the flat body for signature faults).
// Unknown errors become 500 with the correlation id; nothing a client sends crashes the process.
import type { NextFunction, Request, Response } from 'express';
import { ValidateError } from '@tsoa/runtime';
import { AppError, SignatureError, ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { errorEnvelope } from './error-envelope.js';
import { requestIds } from './request-context.js';

/** tsoa reports fields as "body.x.y", "start_date", "body"; we name the field as the client sent it. */
export function fromTsoaValidateError(err: ValidateError): ValidationError {
  const entries = Object.entries(err.fields ?? {});
  if (entries.length === 0) return new ValidationError('body', err.message || 'invalid request');
  const [rawField, info] = entries[0];
  const field = rawField.replace(/^(body|requestBody)\.?/, '') || 'body';
  let message = info.message;
  const excess = /^"([^"]+)" is an excess property/.exec(message);
  if (excess) {
    const names = excess[1].split(',').map((s) => s.trim());
    return new ValidationError(field === 'body' ? names[0] : `${field}.${names[0]}`, `unknown field${names.length > 1 ? 's' : ''} ${names.join(', ')}`, {
      unknownFields: names,
    });
  }
  message = message.replace(/^invalid /, 'must be a valid ');
  return new ValidationError(field, message);
}

export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    if (err instanceof SignatureError) {
      res.status(401).json({ error: err.message, code: err.code });
      return;
    }
    let appErr: AppError;
    if (err instanceof AppError) appErr = err;
    else if (err instanceof ValidateError) appErr = fromTsoaValidateError(err);
    else if (isBodyParserError(err)) appErr = bodyParserError(err);
    else {
      const ids = requestIds(req);
      logger.error({ err, requestId: ids?.requestId, correlationId: ids?.correlationId, path: req.path }, 'unhandled error');
      appErr = new AppError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error', {
        retryable: true,
        supportMessage: `Quote correlation id ${ids?.correlationId} to support`,
      });
    }
    for (const [k, v] of Object.entries(appErr.headers)) res.setHeader(k, v);
    res.status(appErr.status).json(errorEnvelope(req, appErr.code, appErr.message, appErr.details));
  };
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
