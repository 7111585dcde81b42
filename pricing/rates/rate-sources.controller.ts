// GET /v1/rates/own: which model slugs of the rate estimation table come from the organization's
// own rate cards (they replace the standard card of the same slug wholesale), so a client can mark
// them; /rates itself keeps the spec's item shape.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ErrorEnvelope } from '../../core/http/error-envelope.js';
import { readContext } from '../../core/http/read-context.js';

export interface OwnRateCardSlugs {
  /** Lowercase model slugs priced by the organization's own cards, sorted. */
  model_slugs: string[];
}

@Route('rates')
@Tags('Rates')
@Security('api_key', ['costs:read'])
@Response<ErrorEnvelope>(401, 'Missing or invalid API key')
@Response<ErrorEnvelope>(403, 'The key lacks costs:read')
@Response<ErrorEnvelope>(429, 'Rate limit exceeded (general tier); see RateLimit-* and Retry-After')
export class RateSourcesController extends Controller {
  /**
   * Model slugs whose rates come from the organization's own cards rather than the standard ones.
   * @summary List models priced by own cards
   */
  @Get('own')
  public async getOwnRateCardSlugs(@Request() req: ExRequest): Promise<OwnRateCardSlugs> {
    const rc = readContext(req);
    const cards = await rc.rateBook.cardsFor(rc.organizationId);
    const slugs = new Set(cards.filter((c) => c.source === 'organization').map((c) => c.model_slug.toLowerCase()));
    return { model_slugs: [...slugs].sort() };
  }
}
