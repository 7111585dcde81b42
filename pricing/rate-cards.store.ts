// An organization's own prices: token rate cards and per-unit rates. Every write bumps the
// organization's rates_version in the same transaction, so the processor can poll one number to
// learn that prices changed. Rates are decimal strings in and out (exact NUMERIC).
// A token card posted with the identity of a current card (model_slug, service_tier,
// effective_from) supersedes it: the earlier one stays as history (when, by which card; the
// superseding card's actor says by whom) and only current cards are read for pricing.
import crypto from 'node:crypto';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { isUuid } from '../core/ids.js';
import type { ControlDb, Queryable } from '../core/control/db.js';
import { STANDARD_SERVICE_TIER, type ContextTier, type TimeWindow, type UnitRate as PricedUnitRate } from './pricing.types.js';
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
  /** Time-of-day windows (UTC) with their own rates, in the API's field names; [] = none. */
  timeWindows: TimeWindow[];
}

/** Who wrote a card: the admin token (every write today), or a user once people and roles exist. */
export type RateCardActor = { kind: 'admin_token' } | { kind: 'user'; userId: string };

export const ADMIN_TOKEN_ACTOR: RateCardActor = { kind: 'admin_token' };

export interface RateCard extends TokenRates {
  id: string;
  organizationId: string;
  /** Lowercase; matches a model by longest prefix. */
  modelSlug: string;
  /** Lowercase; `standard` unless the card prices another service tier. */
  serviceTier: string;
  effectiveFrom: Date;
  createdAt: Date;
  createdBy: RateCardActor;
  /** Null while current; else when a card of the same identity replaced it. */
  supersededAt: Date | null;
  /** The card that replaced it, and who posted that card; null while current. */
  supersededBy: string | null;
  supersededByActor: RateCardActor | null;
}

/** One card written: the card, the one of its identity it replaced, and its identity's other current dates. */
export interface RateCardWrite {
  card: RateCard;
  superseded: RateCard | null;
  /** effective_from of the other current cards of the same model_slug and service_tier, ascending. */
  siblingDates: Date[];
}

export interface RateCardInput extends Omit<TokenRates, 'cacheCreation1hCostPerMillion' | 'tiers' | 'timeWindows'> {
  modelSlug: string;
  /** Default `standard`. */
  serviceTier?: string;
  cacheCreation1hCostPerMillion?: string | null;
  tiers?: ContextTier[];
  timeWindows?: TimeWindow[];
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
  time_of_day_windows: TimeWindow[] | string;
  effective_from: Date;
  created_at: Date;
  created_by_kind: RateCardActor['kind'];
  created_by_user_id: string | null;
  superseded_at: Date | null;
  superseded_by: string | null;
  /** From the superseding card (a join); absent on RETURNING rows. */
  superseded_by_kind?: RateCardActor['kind'] | null;
  superseded_by_user_id?: string | null;
}

const CARD_COLUMN_NAMES = [
  'id',
  'organization_id',
  'model_slug',
  'service_tier',
  'input_cost_per_million',
  'output_cost_per_million',
  'cache_creation_cost_per_million',
  'cache_creation_1h_cost_per_million',
  'cache_read_cost_per_million',
  'reasoning_cost_per_million',
  'tiers',
  'time_of_day_windows',
  'effective_from',
  'created_at',
  'created_by_kind',
  'created_by_user_id',
  'superseded_at',
  'superseded_by',
];
const CARD_COLUMNS = CARD_COLUMN_NAMES.join(', ');
/** A card (`c`) with the actor of the card that superseded it (`s`). */
const CARD_SELECT = `SELECT ${CARD_COLUMN_NAMES.map((n) => `c.${n}`).join(', ')},
    s.created_by_kind AS superseded_by_kind, s.created_by_user_id AS superseded_by_user_id
  FROM rate_cards c LEFT JOIN rate_cards s ON s.id = c.superseded_by`;

function toActor(kind: RateCardActor['kind'] | null | undefined, userId: string | null | undefined): RateCardActor | null {
  if (!kind) return null;
  return kind === 'user' ? { kind, userId: userId! } : { kind };
}

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
    timeWindows: typeof r.time_of_day_windows === 'string' ? (JSON.parse(r.time_of_day_windows) as TimeWindow[]) : r.time_of_day_windows,
    effectiveFrom: r.effective_from,
    createdAt: r.created_at,
    createdBy: toActor(r.created_by_kind, r.created_by_user_id)!,
    supersededAt: r.superseded_at,
    supersededBy: r.superseded_by,
    supersededByActor: toActor(r.superseded_by_kind, r.superseded_by_user_id),
  };
}

