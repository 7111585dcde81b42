// FOCUS 1.2 rows from our cost groups: one row per UTC day × provider × model × token class (the
// SKU) × end user × agent × workflow × feature (× the chosen dimensions). Pure. Invariant: the
// rows' BilledCost of a group sums exactly to the group's total_cost — a class row per reported
// token class, plus one `other` row for what no token class holds (unit-priced usage, cost
// overrides) — so an export sums to what the cost endpoints say. Money stays decimal strings.
import { Big, formatMoney, MONEY_SCALE, toBig } from '../../core/money.js';
import { addUtcMonths, DAY_MS } from '../../core/time.js';
import { providerOfModel } from '../../reconciliation/model-keys.js';
import type { CostGroupRow } from '../costs/costs.queries.js';

export const FOCUS_VERSION = '1.2';

/** A FOCUS column's type as the Parquet export stores it (CSV holds the same values as text). */
export type FocusColumnType = 'decimal' | 'datetime' | 'string' | 'json';

/**
 * The columns in the order the file has them: FOCUS 1.2's cost and usage columns; those that do
 * not apply to AI usage (commitments, capacity reservations, regions, resources) are present and
 * null, as the specification's conditional columns may be.
 */
export const FOCUS_COLUMNS = [
  ['BilledCost', 'decimal'],
  ['BillingAccountId', 'string'],
  ['BillingAccountName', 'string'],
  ['BillingAccountType', 'string'],
  ['BillingCurrency', 'string'],
  ['BillingPeriodEnd', 'datetime'],
  ['BillingPeriodStart', 'datetime'],
  ['ChargeCategory', 'string'],
  ['ChargeClass', 'string'],
  ['ChargeDescription', 'string'],
  ['ChargeFrequency', 'string'],
  ['ChargePeriodEnd', 'datetime'],
  ['ChargePeriodStart', 'datetime'],
  ['CommitmentDiscountCategory', 'string'],
  ['CommitmentDiscountId', 'string'],
  ['CommitmentDiscountName', 'string'],
  ['CommitmentDiscountQuantity', 'decimal'],
  ['CommitmentDiscountStatus', 'string'],
  ['CommitmentDiscountType', 'string'],
  ['CommitmentDiscountUnit', 'string'],
  ['ConsumedQuantity', 'decimal'],
  ['ConsumedUnit', 'string'],
  ['ContractedCost', 'decimal'],
  ['ContractedUnitPrice', 'decimal'],
  ['EffectiveCost', 'decimal'],
  ['InvoiceId', 'string'],
  ['InvoiceIssuerName', 'string'],
  ['ListCost', 'decimal'],
  ['ListUnitPrice', 'decimal'],
  ['PricingCategory', 'string'],
  ['PricingCurrency', 'string'],
  ['PricingQuantity', 'decimal'],
  ['PricingUnit', 'string'],
  ['ProviderName', 'string'],
  ['PublisherName', 'string'],
  ['RegionId', 'string'],
  ['RegionName', 'string'],
  ['ResourceId', 'string'],
  ['ResourceName', 'string'],
  ['ResourceType', 'string'],
  ['ServiceCategory', 'string'],
  ['ServiceName', 'string'],
  ['ServiceSubcategory', 'string'],
  ['SkuId', 'string'],
  ['SkuMeter', 'string'],
  ['SkuPriceDetails', 'json'],
  ['SkuPriceId', 'string'],
  ['SubAccountId', 'string'],
  ['SubAccountName', 'string'],
  ['SubAccountType', 'string'],
  ['Tags', 'json'],
] as const satisfies ReadonlyArray<readonly [string, FocusColumnType]>;

type FocusColumn = (typeof FOCUS_COLUMNS)[number][0];
/** A row: decimals as exact decimal strings, datetimes as ISO 8601 UTC text, JSON as its text. */
export type FocusRow = Record<FocusColumn, string | null>;

