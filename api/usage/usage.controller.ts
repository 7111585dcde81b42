// GET /v1/usage/*: the organization's usage events, summary and aggregation.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam, TextParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { usageAggregation, usageEvents, usageSummary } from './usage.service.js';
import type { UsageAggregation, UsageEventPage, UsageSummary } from './usage.types.js';

@Route('usage')
@Tags('Usage')
@Security('api_key', ['usage:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks usage:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class UsageController extends Controller {
  /**
   * Usage events with event_timestamp in [start_date, end_date), newest first (ties by id).
   * The range may not exceed 90 days.
   * @summary List usage events
   * @param start_date ISO 8601 date or datetime, inclusive; a date alone is UTC midnight. Must be strictly before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive. At most 90 days after start_date.
   * @param subscription_id Only events accepted under this subscription of the caller's organization.
   * @param metric_name Exact match on the lowercase stored name (`tokens` for LLM calls).
   * @param limit Page size, 1 to 1000. Default 100.
   * @param offset Events to skip, 0 to 2147483647. Default 0.
   * @isInt limit must be an integer
   * @minimum limit 1
   * @maximum limit 1000
   * @isInt offset must be an integer
   * @minimum offset 0
   * @maximum offset 2147483647
   */
  @Get('events')
  @Response<ErrorEnvelope>(400, 'Bad dates, start not before end, range over 90 days, limit not in 1 to 1000, negative offset')
  @Response<ErrorEnvelope>(404, 'Subscription not found or not accessible')
  public async getUsageEvents(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() subscription_id?: TextParam,
    @Query() metric_name?: TextParam,
    @Query() limit?: number,
    @Query() offset?: number,
  ): Promise<UsageEventPage> {
    return usageEvents(readContext(req), { start_date, end_date, subscription_id, metric_name, limit, offset });
  }

  /**
   * Usage totals per metric over [start_date, end_date) for the organization; `user_id` is the
   * API key's owner.
   * @summary Summarize usage by metric
   * @param start_date ISO 8601 date or datetime, inclusive. Must be strictly before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('summary')
  @Response<ErrorEnvelope>(400, 'Bad or missing dates, or start_date not before end_date')
  public async getUsageSummary(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<UsageSummary> {
    return usageSummary(readContext(req), start_date, end_date);
  }

  /**
   * Usage aggregation per metric over [start_date, end_date): quantity, events, and the first and
   * last event time of each metric.
   * @summary Aggregate usage by metric
   * @param start_date ISO 8601 date or datetime, inclusive. Must be strictly before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   * @param subscription_id Only events accepted under this subscription of the caller's organization.
   * @param metric_name Only this metric (exact, lowercase).
   */
  @Get('aggregation')
  @Response<ErrorEnvelope>(400, 'Bad or missing dates, or start_date not before end_date')
  @Response<ErrorEnvelope>(404, 'Subscription not found or not accessible')
  public async getUsageAggregation(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
    @Query() subscription_id?: TextParam,
    @Query() metric_name?: TextParam,
  ): Promise<UsageAggregation> {
    return usageAggregation(readContext(req), { start_date, end_date, subscription_id, metric_name });
  }
}
