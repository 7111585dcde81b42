// Admin: an organization's token rate cards, with the rate estimation table's field names. A card
// replaces the standard card of the same slug; the one in effect at an event's timestamp prices it.
// A card posted with a current card's identity supersedes it (kept as history); the answer names
// the range the write re-prices and the re-pricing call for it. Path of a correction: this POST →
// rate_cards (supersede + insert) and the organization's rates_version bump, one transaction →
// every process's RateBook (ingest, processor, api) re-reads the version at most once a second and
// reloads the current cards when it moved → POST …/repricings rewrites the range's stored costs
// (processor/repricing-jobs.ts waits until its RateBook has the version the job was asked at).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { requireOrganization } from '../core/control/organizations.js';
import { ADMIN_TOKEN_ACTOR, ALWAYS, listRateCards, writeRateCard } from './rate-cards.store.js';
import { rateCardCorrectionView, type RateCardCorrectionView } from './rate-card-correction.js';
import { ValidationError } from '../core/errors.js';
import { STANDARD_SERVICE_TIER, type ContextTier, type TimeWindow } from './pricing.types.js';
import { layOutTimeWindows } from './time-windows.js';
import { auditChange, requestActor } from '../core/http/audit-trail.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { parseDateParam } from '../core/time.js';
import { parseNullableRate, parseRate, requireText } from '../core/http/input.js';
import { rateCardView, type RateCardList, type RateCardView } from './rate-card-views.js';

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
  /** One-hour cache writes (events' `cache_creation_1h_input_tokens`). Null or absent: they cannot be priced by this card. */
  cache_creation_1h_cost_per_million?: Rate | null;
  /**
   * The provider service tier this card prices (`batch`, `flex`, `priority`…), lowercased; part
   * of the card's identity with model_slug and effective_from. Absent: `standard`.
   * @minLength 1 must not be empty
   * @maxLength 64 must be at most 64 characters
   * @pattern ^[A-Za-z0-9][A-Za-z0-9_.-]*$ must be letters, digits, "_", "-" or "."
   */
  service_tier?: string;
  /**
   * Long-context tiers: a request whose prompt (input + cache read + cache creation tokens) is
   * above a tier's `above_prompt_tokens` has every class priced at that tier's rates (the highest
   * such tier). At most 16, distinct thresholds.
   * @maxItems 16 at most 16 tiers
   */
  tiers?: ContextTierBody[];
  /**
   * Time-of-day windows in UTC (an off-peak discount, say): an event whose timestamp falls in one
   * has every class priced at that window's rates, and records the window's name. Windows may not
   * overlap; a card has windows or context tiers, not both. At most 32.
   * @maxItems 32 at most 32 windows
   */
  time_of_day_windows?: TimeWindowBody[];
  /**
   * ISO 8601 date (UTC midnight) or date-time (UTC unless an offset is given) from which the
   * card applies. Absent: always (it also prices events already waiting for a rate card).
   */
  effective_from?: string;
}

/** A written card, with what it superseded and the re-pricing it calls for. */
export interface RateCardWriteView extends RateCardView, RateCardCorrectionView {}

/** One long-context tier of a rate card; rates as on the card. */
export interface ContextTierBody {
  /**
   * @isLong
   * @minimum 0
   */
  above_prompt_tokens: number;
  input_cost_per_million: Rate;
  output_cost_per_million: Rate;
  cache_creation_cost_per_million?: Rate | null;
  cache_creation_1h_cost_per_million?: Rate | null;
  cache_read_cost_per_million?: Rate | null;
  reasoning_cost_per_million?: Rate | null;
}