/** One group of completed cost as the query returns it (sums as the cost queries name them; null = no event reported the class). */
export interface FocusCostGroup extends Omit<CostGroupRow, 'event_count' | 'total_cost'> {
  /** UTC date 'YYYY-MM-DD'. */
  event_date: string;
  provider: string | null;
  model: string | null;
  end_user_id: string | null;
  /** The end user's external id. */
  user_id: string | null;
  agent_id: string | null;
  workflow_id: string | null;
  feature: string | null;
  event_count: number;
  total_cost: string;
  /** The chosen dimensions' values, in the order asked (null: the event had none). */
  dimensions: ReadonlyArray<string | null>;
}

type TokenField = 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens' | 'reasoning_tokens';
type CostField = 'input_cost' | 'output_cost' | 'cache_creation_cost' | 'cache_read_cost' | 'reasoning_cost';

/** The token classes, each a SKU of its model; `other` is the rest of the group's cost. */
const TOKEN_CLASSES: ReadonlyArray<{ sku: string; tokens: TokenField; cost: CostField; meter: string }> = [
  { sku: 'input', tokens: 'input_tokens', cost: 'input_cost', meter: 'Input tokens' },
  { sku: 'output', tokens: 'output_tokens', cost: 'output_cost', meter: 'Output tokens' },
  { sku: 'cache-write', tokens: 'cache_creation_input_tokens', cost: 'cache_creation_cost', meter: 'Cache write tokens' },
  { sku: 'cache-read', tokens: 'cache_read_input_tokens', cost: 'cache_read_cost', meter: 'Cache read tokens' },
  { sku: 'reasoning', tokens: 'reasoning_tokens', cost: 'reasoning_cost', meter: 'Reasoning tokens' },
];

const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  mistral: 'Mistral AI',
  deepseek: 'DeepSeek',
  xai: 'xAI',
  unknown: 'Unknown',
};

/** Tag keys we define carry this prefix (FOCUS: non-user-defined keys are prefixed); dimensions are the user's own keys. */
const TAG_PREFIX = 'marginal/';
const PER_MILLION = new Big(1_000_000);

export interface FocusContext {
  organizationId: string;
  organizationName: string;
  /** The chosen dimension keys, in the order of each group's `dimensions`. */
  dimensionKeys: readonly string[];
}

/** The provider's display name: the known ones spelled as they spell themselves, others as sent. */
function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/** cost ÷ quantity rounded half-up to 12 places (an average when a row holds several rates); 0 for no quantity. */
function unitPrice(cost: Big, quantity: Big): string {
  return quantity.eq(0) ? '0' : formatMoney(cost.div(quantity).round(MONEY_SCALE, Big.roundHalfUp));
}

/** The calendar month (UTC) a day is billed in: [first of month, first of next). */
function billingPeriod(day: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1));
  return { start, end: addUtcMonths(start, 1) };
}

function isoUtc(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z');
}

function tagsOf(group: FocusCostGroup, ctx: FocusContext): string {
  const tags: Record<string, string> = {};
  const own: Array<[string, string | null]> = [
    ['end_user', group.user_id],
    ['end_user_id', group.end_user_id],
    ['agent', group.agent_id],
    ['workflow', group.workflow_id],
    ['feature', group.feature],
  ];
  for (const [k, v] of own) if (v !== null) tags[TAG_PREFIX + k] = v;
  ctx.dimensionKeys.forEach((k, i) => {
    const v = group.dimensions[i];
    if (v !== null && v !== undefined) tags[k] = v;
  });
  return JSON.stringify(tags);
}

interface Charge {
  sku: string;
  meter: string;
  cost: Big;
  consumed: Big;
  consumedUnit: string;
  pricingQuantity: Big;
  pricingUnit: string;
}

