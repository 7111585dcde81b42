// The spec's error envelope, built in one place for every 4xx/5xx.
import type { Request } from 'express';
import type { ErrorDetails } from '../errors.js';
import { requestIds } from './request-context.js';

export interface ErrorEnvelope {
  success: false;
  error: {
    code: string;
    message: string;
    correlationId: string;
    /** @deprecated same value as correlationId */
    referenceCode: string;
    details?: ErrorDetails;
  };
  meta: { timestamp: string; method?: string; path?: string; requestId?: string };
}

/** What the envelope reads of a request: express's, or the ingest fast path's plain one. */
export type EnvelopeRequest = Pick<Request, 'method' | 'originalUrl'>;

export function errorEnvelope(req: EnvelopeRequest, code: string, message: string, details?: ErrorDetails): ErrorEnvelope {
  const ids = requestIds(req);
  return {
    success: false,
    error: {
      code,
      message,
      correlationId: ids.correlationId,
      referenceCode: ids.correlationId,
      ...(details && Object.keys(details).length > 0 ? { details } : {}),
    },
    meta: { timestamp: new Date().toISOString(), method: req.method, path: req.originalUrl.split('?')[0], requestId: ids.requestId },
  };
}
