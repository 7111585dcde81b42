// What a read endpoint's service function needs, taken from the request once: the caller's
// organization (from the API key, never from parameters) and the process's lake, control plane,
// rate book and clock. Services take this instead of express types, so benchmarks and tests can
// call them directly.
import type { Request } from 'express';
import { appContext, service } from '../../core/app-context.js';
import type { ControlDb } from '../../core/control/db.js';
import { authOf } from '../../core/http/authentication.js';
import type { RateBook } from '../../pricing/rate-book.js';
import type { LakeQuery } from './lake-query.js';

export interface ReadContext {
  organizationId: string;
  /** The API key's owner (the usage summary's user_id). */
  ownerUserId: string | null;
  lake: LakeQuery;
  db: ControlDb;
  rateBook: RateBook;
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
