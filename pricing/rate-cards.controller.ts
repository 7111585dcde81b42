// Admin: an organization's token rate cards, with the rate estimation table's field names. A card
// replaces the standard card of the same slug; the one in effect at an event's timestamp prices it.
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import { ALWAYS, createRateCard, listRateCards } from './rate-cards.store.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { parseDateParam } from '../core/time.js';
import { parseNullableRate, parseRate, requireText } from '../api/admin/admin-input.js';
import { rateCardView, type RateCardList, type RateCardView } from '../api/admin/admin-views.js';

/** USD per million tokens: a decimal string ("3", "0.075") or a JSON number, >= 0. */
export type Rate = string | number;

export interface CreateRateCardBody {
  /**
   * Model name prefix, lowercased; a model matches the longest slug that prefixes it.
   * @minLength 1 must not be empty
   * @maxLength 255 must be at most 255 characters
   */
  model_slug: string;
  input_cost_per_million: Rate;
  output_cost_per_million: Rate;
  /** Null or absent: cache-creation tokens cannot be priced by this card. */
  cache_creation_cost_per_million?: Rate | null;
  /** Null or absent: cache-read tokens cannot be priced by this card. */
  cache_read_cost_per_million?: Rate | null;
  /** Null or absent: reasoning tokens cannot be priced by this card. */
  reasoning_cost_per_million?: Rate | null;
  /**
   * ISO 8601 date (UTC midnight) or date-time (UTC unless an offset is given) from which the
   * card applies. Absent: always (it also prices events already waiting for a rate card).
   */
  effective_from?: string;
}

@Route('admin/organizations')
@Tags('Admin: rate cards')
@Security('admin')
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class RateCardsController extends Controller {
  /** Adds a token rate card. Rates are kept exactly as decimal strings. */
  @Post('{organizationId}/rate-cards')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  @Response<ErrorEnvelope>(409, 'A card for this model_slug and effective_from exists')
  public async createRateCard(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateRateCardBody,
  ): Promise<RateCardView> {
    const input = {
      modelSlug: requireText('model_slug', body.model_slug, 255).toLowerCase(),
      inputCostPerMillion: parseRate('input_cost_per_million', body.input_cost_per_million),
      outputCostPerMillion: parseRate('output_cost_per_million', body.output_cost_per_million),
      cacheCreationCostPerMillion: parseNullableRate('cache_creation_cost_per_million', body.cache_creation_cost_per_million),
      cacheReadCostPerMillion: parseNullableRate('cache_read_cost_per_million', body.cache_read_cost_per_million),
      reasoningCostPerMillion: parseNullableRate('reasoning_cost_per_million', body.reasoning_cost_per_million),
      effectiveFrom: body.effective_from === undefined ? ALWAYS : (parseDateParam('effective_from', body.effective_from) as Date),
    };
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const card = await createRateCard(db, organizationId, input);
    this.setStatus(201);
    return rateCardView(card);
  }

  /** The organization's own cards (not the standard ones), by model_slug then effective_from. */
  @Get('{organizationId}/rate-cards')
  public async listRateCards(@Request() req: ExRequest, @Path() organizationId: string): Promise<RateCardList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const cards = await listRateCards(db, organizationId);
    return { rate_cards: cards.map(rateCardView), total: cards.length };
  }
}
