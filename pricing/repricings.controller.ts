// Admin: re-price an organization's events over a range with the cards in effect now, and read
// the job back (progress while it runs, the result once done). The work itself is done by the
// processors that own the partitions (processor/repricing-jobs.ts); this only records the ask,
// with the lake partitions holding the range's events and how many events there are.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext, service } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import { auditChange } from '../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { parseDateRange } from '../core/time.js';
import { getRatesVersion } from './rate-cards.store.js';
import { createRepricing, getRepricing, listRepricings } from './repricings.store.js';
import { repricingView, type RepricingList, type RepricingView } from './repricing-view.js';

export interface CreateRepricingBody {
  /** ISO 8601 date or date-time, inclusive: events with event_timestamp from here… */
  start_date: string;
  /** …to here, exclusive. */
  end_date: string;
}

interface LakeSpan {
  events: number;
  partitions: string | null;
}

@Route('admin/organizations')
@Tags('Admin: re-pricing')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization or re-pricing')
export class RepricingsController extends Controller {
  /**
   * Re-prices the organization's events with event_timestamp in [start_date, end_date) with the
   * rate cards in effect now (each event at the card in effect at its own timestamp): every
   * completed or waiting event's cost is replaced, never added to. Answers at once; read
   * progress and the result back with GET.
   * @summary Start a re-pricing
   */
  @Post('{organizationId}/repricings')
  @SuccessResponse(202, 'Accepted')
  public async createRepricing(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateRepricingBody,
  ): Promise<RepricingView> {
    const range = parseDateRange(body.start_date, body.end_date);
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const ratesVersion = (await getRatesVersion(db, organizationId)) ?? 0;
    const span = await service(req, 'lakeQuery').row<LakeSpan>(
      { organizationId, range },
      `SELECT CAST(count(*) AS BIGINT) AS events, string_agg(DISTINCT CAST(e.kafka_partition AS VARCHAR), ',') AS partitions
         FROM {{events}} e
        WHERE e.organization_id = $org AND e.status <> 'failed' AND e.event_timestamp >= $start AND e.event_timestamp < $end`,
    );
    const partitions = span?.partitions ? span.partitions.split(',').map(Number) : [];
    const job = await createRepricing(db, organizationId, {
      start: range.start,
      end: range.end,
      ratesVersion,
      partitions,
      eventsTotal: span?.events ?? 0,
    });
    const view = repricingView(job);
    await auditChange(req, { organizationId, action: 'repricing.created', after: view });
    this.setStatus(202);
    return view;
  }

  /**
   * The organization's re-pricings, newest first.
   * @summary List re-pricings
   */
  @Get('{organizationId}/repricings')
  public async listRepricings(@Request() req: ExRequest, @Path() organizationId: string): Promise<RepricingList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const jobs = await listRepricings(db, organizationId);
    return { repricings: jobs.map(repricingView), total: jobs.length };
  }

  /**
   * One re-pricing: its progress while it runs, its result once completed.
   * @summary Retrieve a re-pricing
   */
  @Get('{organizationId}/repricings/{repricingId}')
  public async getRepricing(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Path() repricingId: string,
  ): Promise<RepricingView> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    return repricingView(await getRepricing(db, organizationId, repricingId));
  }
}
