// GET /v1/forecasts: month-end or next-30-days cost, revenue and margin with intervals, for the
// organization and per end user; GET /v1/forecasts/price-advice: per customer, the price per
// billing period that reaches a target margin under the forecast cost.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { authOf } from '../../core/http/authentication.js';
import { readContext } from '../../core/http/read-context.js';
import { forecastOf, priceAdviceOf } from './forecasts.service.js';
import type { Forecast, ForecastHorizon, PriceAdviceList } from './forecasts.types.js';

@Route('forecasts')
@Tags('Forecasts')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class ForecastsController extends Controller {
  /**
   * Cost, revenue and margin at the end of the horizon's window, each with an 80% interval, for
   * the organization and each end user. Cost already spent in the window is exact; the rest of
   * the window is forecast from the last 56 complete UTC days by a robust trend with day-of-week
   * factors (docs/api.md "Forecasts" gives the method). Revenue is what the billing periods
   * already known recognize in the window; revenue and margins need revenue:read too (null
   * without it, and per end user without revenue in the window).
   * @summary Forecast cost, revenue and margin
   * @param horizon `month-end` (default): the current UTC calendar month; `next-30-days`: today and the 29 UTC days after it.
   */
  @Get()
  @Security('api_key', ['costs:read'])
  @Response<ErrorEnvelope>(400, 'Bad horizon (error.details.field names it)')
  @Response<ErrorEnvelope>(403, 'The key lacks costs:read')
  public async getForecast(@Request() req: ExRequest, @Query() horizon?: ForecastHorizon): Promise<Forecast> {
    return forecastOf(readContext(req), horizon, authOf(req).scopes.includes('revenue:read'));
  }

  /**
   * For each customer (an end user whose revenue records have a billing period covering now), the
   * price per billing period that reaches the target margin under the forecast cost of that
   * period (cost so far plus the forecast of its remaining days), rounded up to the cent, and
   * whether the current price reaches it. Customers whose plan misses the target come first.
   * @summary Advise prices for a target margin
   * @param target_margin_percent The margin to reach, in percent of the price: 0 up to (not including) 100; default 40.
   * @minimum target_margin_percent 0
   * @maximum target_margin_percent 99.99
   */
  @Get('price-advice')
  @Security('api_key', ['costs:read', 'revenue:read'])
  @Response<ErrorEnvelope>(400, 'Bad target_margin_percent (error.details.field names it)')
  @Response<ErrorEnvelope>(403, 'The key lacks costs:read or revenue:read')
  public async getPriceAdvice(@Request() req: ExRequest, @Query() target_margin_percent?: number): Promise<PriceAdviceList> {
    return priceAdviceOf(readContext(req), target_margin_percent);
  }
}