/** One time-of-day window of a rate card; rates as on the card. */
export interface TimeWindowBody {
  /**
   * Recorded on every event the window prices (`off-peak`, say).
   * @minLength 1 must not be empty
   * @maxLength 64 must be at most 64 characters
   */
  name: string;
  /** ISO weekdays (1 = Monday … 7 = Sunday, UTC) the window starts on. Absent: every day. */
  days?: number[];
  /** UTC time of day the window starts, HH:MM (inclusive). */
  start_utc: string;
  /**
   * UTC time of day it ends, HH:MM (exclusive). Before start_utc: the window runs past midnight
   * into the next day; equal to start_utc: the whole day.
   */
  end_utc: string;
  input_cost_per_million: Rate;
  output_cost_per_million: Rate;
  cache_creation_cost_per_million?: Rate | null;
  cache_creation_1h_cost_per_million?: Rate | null;
  cache_read_cost_per_million?: Rate | null;
  reasoning_cost_per_million?: Rate | null;
}

function parseTimeWindows(windows: TimeWindowBody[] | undefined, tiers: ContextTier[]): TimeWindow[] {
  const parsed = (windows ?? []).map((w, i): TimeWindow => {
    const at = `time_of_day_windows[${i}]`;
    return {
      name: requireText(`${at}.name`, w.name, 64),
      ...(w.days === undefined ? {} : { days: [...w.days].sort((a, b) => a - b) }),
      start_utc: w.start_utc,
      end_utc: w.end_utc,
      input_cost_per_million: parseRate(`${at}.input_cost_per_million`, w.input_cost_per_million),
      output_cost_per_million: parseRate(`${at}.output_cost_per_million`, w.output_cost_per_million),
      cache_creation_cost_per_million: parseNullableRate(`${at}.cache_creation_cost_per_million`, w.cache_creation_cost_per_million),
      cache_creation_1h_cost_per_million: parseNullableRate(
        `${at}.cache_creation_1h_cost_per_million`,
        w.cache_creation_1h_cost_per_million,
      ),
      cache_read_cost_per_million: parseNullableRate(`${at}.cache_read_cost_per_million`, w.cache_read_cost_per_million),
      reasoning_cost_per_million: parseNullableRate(`${at}.reasoning_cost_per_million`, w.reasoning_cost_per_million),
    };
  });
  if (parsed.length > 0 && tiers.length > 0)
    throw new ValidationError('time_of_day_windows', 'a card has context tiers or time windows, not both');
  layOutTimeWindows(parsed, 'time_of_day_windows', (field, message) => new ValidationError(field, message));
  return parsed;
}

function parseTiers(tiers: ContextTierBody[] | undefined): ContextTier[] {
  const parsed = (tiers ?? []).map((t, i): ContextTier => {
    const at = `tiers[${i}]`;
    if (!Number.isSafeInteger(t.above_prompt_tokens) || t.above_prompt_tokens < 0) {
      throw new ValidationError(`${at}.above_prompt_tokens`, 'must be a non-negative integer');
    }
    return {
      above_prompt_tokens: t.above_prompt_tokens,
      input_cost_per_million: parseRate(`${at}.input_cost_per_million`, t.input_cost_per_million),
      output_cost_per_million: parseRate(`${at}.output_cost_per_million`, t.output_cost_per_million),
      cache_creation_cost_per_million: parseNullableRate(`${at}.cache_creation_cost_per_million`, t.cache_creation_cost_per_million),
      cache_creation_1h_cost_per_million: parseNullableRate(
        `${at}.cache_creation_1h_cost_per_million`,
        t.cache_creation_1h_cost_per_million,
      ),
      cache_read_cost_per_million: parseNullableRate(`${at}.cache_read_cost_per_million`, t.cache_read_cost_per_million),
      reasoning_cost_per_million: parseNullableRate(`${at}.reasoning_cost_per_million`, t.reasoning_cost_per_million),
    };
  });
  parsed.sort((a, b) => a.above_prompt_tokens - b.above_prompt_tokens);
  parsed.forEach((t, i) => {
    if (i > 0 && t.above_prompt_tokens === parsed[i - 1]!.above_prompt_tokens) {
      throw new ValidationError('tiers', `two tiers above ${t.above_prompt_tokens} prompt tokens`);
    }
  });
  return parsed;
}

