// Every request gets a request id and a correlation id (the client's X-Correlation-ID when it
// sends a sane one); both are echoed as response headers and carried by logs and error bodies.
import crypto from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export interface RequestIds {
  requestId: string;
  correlationId: string;
}

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIds(req: Request): RequestIds {
  return (req as Request & { ids: RequestIds }).ids;
}

export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const requestId = crypto.randomUUID();
  const incoming = req.header('x-correlation-id');
  const correlationId = incoming && SANE_ID.test(incoming) ? incoming : requestId;
  (req as Request & { ids: RequestIds }).ids = { requestId, correlationId };
  res.setHeader('X-Request-ID', requestId);
  res.setHeader('X-Correlation-ID', correlationId);
  next();
}
