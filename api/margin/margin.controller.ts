// GET /v1/margin-data/*: revenue (accrual-recognized from the organization's revenue records)
// minus cost, per end user, over time, and in total. Ranges are at most 12 months (422).
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam, UuidParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { marginForEndUsers, marginSummary, marginTrendOf } from './margin.service.js';
import type { MarginByEndUser, MarginSummary, MarginTrend } from '../../revenue/margin.types.js';

@Route('margin-data')
@Tags('Margin')
@Security('api_key', ['revenue:read'])
@Response<ErrorEnvelope>(400, 'Bad or missing parameters (error.details.field names it); start_date not before end_date')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks revenue:read')
@Response<ErrorEnvelope>(422, 'DATE_RANGE_TOO_LARGE: the range is longer than 12 months')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class MarginController extends Controller {
  /**
   * Margin per end user (least profitable first: margin_amount ascending, ties by end_user_id),
   * the organization's totals and warnings about unattributed records or a missing revenue source.
   * @summary List end users by margin
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive; at most 12 months after start_date.
   */
  @Get('by-end-user')
  public async getMarginByEndUser(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<MarginByEndUser> {
    return marginForEndUsers(readContext(req), start_date, end_date);
  }

  /**
   * Revenue, cost and margin per bucket (≤ 30 days daily, 31–90 weekly, more monthly; UTC),
   * for the organization or one end user; buckets with neither revenue nor cost are omitted.
   * @summary Chart margin over time
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive; at most 12 months after start_date.
   * @param end_user_id The internal end-user UUID from /margin-data/by-end-user.
   */
  @Get('trend')
  public async getMarginTrend(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() end_user_id?: UuidParam,
  ): Promise<MarginTrend> {
    return marginTrendOf(readContext(req), { start_date, end_date, end_user_id });
  }

  /**
   * The organization's margin over the range: the `org_total` of /margin-data/by-end-user alone.
   * @summary Retrieve the organization's margin
   * @param start_date ISO 8601 date or datetime, inclusive. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive; at most 12 months after start_date.
   */
  @Get('summary')
  public async getMarginSummary(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<MarginSummary> {
    return marginSummary(readContext(req), start_date, end_date);
  }
}
