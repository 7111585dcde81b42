// `prices check`: every current standard card against two independent catalogs, the pinned
// @pydantic/genai-prices package and LiteLLM's model cost map (a committed snapshot,
// litellm-cost-map.json), class by class, context tier by tier and hour by hour of one UTC week
// (so time-of-day windows are compared wherever either side has them). Pure: catalogs, cards and
// the exceptions file in, disagreements out; scripts/cli/prices.ts reads the files.
//
// Which card: per slug (standard service tier), the latest card in effect at `asOf`. Which catalog
// model: genai-prices' own match logic on the slug (so an undated or `-latest` alias resolves to the
// dated model the package says it points at), unless the check's file names the dated model an
// alias points at (where the package's match is stale); in LiteLLM the first key found of that
// dated id and the slug, bare or under the provider's prefix. A class is compared only where the catalog states
// it. A disagreement is explained when an entry of the exceptions file names its slug, source and,
// optionally, field (a trailing `*` matches a prefix in either).
import { Big } from '../../core/money.js';
import { buildTokenRateIndex, type TokenRates, windowAt } from '../rate-card-match.js';
import type { StandardRateCardEntry } from '../pricing.types.js';
import { parseStandardRateCardFile } from '../standard-rate-cards.js';
import { type CatalogModel, matchesName, type PriceValue } from './catalog.js';

type CatalogSource = 'genai-prices' | 'litellm';
type RateClass = 'input' | 'output' | 'cache_read' | 'cache_creation' | 'cache_creation_1h' | 'reasoning';
/** A catalog's statement at one instant: its rate per class (USD per million) where it states one, and per tier threshold. */
type Stated = { base: Partial<Record<RateClass, Big>>; tiers: Map<number, Partial<Record<RateClass, Big>>> };

interface LiteLlmEntry {
  litellm_provider: string;
  off_peak_pricing?: { windows: { hours_utc: string | string[]; weekdays: number[] }[] } & Record<string, unknown>;
  [key: string]: unknown;
}
export interface LiteLlmSnapshot {
  version: string;
  retrieved: string;
  models: Record<string, LiteLlmEntry>;
}
/** An alias (`-latest`, an undated name) and the dated model it points at, since when. */
export interface PriceCheckAlias {
  model_slug: string;
  points_at: string;
  since: string;
  source: string;
}
export interface PriceCheckException {
  model_slug: string;
  source: CatalogSource;
  field?: string;
  reason: string;
}
interface Disagreement {
  model_slug: string;
  provider: string;
  /** The card compared (its effective_from) and the catalog model it resolved to. */
  effective_from: string;
  source: CatalogSource;
  catalog_model: string;
  /** `input`, `tiers>200000.output`… */
  field: string;
  ours: string | null;
  theirs: string;
  /** Hours of the sampled UTC week (of 168) at which the two differ, and the first of them. */
  hours: number;
  first_at: string;
  source_of_ours: string;
  source_date_of_ours: string;
  explained_by?: string;
}
export interface PriceCheckReport {
  as_of: string;
  cards_checked: number;
  /** Slug → catalog model per source; absent when the catalog does not list the model. */
  resolved: Record<string, Partial<Record<CatalogSource, string>>>;
  disagreements: Disagreement[];
  unexplained: number;
  /** Exceptions that no longer match any disagreement (stale; remove them). */
  unused_exceptions: PriceCheckException[];
}

const MTOK = new Big(1_000_000);
const perMillion = (v: unknown): Big | undefined => (typeof v === 'number' ? new Big(String(v)).times(MTOK) : undefined);
const LITELLM_PREFIX: Record<string, string[]> = {
  google: ['gemini/'],
  xai: ['xai/'],
  deepseek: ['deepseek/'],
  mistral: ['mistral/'],
  groq: ['groq/'],
};

// ---------------------------------------------------------------------------------------------
// What each side states at an instant

const GENAI_KEYS: Record<string, RateClass> = {
  input_mtok: 'input',
  output_mtok: 'output',
  cache_read_mtok: 'cache_read',
  cache_write_mtok: 'cache_creation',
  cache_write_1h_mtok: 'cache_creation_1h',
  output_reasoning_mtok: 'reasoning',
};

/** The package's own rule: conditional prices tried last to first, the first entry the default. */
function genaiPricesAt(model: CatalogModel, at: Date): Record<string, PriceValue> {
  if (!Array.isArray(model.prices)) return model.prices;
  const seconds = (at.getTime() % 86_400_000) / 1000;
  const clock = (t: string) => Number(t.slice(0, 2)) * 3600 + Number(t.slice(3, 5)) * 60 + Number(t.slice(6, 8));
  for (let i = model.prices.length - 1; i >= 0; i--) {
    const { constraint, prices } = model.prices[i]!;
    if (!constraint) return prices;
    if (constraint.type === 'start_date' && at >= new Date(constraint.start_date!)) return prices;
    if (constraint.type === 'time_of_date') {
      const [s, e] = [clock(constraint.start_time!), clock(constraint.end_time!)];
      if (e < s ? seconds >= s || seconds < e : seconds >= s && seconds < e) return prices;
    }
  }
  return model.prices[0]!.prices;
}

