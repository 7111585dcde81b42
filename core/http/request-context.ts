// Every request gets a request id and a correlation id (the client's X-Correlation-ID when it
// sends a sane one); both are echoed as response headers and carried by logs and error bodies.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

export interface RequestIds {
  requestId: string;
  correlationId: string;
}

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIds(req: object): RequestIds {
  return (req as { ids: RequestIds }).ids;
}

/** Gives the request its ids and echoes them as headers (also run by the ingest fast path). */
export function assignRequestIds(req: IncomingMessage, res: ServerResponse): RequestIds {
  const requestId = crypto.randomUUID();
  const incoming = req.headers['x-correlation-id'];
  const correlationId = typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : requestId;
  const ids = { requestId, correlationId };
  (req as IncomingMessage & { ids: RequestIds }).ids = ids;
  res.setHeader('X-Request-ID', requestId);
  res.setHeader('X-Correlation-ID', correlationId);
  return ids;
}

export function requestContext(req: Request, res: Response, next: NextFunction): void {
  assignRequestIds(req, res);
  next();
}
