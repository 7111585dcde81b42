// An organization's own prices: token rate cards and per-unit rates. Every write bumps the
// organization's rates_version in the same transaction, so the processor can poll one number to
// learn that prices changed. Rates are decimal strings in and out (exact NUMERIC).
import { ConflictError, NotFoundError } from '../core/errors.js';
import { isUuid } from '../core/ids.js';
import type { ControlDb, Queryable } from '../core/control/db.js';
import { STANDARD_SERVICE_TIER, type ContextTier } from './pricing.types.js';
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, sqlState } from '../core/control/sql-errors.js';

/** USD per million tokens, as decimal strings; null = that class cannot be priced. */
interface TokenRates {
  inputCostPerMillion: string;
  outputCostPerMillion: string;
  cacheCreationCostPerMillion: string | null;
  cacheReadCostPerMillion: string | null;
  reasoningCostPerMillion: string | null;
  /** One-hour cache writes; null = they cannot be priced. */
  cacheCreation1hCostPerMillion: string | null;
  /** Long-context tiers by prompt size (ascending), in the API's field names; [] = none. */
  tiers: ContextTier[];
}

export interface RateCard extends TokenRates {
  id: string;
  organizationId: string;
  /** Lowercase; matches a model by longest prefix. */
  modelSlug: string;
  /** Lowercase; `standard` unless the card prices another service tier. */
  serviceTier: string;
  effectiveFrom: Date;
  createdAt: Date;
}

export interface RateCardInput extends Omit<TokenRates, 'cacheCreation1hCostPerMillion' | 'tiers'> {
  modelSlug: string;
  /** Default `standard`. */
  serviceTier?: string;
  cacheCreation1hCostPerMillion?: string | null;
  tiers?: ContextTier[];
  effectiveFrom: Date;
}

/** USD per unit for metric events, keyed by exactly one of model or provider. */
export interface UnitRate {
  id: string;
  organizationId: string;
  /** Lowercase. */
  model: string | null;
  /** Lowercase. */
  provider: string | null;
  /** Lowercase. */
  metric: string;
  /** Exactly as configured; units are never converted. */
  unit: string;
  costPerUnit: string;
  effectiveFrom: Date;
  createdAt: Date;
}

export interface UnitRateInput {
  model?: string | null;
  provider?: string | null;
  metric: string;
  unit: string;
  costPerUnit: string;
  /** Defaults to the Unix epoch: a rate without a date prices every event, past ones included. */
  effectiveFrom?: Date;
}

export const ALWAYS = new Date(0);

interface RateCardRow {
  id: string;
  organization_id: string;
  model_slug: string;
  input_cost_per_million: string;
  output_cost_per_million: string;
  cache_creation_cost_per_million: string | null;
  cache_read_cost_per_million: string | null;
  reasoning_cost_per_million: string | null;
  cache_creation_1h_cost_per_million: string | null;
  service_tier: string;
  tiers: ContextTier[] | string;
  effective_from: Date;
  created_at: Date;
}

const CARD_COLUMNS = `id, organization_id, model_slug, service_tier, input_cost_per_million, output_cost_per_million,
  cache_creation_cost_per_million, cache_creation_1h_cost_per_million, cache_read_cost_per_million,
  reasoning_cost_per_million, tiers, effective_from, created_at`;

function toRateCard(r: RateCardRow): RateCard {
  return {
    id: r.id,
    organizationId: r.organization_id,
    modelSlug: r.model_slug,
    serviceTier: r.service_tier,
    inputCostPerMillion: r.input_cost_per_million,
    outputCostPerMillion: r.output_cost_per_million,
    cacheCreationCostPerMillion: r.cache_creation_cost_per_million,
    cacheCreation1hCostPerMillion: r.cache_creation_1h_cost_per_million,
    cacheReadCostPerMillion: r.cache_read_cost_per_million,
    reasoningCostPerMillion: r.reasoning_cost_per_million,
    // jsonb comes back parsed from pg and PGlite; text is parsed for safety.
    tiers: typeof r.tiers === 'string' ? (JSON.parse(r.tiers) as ContextTier[]) : r.tiers,
    effectiveFrom: r.effective_from,
    createdAt: r.created_at,
  };
}

interface UnitRateRow {
  id: string;
  organization_id: string;
  model: string | null;
  provider: string | null;
  metric: string;
  unit: string;
  cost_per_unit: string;
  effective_from: Date;
  created_at: Date;
}

const UNIT_COLUMNS = 'id, organization_id, model, provider, metric, unit, cost_per_unit, effective_from, created_at';

function toUnitRate(r: UnitRateRow): UnitRate {
  return {
    id: r.id,
    organizationId: r.organization_id,
    model: r.model,
    provider: r.provider,
    metric: r.metric,
    unit: r.unit,
    costPerUnit: r.cost_per_unit,
    effectiveFrom: r.effective_from,
    createdAt: r.created_at,
  };
}