@Route('admin/organizations')
@Tags('Admin: rate cards')
@Security('admin', ['organization:admin'])
@Response<ErrorEnvelope>(400, 'Invalid parameter or body; error.details.field names it')
@Response<ErrorEnvelope>(401, 'Missing or invalid admin token (or session)')
@Response<ErrorEnvelope>(403, 'A session of a person who is not an owner or admin of this organization, or without X-CSRF-Token on a write')
@Response<ErrorEnvelope>(404, 'Unknown organization')
export class RateCardsController extends Controller {
  /**
   * Adds a token rate card. Rates are kept exactly as decimal strings. A card with the
   * model_slug, service_tier and effective_from of a current card supersedes it: the earlier one
   * stays in the history (`?include_superseded=true`) and stops pricing events. Events already
   * priced keep their cost until re-priced: the answer names the affected range and the
   * re-pricing call for it.
   * @summary Add or correct a token rate card
   */
  @Post('{organizationId}/rate-cards')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
  public async createRateCard(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Body() body: CreateRateCardBody,
  ): Promise<RateCardWriteView> {
    const tiers = parseTiers(body.tiers);
    const input = {
      modelSlug: requireText('model_slug', body.model_slug, 255).toLowerCase(),
      inputCostPerMillion: parseRate('input_cost_per_million', body.input_cost_per_million),
      outputCostPerMillion: parseRate('output_cost_per_million', body.output_cost_per_million),
      cacheCreationCostPerMillion: parseNullableRate('cache_creation_cost_per_million', body.cache_creation_cost_per_million),
      cacheReadCostPerMillion: parseNullableRate('cache_read_cost_per_million', body.cache_read_cost_per_million),
      reasoningCostPerMillion: parseNullableRate('reasoning_cost_per_million', body.reasoning_cost_per_million),
      cacheCreation1hCostPerMillion: parseNullableRate('cache_creation_1h_cost_per_million', body.cache_creation_1h_cost_per_million),
      serviceTier:
        body.service_tier === undefined ? STANDARD_SERVICE_TIER : requireText('service_tier', body.service_tier, 64).toLowerCase(),
      tiers,
      timeWindows: parseTimeWindows(body.time_of_day_windows, tiers),
      effectiveFrom: body.effective_from === undefined ? ALWAYS : (parseDateParam('effective_from', body.effective_from) as Date),
    };
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const actor = requestActor(req);
    const write = await writeRateCard(
      db,
      organizationId,
      input,
      actor.kind === 'person' ? { kind: 'user', userId: actor.id! } : ADMIN_TOKEN_ACTOR,
    );
    await auditChange(req, {
      organizationId,
      action: write.superseded ? 'rate_card.corrected' : 'rate_card.created',
      ...(write.superseded ? { before: rateCardView(write.superseded) } : {}),
      after: rateCardView(write.card),
    });
    this.setStatus(201);
    return { ...rateCardView(write.card), ...rateCardCorrectionView(organizationId, write) };
  }

  /**
   * The organization's own cards (not the standard ones), by model_slug, service_tier, then
   * effective_from: the current ones, or with include_superseded=true the history too (each
   * identity's cards oldest first; superseded ones carry superseded_at and superseded_by).
   * @summary List rate cards
   * @param include_superseded Also list superseded cards. Default false.
   */
  @Get('{organizationId}/rate-cards')
  public async listRateCards(
    @Request() req: ExRequest,
    @Path() organizationId: string,
    @Query() include_superseded?: boolean,
  ): Promise<RateCardList> {
    const { db } = appContext(req);
    await requireOrganization(db, organizationId);
    const cards = await listRateCards(db, organizationId, { includeSuperseded: include_superseded === true });
    return { rate_cards: cards.map(rateCardView), total: cards.length };
  }
}