function genaiStated(model: CatalogModel, at: Date): Stated {
  const stated: Stated = { base: {}, tiers: new Map() };
  for (const [key, value] of Object.entries(genaiPricesAt(model, at))) {
    const cls = GENAI_KEYS[key];
    if (!cls || value === undefined) continue;
    if (typeof value === 'number') {
      stated.base[cls] = new Big(String(value));
      continue;
    }
    stated.base[cls] = new Big(String(value.base));
    for (const t of value.tiers) {
      const tier = stated.tiers.get(t.start) ?? {};
      tier[cls] = new Big(String(t.price));
      stated.tiers.set(t.start, tier);
    }
  }
  return stated;
}

const LITELLM_KEY =
  /^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost|cache_creation_input_token_cost_above_1hr|output_cost_per_reasoning_token)(?:_above_(\d+)k_tokens)?$/;
const LITELLM_CLASS: Record<string, RateClass> = {
  input_cost_per_token: 'input',
  output_cost_per_token: 'output',
  cache_read_input_token_cost: 'cache_read',
  cache_creation_input_token_cost: 'cache_creation',
  cache_creation_input_token_cost_above_1hr: 'cache_creation_1h',
  output_cost_per_reasoning_token: 'reasoning',
};

/** Whether a LiteLLM off-peak window list ("HH:MM-HH:MM", ISO weekdays, UTC; an end of 00:00 is midnight) covers `at`. */
function inOffPeak(windows: { hours_utc: string | string[]; weekdays: number[] }[], at: Date): boolean {
  const weekday = ((at.getUTCDay() + 6) % 7) + 1;
  const minute = at.getUTCHours() * 60 + at.getUTCMinutes();
  return windows.some(
    (w) =>
      w.weekdays.includes(weekday) &&
      [w.hours_utc].flat().some((range) => {
        const [s, e] = range.split('-').map((t) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5))) as [number, number];
        return e <= s ? minute >= s || minute < e : minute >= s && minute < e;
      }),
  );
}

function litellmStated(entry: LiteLlmEntry, at: Date): Stated {
  const stated: Stated = { base: {}, tiers: new Map() };
  const offPeak = entry.off_peak_pricing && inOffPeak(entry.off_peak_pricing.windows, at) ? entry.off_peak_pricing : {};
  for (const [key, value] of Object.entries({ ...entry, ...offPeak })) {
    const m = LITELLM_KEY.exec(key);
    const rate = perMillion(value);
    if (!m || rate === undefined) continue;
    const cls = LITELLM_CLASS[m[1]!]!;
    if (m[2] === undefined) stated.base[cls] = rate;
    else {
      const tier = stated.tiers.get(Number(m[2]) * 1000) ?? {};
      tier[cls] = rate;
      stated.tiers.set(Number(m[2]) * 1000, tier);
    }
  }
  return stated;
}

function ourRates(r: TokenRates): Record<RateClass, Big | null> {
  return {
    input: r.input,
    output: r.output,
    cache_read: r.cacheRead,
    cache_creation: r.cacheCreation,
    cache_creation_1h: r.cacheCreation1h,
    reasoning: r.reasoning,
  };
}

// ---------------------------------------------------------------------------------------------
// The check

export interface PriceCheckInput {
  cards: readonly StandardRateCardEntry[];
  /** The mapped providers' own models (ours → catalog models), resold listings left out. */
  genai: ReadonlyMap<string, readonly CatalogModel[]>;
  litellm: LiteLlmSnapshot;
  aliases: readonly PriceCheckAlias[];
  exceptions: readonly PriceCheckException[];
  asOf: Date;
}

/** The current standard-tier card of each slug at `asOf`. */
function currentCards(cards: readonly StandardRateCardEntry[], asOf: Date): StandardRateCardEntry[] {
  const bySlug = new Map<string, StandardRateCardEntry>();
  for (const c of cards) {
    if ((c.service_tier ?? 'standard') !== 'standard' || new Date(c.effective_from) > asOf) continue;
    const seen = bySlug.get(c.model_slug);
    if (!seen || new Date(seen.effective_from) <= new Date(c.effective_from)) bySlug.set(c.model_slug, c);
  }
  return [...bySlug.values()].sort((a, b) => (a.model_slug < b.model_slug ? -1 : 1));
}

/** The 168 instants of the week starting on the Monday at or before `asOf`, each at half past the hour. */
function weekHours(asOf: Date): Date[] {
  const day = Math.floor(asOf.getTime() / 86_400_000);
  const monday = (day - ((day + 3) % 7)) * 86_400_000;
  return Array.from({ length: 168 }, (_, h) => new Date(monday + h * 3_600_000 + 1_800_000));
}