/** The group's charges: its reported token classes, then the rest of its cost when any. */
function chargesOf(group: FocusCostGroup): Charge[] {
  const charges: Charge[] = [];
  let classCost = new Big(0);
  for (const cls of TOKEN_CLASSES) {
    const tokens = group[cls.tokens];
    if (tokens === null) continue;
    const cost = toBig(group[cls.cost] ?? '0');
    classCost = classCost.plus(cost);
    if (tokens === 0 && cost.eq(0)) continue;
    const consumed = new Big(tokens);
    // Priced per million tokens, as the providers' price lists are.
    charges.push({
      sku: cls.sku,
      meter: cls.meter,
      cost,
      consumed,
      consumedUnit: 'Tokens',
      pricingQuantity: consumed.div(PER_MILLION),
      pricingUnit: '1M Tokens',
    });
  }
  const rest = toBig(group.total_cost).minus(classCost);
  if (!rest.eq(0)) {
    const requests = new Big(group.event_count);
    charges.push({
      sku: 'other',
      meter: 'Requests',
      cost: rest,
      consumed: requests,
      consumedUnit: 'Requests',
      pricingQuantity: requests,
      pricingUnit: 'Requests',
    });
  }
  return charges;
}

/** The FOCUS rows of one cost group (see the header for the invariant). */
export function focusRowsOf(group: FocusCostGroup, ctx: FocusContext): FocusRow[] {
  const day = new Date(`${group.event_date}T00:00:00Z`);
  const period = billingPeriod(day);
  const provider = providerOfModel(group.model, group.provider);
  const name = providerName(provider);
  const model = group.model ?? 'unknown';
  const tags = tagsOf(group, ctx);
  return chargesOf(group).map((c) => {
    const cost = formatMoney(c.cost);
    const price = unitPrice(c.cost, c.pricingQuantity);
    const skuId = `${provider}/${model}/${c.sku}`;
    return {
      BilledCost: cost,
      BillingAccountId: ctx.organizationId,
      BillingAccountName: ctx.organizationName,
      BillingAccountType: 'Organization',
      BillingCurrency: 'USD',
      BillingPeriodEnd: isoUtc(period.end),
      BillingPeriodStart: isoUtc(period.start),
      ChargeCategory: 'Usage',
      ChargeClass: null,
      ChargeDescription: `${model} ${c.meter.toLowerCase()}`,
      ChargeFrequency: 'Usage-Based',
      ChargePeriodEnd: isoUtc(new Date(day.getTime() + DAY_MS)),
      ChargePeriodStart: isoUtc(day),
      CommitmentDiscountCategory: null,
      CommitmentDiscountId: null,
      CommitmentDiscountName: null,
      CommitmentDiscountQuantity: null,
      CommitmentDiscountStatus: null,
      CommitmentDiscountType: null,
      CommitmentDiscountUnit: null,
      ConsumedQuantity: c.consumed.toFixed(),
      ConsumedUnit: c.consumedUnit,
      ContractedCost: cost,
      ContractedUnitPrice: price,
      EffectiveCost: cost,
      InvoiceId: null,
      InvoiceIssuerName: name,
      ListCost: cost,
      ListUnitPrice: price,
      PricingCategory: 'Standard',
      PricingCurrency: 'USD',
      PricingQuantity: c.pricingQuantity.toFixed(),
      PricingUnit: c.pricingUnit,
      ProviderName: name,
      PublisherName: name,
      RegionId: null,
      RegionName: null,
      ResourceId: null,
      ResourceName: null,
      ResourceType: null,
      ServiceCategory: 'AI and Machine Learning',
      ServiceName: `${name} API`,
      ServiceSubcategory: 'Generative AI',
      SkuId: skuId,
      SkuMeter: c.meter,
      SkuPriceDetails: JSON.stringify({ [`${TAG_PREFIX}token_class`]: c.sku }),
      SkuPriceId: skuId,
      SubAccountId: null,
      SubAccountName: null,
      SubAccountType: null,
      Tags: tags,
    };
  });
}

/** Every group's rows, in the groups' order. */
export function focusRows(groups: readonly FocusCostGroup[], ctx: FocusContext): FocusRow[] {
  return groups.flatMap((g) => focusRowsOf(g, ctx));
}
