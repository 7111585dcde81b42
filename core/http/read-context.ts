// What a read endpoint's service function needs, taken from the request once: the caller's
// organization (from the API key, never from parameters) and the process's lake, control plane,
// rate book and clock. Services take this instead of express types, so benchmarks and tests can
// call them directly. It lives in core so any capability's read endpoint (api/, pricing/rates/)
// may take it: the lake and rate book are typed by the slots their capabilities register in
// AppServices (api/component.ts), so core names no capability.
import type { Request } from 'express';
import { appContext, service, type AppServices } from '../app-context.js';
import type { ControlDb } from '../control/db.js';
import { authOf } from './authentication.js';

export interface ReadContext {
  organizationId: string;
  /** The API key's owner (the usage summary's user_id). */
  ownerUserId: string | null;
  lake: AppServices['lakeQuery'];
  db: ControlDb;
  rateBook: AppServices['rateBook'];
  now: () => Date;
}

export function readContext(req: Request): ReadContext {
  const auth = authOf(req);
  const ctx = appContext(req);
  return {
    organizationId: auth.organizationId,
    ownerUserId: auth.ownerUserId,
    lake: service(req, 'lakeQuery'),
    db: ctx.db,
    rateBook: service(req, 'rateBook'),
    now: ctx.services.apiClock ?? (() => new Date()),
  };
}