/** Exact, or a prefix when the pattern ends in `*`. */
const matchesPattern = (pattern: string, value: string) =>
  pattern.endsWith('*') ? value.startsWith(pattern.slice(0, -1)) : pattern === value;
const matchesException = (e: PriceCheckException, d: Disagreement) =>
  e.source === d.source && matchesPattern(e.model_slug, d.model_slug) && (e.field === undefined || matchesPattern(e.field, d.field));

export function checkPrices(input: PriceCheckInput): PriceCheckReport {
  const cards = currentCards(input.cards, input.asOf);
  const index = buildTokenRateIndex(parseStandardRateCardFile({ version: '', currency: 'USD', notes: [], cards }));
  const hours = weekHours(input.asOf);
  const resolved: PriceCheckReport['resolved'] = {};
  const slugs = new Set(cards.map((c) => c.model_slug));
  const disagreements: Disagreement[] = [];
  for (const card of cards) {
    const indexed = index.bySlug.get(card.model_slug)!.get('standard')!.at(-1)!;
    const alias = input.aliases.find((a) => a.model_slug === card.model_slug)?.points_at;
    const name = alias ?? card.model_slug;
    const models = input.genai.get(card.provider) ?? [];
    // A model of that very id first: claude-sonnet-5's `starts_with` also matches claude-sonnet-5-5.
    // A match of a model we ship a card of its own for is another model's (claude-sonnet-5 for claude-sonnet-5-5): not listed.
    const genai =
      models.find((m) => m.id.toLowerCase() === name) ??
      models.find((m) => matchesName(m.match, name) && (m.id.toLowerCase() === card.model_slug || !slugs.has(m.id.toLowerCase())));
    const names = [...new Set([name, card.model_slug, genai?.id.toLowerCase()].filter((n): n is string => n !== undefined))];
    const keys = names.flatMap((n) => [n, ...(LITELLM_PREFIX[card.provider] ?? []).map((p) => p + n)]);
    const litellmKey = keys.find((k) => input.litellm.models[k] !== undefined);
    resolved[card.model_slug] = { ...(genai ? { 'genai-prices': genai.id } : {}), ...(litellmKey ? { litellm: litellmKey } : {}) };
    const sides: [CatalogSource, string, (at: Date) => Stated][] = [];
    if (genai) sides.push(['genai-prices', genai.id, (at) => genaiStated(genai, at)]);
    if (litellmKey) sides.push(['litellm', litellmKey, (at) => litellmStated(input.litellm.models[litellmKey]!, at)]);
    for (const [source, model, statedAt] of sides) {
      const found = new Map<string, Disagreement>();
      for (const at of hours) {
        const window = windowAt(indexed, at);
        const stated = statedAt(at);
        const compare = (field: string, ours: Big | null, theirs: Big | undefined) => {
          if (theirs === undefined || ours?.eq(theirs)) return;
          const key = `${field}\u0000${ours?.toFixed() ?? 'null'}\u0000${theirs.toFixed()}`;
          const seen = found.get(key);
          if (seen) seen.hours++;
          else
            found.set(key, {
              model_slug: card.model_slug,
              provider: card.provider,
              effective_from: card.effective_from,
              source,
              catalog_model: model,
              field,
              ours: ours?.toFixed() ?? null,
              theirs: theirs.toFixed(),
              hours: 1,
              first_at: at.toISOString(),
              source_of_ours: card.source,
              source_date_of_ours: card.source_date,
            });
        };
        const base = ourRates(window ?? indexed);
        for (const [cls, theirs] of Object.entries(stated.base) as [RateClass, Big][]) compare(cls, base[cls], theirs);
        for (const [above, rates] of stated.tiers) {
          // "Above 200K" and "200K and more" are one token apart: the tier is matched, the threshold reported.
          const ourTier =
            indexed.tiers.find((t) => t.abovePromptTokens === above) ??
            indexed.tiers.find((t) => Math.abs(t.abovePromptTokens - above) === 1);
          if (ourTier && ourTier.abovePromptTokens !== above) {
            compare(`tiers>${above}.threshold`, new Big(ourTier.abovePromptTokens), new Big(above));
          }
          for (const [cls, theirs] of Object.entries(rates) as [RateClass, Big][]) {
            compare(`tiers>${above}.${cls}`, ourTier ? ourRates(ourTier)[cls] : null, theirs);
          }
        }
      }
      disagreements.push(...found.values());
    }
  }
  const used = new Set<PriceCheckException>();
  for (const d of disagreements) {
    const e = input.exceptions.find((x) => matchesException(x, d));
    if (e) {
      d.explained_by = e.reason;
      used.add(e);
    }
  }
  return {
    as_of: input.asOf.toISOString(),
    cards_checked: cards.length,
    resolved,
    disagreements,
    unexplained: disagreements.filter((d) => d.explained_by === undefined).length,
    unused_exceptions: input.exceptions.filter((e) => !used.has(e)),
  };
}
