// The Rates page's tier table from the rate estimation table: one row per long-context tier and per
// other service tier (batch, flex, priority…) with its own tiers, so every rate that can price an
// event is on screen. Pure; rates stay the API's decimal strings.
import type { RateItem } from '../../api/types.js';

/** A card's (or a tier's) rates per token class: the Rates page's columns. */
export type Rates = Pick<
  RateItem,
  | 'input_cost_per_million'
  | 'output_cost_per_million'
  | 'cache_creation_cost_per_million'
  | 'cache_read_cost_per_million'
  | 'reasoning_cost_per_million'
> & { cache_creation_1h_cost_per_million?: string | null };

export interface TierRow extends Rates {
  /** `<slug>|<service tier>|<threshold or "base">`: stable, for tests and links. */
  id: string;
  model_slug: string;
  service_tier: string;
  /** Null on a service tier's base rates (any prompt size up to its first context tier). */
  above_prompt_tokens: number | null;
}

const ratesOf = (r: Rates): Rates => ({
  input_cost_per_million: r.input_cost_per_million,
  output_cost_per_million: r.output_cost_per_million,
  cache_creation_cost_per_million: r.cache_creation_cost_per_million,
  cache_creation_1h_cost_per_million: r.cache_creation_1h_cost_per_million ?? null,
  cache_read_cost_per_million: r.cache_read_cost_per_million,
  reasoning_cost_per_million: r.reasoning_cost_per_million,
});

function rowsOf(slug: string, serviceTier: string, base: Rates | null, tiers: NonNullable<RateItem['tiers']>): TierRow[] {
  const row = (above: number | null, r: Rates): TierRow => ({
    id: `${slug}|${serviceTier}|${above ?? 'base'}`,
    model_slug: slug,
    service_tier: serviceTier,
    above_prompt_tokens: above,
    ...ratesOf(r),
  });
  return [
    ...(base ? [row(null, base)] : []),
    ...[...tiers].sort((a, b) => a.above_prompt_tokens - b.above_prompt_tokens).map((t) => row(t.above_prompt_tokens, t)),
  ];
}

/**
 * Rows of the tier table: a slug's standard context tiers (its base rates are in the main table),
 * then each other service tier's base rates and context tiers. Slugs without either are left out.
 */
export function tierRows(items: readonly RateItem[]): TierRow[] {
  return items.flatMap((item) => [
    ...rowsOf(item.model_slug, 'standard', null, item.tiers ?? []),
    ...(item.service_tiers ?? []).flatMap((s) => rowsOf(item.model_slug, s.service_tier, s, s.tiers ?? [])),
  ]);
}

/** The main table's summary of a slug's tiers: "above 200,000 · batch", or "" when it has none. */
export function tierSummary(item: RateItem): string {
  return [
    ...(item.tiers ?? []).map((t) => `above ${t.above_prompt_tokens.toLocaleString('en-US')}`),
    ...(item.service_tiers ?? []).map((s) => s.service_tier),
  ].join(' · ');
}
