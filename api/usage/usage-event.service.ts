// GET /v1/usage/events/{eventId}: finds one event of the caller's organization in the lake (every
// date: an id carries no time) and shows it with its cost breakdown and the card that priced it.
// An id of another organization, or one not yet processed, is 404 like an unknown one.
import { NotFoundError } from '../../core/errors.js';
import type { EventCosts, LakeEventRow, PricingProvenance } from '../../core/lake/events-schema.js';
import { isUuid } from '../../core/ids.js';
import { formatMoney } from '../../core/money.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { usageEventItem, type StoredUsageEvent } from './usage.js';
import type { UsageEventDetail } from './usage-event.types.js';

/** The event's lake row as the query reads it (the lake's own column types; metadata still JSON text). */
type StoredEventDetail = StoredUsageEvent &
  EventCosts &
  PricingProvenance &
  Pick<
    LakeEventRow,
    | 'status'
    | 'status_reason'
    | 'flag_reason'
    | 'model'
    | 'service_tier'
    | 'user_id'
    | 'cache_creation_input_tokens'
    | 'cache_creation_1h_input_tokens'
    | 'cache_read_input_tokens'
    | 'reasoning_tokens'
    | 'cost_override'
    | 'rate_card_slug'
    | 'priced_at'
  >;

const money = (v: string | null): string | null => (v === null ? null : formatMoney(v));

export async function usageEventDetail(rc: ReadContext, eventId: string): Promise<UsageEventDetail> {
  if (!isUuid(eventId)) throw new NotFoundError('usage event', eventId);
  const e = await rc.lake.row<StoredEventDetail>(
    { organizationId: rc.organizationId },
    `SELECT e.* FROM {{events}} e WHERE e.organization_id = $org AND e.event_id = $event_id LIMIT 1`,
    { event_id: eventId.toLowerCase() },
  );
  if (!e) throw new NotFoundError('usage event', eventId);
  return {
    ...usageEventItem(e),
    status: e.status,
    status_reason: e.status_reason,
    flag_reason: e.flag_reason,
    pricing_note: e.pricing_note ?? null,
    model: e.model,
    provider: e.provider,
    service_tier: e.service_tier ?? null,
    user_id: e.user_id,
    input_tokens: e.input_tokens,
    output_tokens: e.output_tokens,
    cache_creation_input_tokens: e.cache_creation_input_tokens,
    cache_creation_1h_input_tokens: e.cache_creation_1h_input_tokens ?? null,
    cache_read_input_tokens: e.cache_read_input_tokens,
    reasoning_tokens: e.reasoning_tokens,
    cost: {
      total_cost: formatMoney(e.total_cost),
      input_cost: money(e.input_cost),
      output_cost: money(e.output_cost),
      cache_creation_cost: money(e.cache_creation_cost),
      cache_creation_1h_cost: money(e.cache_creation_1h_cost ?? null),
      cache_read_cost: money(e.cache_read_cost),
      reasoning_cost: money(e.reasoning_cost),
      unit_cost: money(e.unit_cost),
      cost_override: money(e.cost_override),
    },
    rate_card:
      e.rate_card_id && e.rate_card_slug && e.rate_card_effective_from
        ? {
            rate_card_id: e.rate_card_id,
            model_slug: e.rate_card_slug,
            service_tier: e.rate_card_service_tier ?? 'standard',
            effective_from: e.rate_card_effective_from.toISOString(),
            context_tier_above_prompt_tokens: e.context_tier_above_prompt_tokens ?? null,
            time_of_day_window: e.time_of_day_window ?? null,
          }
        : null,
    priced_at: e.priced_at.toISOString(),
  };
}
