// GET /v1/cost-data/*: the organization's cost summary and its breakdown by end user.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { costByEndUser, costSummary } from './cost-data.service.js';
import type { CostByEndUser, CostSummary, CostTimeWindow } from './cost-data.types.js';

@Route('cost-data')
@Tags('Cost data')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class CostDataController extends Controller {
  /**
   * Cost of completed events in a time window, compared with the previous period: calendar
   * windows with the preceding calendar period of the same kind (`current-period` = month to
   * date vs the same span of last month, `ytd` vs the same span of last year), rolling windows
   * with the preceding window of equal length. `status_counts` are organization-wide, all time.
   * @summary Compare cost with the previous period
   * @param time_window Default `current-period` (current calendar month to date); `last-period` is the previous calendar month.
   */
  @Get('summary')
  @Response<ErrorEnvelope>(400, 'Invalid time_window')
  public async getCostSummary(@Request() req: ExRequest, @Query() time_window?: CostTimeWindow): Promise<CostSummary> {
    return costSummary(readContext(req), time_window);
  }

  /**
   * Cost per end user over [start_date, end_date), every end user, costliest first; events without
   * an end user are under end_user_id `unassigned`. Items sum to total_cost.
   * @summary List end users by cost
   * @param start_date ISO 8601 date or datetime, inclusive; a date alone is UTC midnight. Must be before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive.
   */
  @Get('by-end-user')
  @Response<ErrorEnvelope>(400, 'Bad or missing dates, or start_date not before end_date')
  public async getCostByEndUser(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<CostByEndUser> {
    return costByEndUser(readContext(req), start_date, end_date);
  }
}
