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

export function errorEnvelope(req: Request, code: string, message: string, details?: ErrorDetails): ErrorEnvelope {
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
