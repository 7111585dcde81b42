// The audit trail of the caller's organization, for its owners and admins.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { ValidationError } from '../core/errors.js';
import { requireUuid } from '../core/http/input.js';
import { pageParams } from '../core/http/paging.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { parseDateParam } from '../core/time.js';
import type { ActorKind } from './audit.store.js';
import { listAudit } from './audit.store.js';
import { personActor } from './request-actor.js';
import { auditEventView, type AuditEventList } from './people-views.js';

const ACTOR_KINDS: readonly ActorKind[] = ['person', 'api_key', 'admin_token', 'anonymous'];

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
   * @param limit 1–1000 (default 100)
   * @param offset default 0
   */
  @Get()
  public async listAuditEvents(
    @Request() req: ExRequest,
    @Query() action?: string,
    @Query() actor_kind?: string,
    @Query() person_id?: string,
    @Query() start_date?: string,
    @Query() end_date?: string,
    @Query() limit?: number,
    @Query() offset?: number,
  ): Promise<AuditEventList> {
    const page = pageParams(limit, offset);
    if (actor_kind !== undefined && !(ACTOR_KINDS as string[]).includes(actor_kind)) {
      throw new ValidationError('actor_kind', `must be one of ${ACTOR_KINDS.join(', ')}`);
    }
    const { rows, total } = await listAudit(appContext(req).db, {
      organizationId: personActor(req).organizationId,
      action: action ?? null,
      actorKind: (actor_kind as ActorKind | undefined) ?? null,
      personId: person_id === undefined ? null : requireUuid('person_id', person_id),
      start: parseDateParam('start_date', start_date, false),
      end: parseDateParam('end_date', end_date, false),
      ...page,
    });
    return { audit_events: rows.map(auditEventView), total, ...page };
  }
}
