// POST /v1/what-if: the organization's real history, or a scope of it, priced under a scenario
// (models substituted, rates moved, cache hits, hypothetical cards), changing nothing. Ranges are
// at most 12 months (422).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { authOf } from '../../core/http/authentication.js';
import { readContext } from '../../core/http/read-context.js';
import { simulateWhatIf } from './what-if.service.js';
import type { WhatIfRequest, WhatIfResult } from './what-if.types.js';

@Route('what-if')
@Tags('What-if')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(400, 'Bad or missing fields (error.details.field names it); start_date not before end_date')
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(
  422,
  'DATE_RANGE_TOO_LARGE: the range is longer than 12 months; NO_RATE_CARD: the scenario leaves an event it changes without a rate (error.details.field names the substitution, cards, cache_hit_rate or price_changes)',
)
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class WhatIfController extends Controller {
  /**
   * Prices the range's completed events (optionally only one end user's, agent's, workflow's,
   * feature's or dimension value's) again under a scenario of at least one change: each
   * substitution's `from_model` events moved to `to_model` (every token class × `token_ratio`,
   * rounded half-up to whole tokens); `price_changes` moving a provider's or a model's token rates
   * by a percentage; `cache_hit_rate` moving a share of input tokens to cache reads where the card
   * has a cache-read rate; `cards` used in place of the organization's cards of their slug. Pricing
   * is the processor's own, over the cards in effect at each event's timestamp. Events with a
   * cost_override keep it; events the scenario does not change keep their stored cost. Margins
   * (recognized revenue − cost) are given for end users with revenue in the range and need
   * revenue:read too: without it they are null. Nothing is stored or changed.
   * @summary Simulate a scenario over real history
   */
  @Post()
  @SuccessResponse(200, 'The actual and simulated figures')
  public async simulate(@Request() req: ExRequest, @Body() body: WhatIfRequest): Promise<WhatIfResult> {
    this.setStatus(200);
    return simulateWhatIf(readContext(req), body, authOf(req).scopes.includes('revenue:read'));
  }
}
