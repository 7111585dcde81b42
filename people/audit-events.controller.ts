// The audit trail of the caller's organization, for its owners and admins.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { requireUuid } from '../core/http/input.js';
import { pageParams } from '../core/http/paging.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import type { IsoDateParam, TextParam, UuidParam } from '../core/http/params.js';
import { parseDateParam } from '../core/time.js';
import type { ActorKind } from '../core/http/audit-trail.js';
import { listAudit } from './audit.store.js';
import { personActor } from './request-actor.js';
import { auditEventView, type AuditEventList } from './people-views.js';

@Route('audit-events')
@Tags('People: audit trail')
@Security('session', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Not signed in')
@Response<ErrorEnvelope>(403, 'Not an owner or admin of the organization')
export class AuditEventsController extends Controller {
  /**
   * Who did what, when and from where in the organization (X-Organization-Id, or the caller's only
   * one), newest first, with its members' sign-ins and sign-outs. Filters combine.
   * @summary List audit events
   * @param action e.g. `sign_in`, `sign_in.failed`, `invitation.created`, `member.role_changed`
   * @param actor_kind `person`, `api_key`, `admin_token` or `anonymous`
   * @param person_id events done by or to this person
   * @param start_date ISO 8601, inclusive
   * @param end_date ISO 8601, exclusive
   * @param limit Page size, 1 to 1000. Default 100.
   * @param offset Events to skip, 0 to 2147483647. Default 0.
   * @isInt limit must be an integer
   * @minimum limit 1
   * @maximum limit 1000
   * @isInt offset must be an integer
   * @minimum offset 0
   * @maximum offset 2147483647
   */
  @Get()
  public async listAuditEvents(
    @Request() req: ExRequest,
    @Query() action?: TextParam,
    @Query() actor_kind?: ActorKind,
    @Query() person_id?: UuidParam,
    @Query() start_date?: IsoDateParam,
    @Query() end_date?: IsoDateParam,
    @Query() limit?: number,
    @Query() offset?: number,
  ): Promise<AuditEventList> {
    const page = pageParams(limit, offset);
    const { rows, total } = await listAudit(appContext(req).db, {
      organizationId: personActor(req).organizationId,
      action: action ?? null,
      actorKind: actor_kind ?? null,
      personId: person_id === undefined ? null : requireUuid('person_id', person_id),
      start: withinStoredRange(parseDateParam('start_date', start_date, false)),
      end: withinStoredRange(parseDateParam('end_date', end_date, false)),
      ...page,
    });
    return { audit_events: rows.map(auditEventView), total, ...page };
  }
}

// PostgreSQL has no year 0 (ISO 8601's 0000 is 1 BC there) and stops at 294276; a filter bound
// beyond any audit event's time selects the same rows as the nearest stored-range bound.
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);
function withinStoredRange(at: Date | null): Date | null {
  return at === null ? null : new Date(Math.min(Math.max(at.getTime(), EARLIEST), LATEST));
}