/** A unit_rates row: the rate as pricing takes it, with its identity. */
interface UnitRateRow extends PricedUnitRate {
  id: string;
  organization_id: string;
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

/**
 * Marks the current card of `c`'s identity as superseded by `newId` (the card about to be
 * inserted; the foreign key is checked at commit) and returns it, or null when there is none.
 */
async function supersedeCurrent(tx: Queryable, organizationId: string, c: RateCardInput, newId: string): Promise<RateCard | null> {
  const [row] = await tx.query<RateCardRow>(
    `UPDATE rate_cards SET superseded_at = now(), superseded_by = $5
      WHERE organization_id = $1 AND model_slug = $2 AND service_tier = $3 AND effective_from = $4 AND superseded_at IS NULL
      RETURNING ${CARD_COLUMNS}`,
    [organizationId, c.modelSlug.toLowerCase(), (c.serviceTier ?? STANDARD_SERVICE_TIER).toLowerCase(), c.effectiveFrom, newId],
  );
  return row ? toRateCard(row) : null;
}

async function insertCard(tx: Queryable, organizationId: string, c: RateCardInput, id: string, actor: RateCardActor): Promise<RateCard> {
  const [row] = await tx.query<RateCardRow>(
    `INSERT INTO rate_cards (id, organization_id, model_slug, input_cost_per_million, output_cost_per_million,
       cache_creation_cost_per_million, cache_read_cost_per_million, reasoning_cost_per_million, effective_from,
       service_tier, cache_creation_1h_cost_per_million, tiers, created_by_kind, created_by_user_id, time_of_day_windows)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15::jsonb)
     RETURNING ${CARD_COLUMNS}`,
    [
      id,
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
      actor.kind,
      actor.kind === 'user' ? actor.userId : null,
      JSON.stringify(c.timeWindows ?? []),
    ],
  );
  return toRateCard(row!);
}

async function siblingDates(tx: Queryable, card: RateCard): Promise<Date[]> {
  const rows = await tx.query<{ effective_from: Date }>(
    `SELECT effective_from FROM rate_cards
      WHERE organization_id = $1 AND model_slug = $2 AND service_tier = $3 AND superseded_at IS NULL AND id <> $4
      ORDER BY effective_from`,
    [card.organizationId, card.modelSlug, card.serviceTier, card.id],
  );
  return rows.map((r) => r.effective_from);
}

/**
 * Writes token rate cards in one transaction with one version bump; each supersedes the current
 * card of its identity. The bump comes first: its row lock on the organization queues concurrent
 * writers, so each sees the card the one before it wrote and supersedes that one in turn.
 */
async function writeRateCards(
  db: ControlDb,
  organizationId: string,
  cards: RateCardInput[],
  actor: RateCardActor,
): Promise<{ writes: RateCardWrite[]; ratesVersion: number }> {
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  try {
    return await db.transaction(async (tx) => {
      const ratesVersion = await bumpRatesVersion(tx, organizationId);
      const writes: RateCardWrite[] = [];
      for (const c of cards) {
        const id = crypto.randomUUID();
        const superseded = await supersedeCurrent(tx, organizationId, c, id);
        const card = await insertCard(tx, organizationId, c, id, actor);
        const replaced = superseded && { ...superseded, supersededByActor: card.createdBy };
        writes.push({ card, superseded: replaced, siblingDates: await siblingDates(tx, card) });
      }
      return { writes, ratesVersion };
    });
  } catch (err) {
    throw mapWriteError(err, organizationId, 'a rate card for that model_slug and service_tier');
  }
}

/** Writes one token card, superseding the current card of its identity if there is one. */
export async function writeRateCard(
  db: ControlDb,
  organizationId: string,
  card: RateCardInput,
  actor: RateCardActor,
): Promise<RateCardWrite> {
  return (await writeRateCards(db, organizationId, [card], actor)).writes[0]!;
}

/** writeRateCard by the admin token, the card alone. */
export async function createRateCard(db: ControlDb, organizationId: string, card: RateCardInput): Promise<RateCard> {
  return (await writeRateCard(db, organizationId, card, ADMIN_TOKEN_ACTOR)).card;
}

/**
 * An organization's token cards, by slug, service tier, effective_from: the current ones (what
 * prices events), or with `includeSuperseded` the whole history, each identity's cards oldest first.
 */
export async function listRateCards(
  db: Queryable,
  organizationId: string,
  opts: { includeSuperseded?: boolean } = {},
): Promise<RateCard[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<RateCardRow>(
    `${CARD_SELECT}
      WHERE c.organization_id = $1 ${opts.includeSuperseded ? '' : 'AND c.superseded_at IS NULL'}
      ORDER BY c.model_slug, c.service_tier, c.effective_from, c.created_at, c.superseded_at IS NULL`,
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
  const [row] = await db.query<{ rates_version: string }>('SELECT rates_version FROM organizations WHERE id = $1', [organizationId]);
  return row ? Number(row.rates_version) : null;
}

/** Every organization's rates_version: one cheap query for a processor polling for new prices. */
export async function listRatesVersions(db: Queryable): Promise<Map<string, number>> {
  const rows = await db.query<{ id: string; rates_version: string }>('SELECT id, rates_version FROM organizations');
  return new Map(rows.map((r) => [r.id, Number(r.rates_version)]));
}
