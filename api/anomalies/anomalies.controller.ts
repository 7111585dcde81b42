// GET /v1/anomalies: the organization's cost spikes per UTC day, and per completed hour of today
// (end user, agent, model, feature).
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { listAnomalies } from './anomalies.service.js';
import type { AnomalyList } from './anomalies.types.js';

@Route('anomalies')
@Tags('Anomalies')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(400, 'Bad or missing dates (error.details.field names it); start_date not before end_date')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(422, 'DATE_RANGE_TOO_LARGE: the range is longer than 90 days')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class AnomaliesController extends Controller {
  /**
   * Cost spikes on each UTC date overlapping [start_date, end_date) (none after today): a series
   * (an end user, agent, model or feature) whose day cost is a multiple of its baseline (the median
   * of the same weekday over the previous 28 days), far beyond its usual variation and by at least
   * one currency unit; docs/api.md "Anomalies" gives the rule and its constants. Sorted by date,
   * then by increase (largest first); each names the top contributor of the increase in the other
   * dimensions. When the range includes today, each completed hour of today is judged by the same
   * rule against the same hour of day; a spiking hour adds an item carrying `hour` after the daily
   * items (decision 0155).
   * @summary List cost anomalies
   * @param start_date ISO 8601 date or datetime, inclusive. Must be strictly before end_date.
   * @param end_date ISO 8601 date or datetime, exclusive. At most 90 days after start_date.
   */
  @Get()
  public async getAnomalies(
    @Request() req: ExRequest,
    @Query() start_date: IsoDateParam,
    @Query() end_date: IsoDateParam,
  ): Promise<AnomalyList> {
    return listAnomalies(readContext(req), start_date, end_date);
  }
}
