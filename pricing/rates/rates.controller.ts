// GET /v1/rates: the rate estimation table (USD per million tokens per token class).
import type { Request as ExRequest } from 'express';
import { Controller, Get, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { IsoDateParam } from '../../core/http/params.js';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';
import { rateTable } from './rates.service.js';
import type { RateEstimationTableView } from './rates.types.js';

@Route('rates')
@Tags('Rates')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class RatesController extends Controller {
  /**
   * The token rate cards that price the organization's events, one per model slug, sorted by
   * model_slug; all rates are USD per million tokens as decimal strings.
   * @summary List the rates in effect
   * @param as_of ISO 8601 date or datetime; the cards in effect then. Default now.
   */
  @Get()
  @Response<ErrorEnvelope>(400, 'as_of is not an ISO 8601 date or datetime')
  public async getRates(@Request() req: ExRequest, @Query() as_of?: IsoDateParam): Promise<RateEstimationTableView> {
    return rateTable(readContext(req), as_of);
  }
}
