// Loads the standard token rate cards that ship with the project (standard-rate-cards.json, one
// entry per model slug and price period, each with its source and date). The file is validated
// whole on first load: a malformed entry stops the service at start, never mid-stream.
import fs from 'node:fs';
import { isUnsignedDecimalString } from '../core/money.js';
import { fromRoot } from '../core/paths.js';
import {
  STANDARD_SERVICE_TIER,
  type ContextTier,
  type StandardRateCardEntry,
  type StandardRateCardFile,
  type TimeWindow,
  type TokenRateCard,
} from './pricing.types.js';
import { layOutTimeWindows } from './time-windows.js';

export const STANDARD_RATE_CARDS_PATH = fromRoot('pricing', 'standard-rate-cards.json');

/** Every rate field of a token card (and of its context tiers), in the file's order. */
export const RATE_FIELDS = [
  'input_cost_per_million',
  'output_cost_per_million',
  'cache_creation_cost_per_million',
  'cache_read_cost_per_million',
  'reasoning_cost_per_million',
  'cache_creation_1h_cost_per_million',
] as const;
const NULLABLE_RATE_FIELDS = new Set<string>([
  'cache_creation_cost_per_million',
  'cache_creation_1h_cost_per_million',
  'cache_read_cost_per_million',
  'reasoning_cost_per_million',
]);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z)?$/;

function invalid(index: number, slug: unknown, message: string): Error {
  return new Error(`standard rate card #${index} (${String(slug)}): ${message}`);
}

function checkRate(index: number, slug: string, field: string, value: unknown, nullable: boolean): void {
  if (value === null && nullable) return;
  if (typeof value !== 'string' || !isUnsignedDecimalString(value)) {
    throw invalid(index, slug, `${field} must be a non-negative decimal string${nullable ? ' or null' : ''}`);
  }
}

function checkTiers(index: number, slug: string, tiers: unknown): ContextTier[] {
  if (tiers === undefined) return [];
  if (!Array.isArray(tiers)) throw invalid(index, slug, 'tiers must be an array');
  return tiers.map((t: ContextTier, i) => {
    if (!Number.isSafeInteger(t.above_prompt_tokens) || t.above_prompt_tokens < 0) {
      throw invalid(index, slug, `tiers[${i}].above_prompt_tokens must be a non-negative integer`);
    }
    for (const field of RATE_FIELDS) checkRate(index, slug, `tiers[${i}].${field}`, t[field] ?? null, NULLABLE_RATE_FIELDS.has(field));
    return t;
  });
}

function checkTimeWindows(index: number, slug: string, windows: unknown, tiers: ContextTier[]): TimeWindow[] {
  if (windows === undefined) return [];
  if (!Array.isArray(windows)) throw invalid(index, slug, 'time_of_day_windows must be an array');
  if (windows.length > 0 && tiers.length > 0) throw invalid(index, slug, 'a card has tiers or time_of_day_windows, not both');
  windows.forEach((w: TimeWindow, i) => {
    for (const field of RATE_FIELDS) {
      checkRate(index, slug, `time_of_day_windows[${i}].${field}`, w[field] ?? null, NULLABLE_RATE_FIELDS.has(field));
    }
  });
  layOutTimeWindows(windows as TimeWindow[], 'time_of_day_windows', (field, message) => invalid(index, slug, `${field} ${message}`));
  return windows as TimeWindow[];
}

/** Checks one file entry and turns it into a card; throws naming the entry when it is malformed. */
function parseStandardRateCardEntry(entry: StandardRateCardEntry, index: number): TokenRateCard {
  const slug = entry.model_slug;
  if (typeof slug !== 'string' || slug === '' || slug !== slug.toLowerCase()) {
    throw invalid(index, slug, 'model_slug must be a non-empty lowercase string');
  }
  if (typeof entry.provider !== 'string' || entry.provider === '') throw invalid(index, slug, 'provider is required');
  for (const field of RATE_FIELDS) checkRate(index, slug, field, entry[field] ?? null, NULLABLE_RATE_FIELDS.has(field));
  const serviceTier = entry.service_tier ?? STANDARD_SERVICE_TIER;
  if (typeof serviceTier !== 'string' || serviceTier === '' || serviceTier !== serviceTier.toLowerCase()) {
    throw invalid(index, slug, 'service_tier must be a non-empty lowercase string');
  }
  const tiers = checkTiers(index, slug, entry.tiers);
  const timeWindows = checkTimeWindows(index, slug, entry.time_of_day_windows, tiers);
  const effective = new Date(entry.effective_from);
  if (typeof entry.effective_from !== 'string' || !ISO_INSTANT.test(entry.effective_from) || Number.isNaN(effective.getTime())) {
    throw invalid(index, slug, 'effective_from must be an ISO date or UTC timestamp');
  }
  if (typeof entry.source !== 'string' || !/^https:\/\/\S+$/.test(entry.source)) {
    throw invalid(index, slug, 'source must be an https URL');
  }
  if (typeof entry.source_date !== 'string' || !ISO_DATE.test(entry.source_date) || Number.isNaN(Date.parse(entry.source_date))) {
    throw invalid(index, slug, 'source_date must be YYYY-MM-DD');
  }
  return {
    model_slug: slug,
    input_cost_per_million: entry.input_cost_per_million,
    output_cost_per_million: entry.output_cost_per_million,
    cache_creation_cost_per_million: entry.cache_creation_cost_per_million,
    cache_read_cost_per_million: entry.cache_read_cost_per_million,
    reasoning_cost_per_million: entry.reasoning_cost_per_million,
    cache_creation_1h_cost_per_million: entry.cache_creation_1h_cost_per_million ?? null,
    service_tier: serviceTier,
    tiers,
    ...(timeWindows.length > 0 ? { time_of_day_windows: timeWindows } : {}),
    effective_from: effective,
    source: 'standard',
  };
}

/** Validates a parsed file: header fields, every entry, and no two cards for one slug and date. */
export function parseStandardRateCardFile(file: StandardRateCardFile): TokenRateCard[] {
  if (file.currency !== 'USD') throw new Error('standard rate cards: currency must be USD');
  if (!Array.isArray(file.cards)) throw new Error('standard rate cards: cards must be an array');
  const seen = new Set<string>();
  return file.cards.map((entry, i) => {
    const card = parseStandardRateCardEntry(entry, i);
    const key = `${card.model_slug}/${card.service_tier}@${card.effective_from.toISOString()}`;
    if (seen.has(key)) throw invalid(i, card.model_slug, `duplicate card for effective_from ${entry.effective_from}`);
    seen.add(key);
    return card;
  });
}

let loaded: TokenRateCard[] | undefined;

/** The standard cards, read and validated once per process. Callers must not mutate them. */
export function loadStandardRateCards(): TokenRateCard[] {
  loaded ??= parseStandardRateCardFile(JSON.parse(fs.readFileSync(STANDARD_RATE_CARDS_PATH, 'utf8')) as StandardRateCardFile);
  return loaded;
}