async function bumpRatesVersion(tx: Queryable, organizationId: string): Promise<number> {
  const [row] = await tx.query<{ rates_version: string }>(
    'UPDATE organizations SET rates_version = rates_version + 1 WHERE id = $1 RETURNING rates_version',
    [organizationId],
  );
  if (!row) throw new NotFoundError('organization', organizationId);
  return Number(row.rates_version);
}

function mapWriteError(err: unknown, organizationId: string, what: string): unknown {
  if (sqlState(err) === FOREIGN_KEY_VIOLATION) return new NotFoundError('organization', organizationId);
  if (sqlState(err) === UNIQUE_VIOLATION) return new ConflictError(`${what} already exists for that effective_from`);
  return err;
}

/** Adds token rate cards (one transaction, one version bump). Slugs are lowercased. */
async function createRateCards(
  db: ControlDb,
  organizationId: string,
  cards: RateCardInput[],
): Promise<{ cards: RateCard[]; ratesVersion: number }> {
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  try {
    return await db.transaction(async (tx) => {
      const ratesVersion = await bumpRatesVersion(tx, organizationId);
      const out: RateCard[] = [];
      for (const c of cards) {
        const [row] = await tx.query<RateCardRow>(
          `INSERT INTO rate_cards (organization_id, model_slug, input_cost_per_million, output_cost_per_million,
             cache_creation_cost_per_million, cache_read_cost_per_million, reasoning_cost_per_million, effective_from,
             service_tier, cache_creation_1h_cost_per_million, tiers)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)
           RETURNING ${CARD_COLUMNS}`,
          [
            organizationId,
            c.modelSlug.toLowerCase(),
            c.inputCostPerMillion,
            c.outputCostPerMillion,
            c.cacheCreationCostPerMillion,
            c.cacheReadCostPerMillion,
            c.reasoningCostPerMillion,
            c.effectiveFrom,
            (c.serviceTier ?? STANDARD_SERVICE_TIER).toLowerCase(),
            c.cacheCreation1hCostPerMillion ?? null,
            JSON.stringify(c.tiers ?? []),
          ],
        );
        out.push(toRateCard(row!));
      }
      return { cards: out, ratesVersion };
    });
  } catch (err) {
    throw mapWriteError(err, organizationId, 'a rate card for that model_slug and service_tier');
  }
}

export async function createRateCard(db: ControlDb, organizationId: string, card: RateCardInput): Promise<RateCard> {
  return (await createRateCards(db, organizationId, [card])).cards[0]!;
}

/** All of an organization's token cards, by slug then effective_from. */
export async function listRateCards(db: Queryable, organizationId: string): Promise<RateCard[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<RateCardRow>(
    `SELECT ${CARD_COLUMNS} FROM rate_cards WHERE organization_id = $1 ORDER BY model_slug, service_tier, effective_from`,
    [organizationId],
  );
  return rows.map(toRateCard);
}

/** Adds a per-unit rate. Model, provider and metric are lowercased; unit is kept as given. */
export async function createUnitRate(db: ControlDb, organizationId: string, input: UnitRateInput): Promise<UnitRate> {
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  try {
    return await db.transaction(async (tx) => {
      await bumpRatesVersion(tx, organizationId);
      const [row] = await tx.query<UnitRateRow>(
        `INSERT INTO unit_rates (organization_id, model, provider, metric, unit, cost_per_unit, effective_from)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         RETURNING ${UNIT_COLUMNS}`,
        [
          organizationId,
          input.model?.toLowerCase() ?? null,
          input.provider?.toLowerCase() ?? null,
          input.metric.toLowerCase(),
          input.unit,
          input.costPerUnit,
          input.effectiveFrom ?? ALWAYS,
        ],
      );
      return toUnitRate(row!);
    });
  } catch (err) {
    throw mapWriteError(err, organizationId, 'a unit rate for that model/provider, metric and unit');
  }
}

export async function listUnitRates(db: Queryable, organizationId: string): Promise<UnitRate[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<UnitRateRow>(
    `SELECT ${UNIT_COLUMNS} FROM unit_rates WHERE organization_id = $1
      ORDER BY metric, unit, model NULLS LAST, provider NULLS LAST, effective_from`,
    [organizationId],
  );
  return rows.map(toUnitRate);
}

export async function getRatesVersion(db: Queryable, organizationId: string): Promise<number | null> {
  if (!isUuid(organizationId)) return null;
  const [row] = await db.query<{ rates_version: string }>('SELECT rates_version FROM organizations WHERE id = $1', [
    organizationId,
  ]);
  return row ? Number(row.rates_version) : null;
}

/** Every organization's rates_version: one cheap query for a processor polling for new prices. */
export async function listRatesVersions(db: Queryable): Promise<Map<string, number>> {
  const rows = await db.query<{ id: string; rates_version: string }>('SELECT id, rates_version FROM organizations');
  return new Map(rows.map((r) => [r.id, Number(r.rates_version)]));
}
