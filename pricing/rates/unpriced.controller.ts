// GET /v1/rates/unpriced: which models and units have events waiting for a rate card in a range,
// so an unpriced model is never a silent $0. Reads the raw events of the range (pending rows only).
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { parseDateRange } from '../../core/time.js';

export interface UnpricedItem {
  /** The event's model; null for metric events named by provider only. */
  model: string | null;
  provider: string | null;
  /** Null for LLM calls (token events). */
  metric: string | null;
  /** Null for LLM calls; for metric events the unit exactly as sent. */
  unit: string | null;
  /** Events in the range stored as `pending_rate_card` with this model, provider, metric and unit. */
  event_count: number;
  /** ISO 8601 UTC: the earliest and latest event_timestamp among them. */
  first_seen: string;
  last_seen: string;
  /** One of them (the smallest event_id), to look up with GET /usage/events/{eventId}. */
  sample_event_id: string;
  /** Why that event waits (for example the token class a card lacks). */
  sample_reason: string | null;
}

export interface UnpricedList {
  /** Most events first, ties by model, provider, metric, unit. */
  items: UnpricedItem[];
  /** Sum of event_count over items. */
  total_events: number;
  period_start: string;
  period_end: string;
}

interface UnpricedRow {
  model: string | null;
  provider: string | null;
  metric: string | null;
  unit: string | null;
  event_count: number;
  first_seen: Date;
  last_seen: Date;
  sample_event_id: string;
  sample_reason: string | null;
}

@Route('rates')
@Tags('Rates')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class UnpricedController extends Controller {
  /**
   * Models and units with events in [start_date, end_date) waiting for a rate card
   * (`pending_rate_card`): how many, first and last seen, and a sample event. Adding a card (or
   * unit rate) that prices them re-prices them.
   * @summary List unpriced models and units
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('unpriced')
  @Response<ErrorEnvelope>(400, 'Bad or missing dates, or start_date not before end_date')
  public async getUnpriced(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<UnpricedList> {
    const rc = readContext(req);
    const range = parseDateRange(start_date, end_date);
    const rows = await rc.lake.rows<UnpricedRow>(
      { organizationId: rc.organizationId, range },
      `SELECT e.model, e.provider, e.metric, e.unit, CAST(count(*) AS BIGINT) AS event_count,
              min(e.event_timestamp) AS first_seen, max(e.event_timestamp) AS last_seen,
              min(e.event_id) AS sample_event_id, arg_min(e.status_reason, e.event_id) AS sample_reason
         FROM {{events}} e
        WHERE e.organization_id = $org AND e.status = 'pending_rate_card'
          AND e.event_timestamp >= $start AND e.event_timestamp < $end
        GROUP BY 1, 2, 3, 4
        ORDER BY event_count DESC, e.model NULLS LAST, e.provider NULLS LAST, e.metric NULLS LAST, e.unit NULLS LAST`,
    );
    return {
      items: rows.map((r) => ({ ...r, first_seen: r.first_seen.toISOString(), last_seen: r.last_seen.toISOString() })),
      total_events: rows.reduce((n, r) => n + r.event_count, 0),
      period_start: range.start.toISOString(),
      period_end: range.end.toISOString(),
    };
  }
}
