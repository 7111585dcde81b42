// GET /v1/cost-data/trend and /v1/cost-data/pending-rate-card: what the console's Overview draws
// (cost over time stacked by model or provider) and warns about (models without a rate card).
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { costTrend, pendingRateCards } from './cost-trend.service.js';
import type { CostTrend, CostTrendGroupBy, PendingRateCards } from './cost-trend.types.js';

@Route('cost-data')
@Tags('Cost data')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class CostTrendController extends Controller {
  /**
   * Cost of completed events per bucket over [start_date, end_date), split by a typed event
   * column: one series per value for the `top` costliest values over the range (ties by value),
   * then an `Other` series (key `other`) adding up the rest, present only when more values exist.
   * Events without the value are `Unassigned`. Adaptive granularity; buckets without events are
   * omitted.
   * @summary Chart cost over time by event field
   * @param start_date ISO 8601 date or datetime, inclusive; a date alone is UTC midnight. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   * @param group_by Default `total` (one series, key `total`).
   * @param top Values drawn as their own series, 1 to 20; default 5.
   * @isInt top
   * @minimum top 1
   * @maximum top 20
   */
  @Get('trend')
  @Response<ErrorEnvelope>(400, 'Bad or missing dates, start_date not before end_date, bad group_by or top')
  public async getCostTrendByGroup(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() group_by?: CostTrendGroupBy,
    @Query() top?: number,
  ): Promise<CostTrend> {
    return costTrend(readContext(req), { start_date, end_date, group_by, top });
  }

  /**
   * Events in [start_date, end_date) stored as `pending_rate_card` (waiting for a rate card that
   * prices them), per model and provider, most events first. Add a rate card (or unit rate) for
   * a listed model and its events are re-priced.
   * @summary List events waiting for a rate card
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('pending-rate-card')
  @Response<ErrorEnvelope>(400, 'Bad or missing dates, or start_date not before end_date')
  public async getPendingRateCards(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<PendingRateCards> {
    return pendingRateCards(readContext(req), { start_date, end_date });
  }
}
