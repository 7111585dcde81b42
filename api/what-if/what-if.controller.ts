// POST /v1/what-if: the organization's real history priced under a scenario (models substituted,
// token counts scaled), changing nothing. Ranges are at most 12 months (422).
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
  'DATE_RANGE_TOO_LARGE: the range is longer than 12 months; NO_RATE_CARD: a to_model has no rate card pricing the events moved to it (error.details.field names the substitution)',
)
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class WhatIfController extends Controller {
  /**
   * Prices the range's completed events again with each substitution's `from_model` events moved to
   * `to_model` (every token class × `token_ratio`, rounded half-up to whole tokens) by the
   * processor's pricing and the organization's cards in effect at each event's timestamp. Events
   * with a cost_override keep it; other models keep their stored cost. Margins (recognized revenue −
   * cost) are given for end users with revenue in the range and need revenue:read too: without it
   * they are null. Nothing is stored or changed.
   * @summary Simulate a model substitution
   */
  @Post()
  @SuccessResponse(200, 'The actual and simulated figures')
  public async simulate(@Request() req: ExRequest, @Body() body: WhatIfRequest): Promise<WhatIfResult> {
    this.setStatus(200);
    return simulateWhatIf(readContext(req), body, authOf(req).scopes.includes('revenue:read'));
  }
}
