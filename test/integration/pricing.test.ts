// Pricing: GET /v1/rates (the rate estimation table) end to end over the shared read data set
// (test/support/read-dataset.ts), every figure worked out there, never by calling the api code;
// then the rate-card store (pricing/rate-cards.store.ts) on PGlite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { A, B, expectValidation, get, useReadDataset } from '../support/read-dataset.js';
import crypto from 'node:crypto';
import { createOrganization, getOrganization } from '../../core/control/organizations.js';
import {
  ADMIN_TOKEN_ACTOR,
  createRateCard,
  createUnitRate,
  getRatesVersion,
  listRateCards,
  listRatesVersions,
  listUnitRates,
  writeRateCard,
} from '../../pricing/rate-cards.store.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { describeEachControlDb } from '../support/control-db.js';
import { RateBook } from '../../pricing/rate-book.js';

useReadDataset();

describe('GET /v1/rates', () => {
  it('the organization’s cards replace standard ones; sorted by slug; null rates kept', async () => {
    const res = await get(A.readKey, '/rates');
    expect(res.status).toBe(200);
    const slugs = res.body.items.map((i: any) => i.model_slug);
    expect(slugs).toEqual([...slugs].sort());
    expect(res.body.items.find((i: any) => i.model_slug === 'acme-large')).toEqual({
      model_slug: 'acme-large',
      input_cost_per_million: '3',
      cache_creation_cost_per_million: '3.75',
      cache_read_cost_per_million: '0.3',
      output_cost_per_million: '15',
      reasoning_cost_per_million: '12',
    });
    expect(res.body.items.find((i: any) => i.model_slug === 'acme-small')).toMatchObject({
      cache_read_cost_per_million: null,
      reasoning_cost_per_million: null,
    });
    expect(slugs.length).toBeGreaterThan(2); // the standard cards are there too
    const b = await get(B.readKey, '/rates');
    expect(b.body.items.find((i: any) => i.model_slug === 'acme-large').input_cost_per_million).toBe('1');
    expect(b.body.items.find((i: any) => i.model_slug === 'acme-small')).toBeUndefined();
    expectValidation(await get(A.readKey, '/rates', { as_of: 'soon' }), 'as_of');
  });
});

async function sqlError(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string }).code ?? 'no-code';
  }
  return undefined;
}

describeEachControlDb('pricing store: rate cards and unit rates', ({ db }) => {
  it('keep NUMERIC rates exact and bump rates_version on every write', async () => {
    const org = await createOrganization(db(), { name: 'Rates' });
    const card = await createRateCard(db(), org.id, {
      modelSlug: 'Claude-Sonnet-4',
      inputCostPerMillion: '0.000000000001',
      outputCostPerMillion: '15.000000000000000001',
      cacheCreationCostPerMillion: '3.75',
      cacheReadCostPerMillion: null,
      reasoningCostPerMillion: null,
      effectiveFrom: new Date('2025-01-01T00:00:00Z'),
    });
    expect(card).toMatchObject({
      modelSlug: 'claude-sonnet-4',
      inputCostPerMillion: '0.000000000001',
      outputCostPerMillion: '15.000000000000000001',
      cacheCreationCostPerMillion: '3.75',
      cacheReadCostPerMillion: null,
      effectiveFrom: new Date('2025-01-01T00:00:00Z'),
    });
    expect(await getRatesVersion(db(), org.id)).toBe(1);

    const unit = await createUnitRate(db(), org.id, { provider: 'ElevenLabs', metric: 'Characters', unit: 'Char', costPerUnit: '0.00003' });
    expect(unit).toMatchObject({ model: null, provider: 'elevenlabs', metric: 'characters', unit: 'Char', costPerUnit: '0.00003' });
    expect(unit.effectiveFrom.getTime()).toBe(0);
    expect(await getRatesVersion(db(), org.id)).toBe(2);
    expect((await listRatesVersions(db())).get(org.id)).toBe(2);
    expect((await getOrganization(db(), org.id))?.ratesVersion).toBe(2);

    expect((await listRateCards(db(), org.id)).map((c) => c.id)).toEqual([card.id]);
    expect((await listUnitRates(db(), org.id)).map((u) => u.id)).toEqual([unit.id]);
  });

  it('the rate book gives the same rates with its cache off, and sees a new card at once', async () => {
    const org = await createOrganization(db(), { name: 'Book' });
    const card = {
      modelSlug: 'acme-book',
      inputCostPerMillion: '2',
      outputCostPerMillion: '8',
      cacheCreationCostPerMillion: null,
      cacheReadCostPerMillion: null,
      reasoningCostPerMillion: null,
      effectiveFrom: new Date('2025-01-01T00:00:00Z'),
    };
    await createRateCard(db(), org.id, card);
    const cached = new RateBook(db(), 60_000);
    const uncached = new RateBook(db(), 60_000, Date.now, false);
    expect(await uncached.cardsFor(org.id)).toEqual(await cached.cardsFor(org.id));
    expect(await uncached.ratesFor(org.id)).toEqual(await cached.ratesFor(org.id));
    expect(await uncached.versionFor(org.id)).toBe(1);
    await createRateCard(db(), org.id, { ...card, inputCostPerMillion: '3' });
    const inputOf = async (book: RateBook) =>
      (await book.cardsFor(org.id)).find((c) => c.model_slug === 'acme-book')?.input_cost_per_million;
    expect(await inputOf(uncached)).toBe('3');
    expect(await inputOf(cached)).toBe('2'); // within its refresh interval
  });

  it('a second card for the same identity supersedes the first (no 409); a failed write bumps nothing', async () => {
    const org = await createOrganization(db(), { name: 'Dup' });
    const input = {
      modelSlug: 'gpt-4o',
      inputCostPerMillion: '2.5',
      outputCostPerMillion: '10',
      cacheCreationCostPerMillion: null,
      cacheReadCostPerMillion: '1.25',
      reasoningCostPerMillion: null,
      effectiveFrom: new Date('2025-06-01T00:00:00Z'),
    };
    const first = await createRateCard(db(), org.id, input);
    const second = await createRateCard(db(), org.id, { ...input, modelSlug: 'GPT-4o', inputCostPerMillion: '3' });
    expect(await getRatesVersion(db(), org.id)).toBe(2);
    expect((await listRateCards(db(), org.id)).map((c) => [c.id, c.inputCostPerMillion])).toEqual([[second.id, '3']]);
    await createRateCard(db(), org.id, { ...input, effectiveFrom: new Date('2025-07-01T00:00:00Z') });
    expect(await getRatesVersion(db(), org.id)).toBe(3);
    await expect(createRateCard(db(), crypto.randomUUID(), input)).rejects.toThrow(NotFoundError);
    // A CHECK violation rolls back the whole write: the first card stays current, the version stays.
    await expect(createRateCard(db(), org.id, { ...input, modelSlug: 'GPT-4o', inputCostPerMillion: '-1' })).rejects.toThrow();
    expect(await getRatesVersion(db(), org.id)).toBe(3);
    expect((await listRateCards(db(), org.id)).map((c) => c.id)).toContain(second.id);
    expect((await listRateCards(db(), org.id, { includeSuperseded: true })).find((c) => c.id === first.id)?.supersededBy).toBe(second.id);
  });

  it('keep superseded cards as history: when, by which card, by whom; only current cards price', async () => {
    const org = await createOrganization(db(), { name: 'History' });
    const input = {
      modelSlug: 'acme-1',
      inputCostPerMillion: '1',
      outputCostPerMillion: '2',
      cacheCreationCostPerMillion: null,
      cacheReadCostPerMillion: null,
      reasoningCostPerMillion: null,
      effectiveFrom: new Date('2025-03-01T00:00:00Z'),
    };
    const a = await writeRateCard(db(), org.id, input, ADMIN_TOKEN_ACTOR);
    expect(a).toMatchObject({ superseded: null, siblingDates: [] });
    const batch = await writeRateCard(db(), org.id, { ...input, serviceTier: 'batch' }, ADMIN_TOKEN_ACTOR);
    expect(batch.superseded).toBeNull(); // another service tier: another identity
    const later = await createRateCard(db(), org.id, { ...input, effectiveFrom: new Date('2025-08-01T00:00:00Z') });
    const userId = crypto.randomUUID();
    const b = await writeRateCard(db(), org.id, { ...input, inputCostPerMillion: '1.5' }, ADMIN_TOKEN_ACTOR);
    const c = await writeRateCard(db(), org.id, { ...input, inputCostPerMillion: '1.25' }, { kind: 'user', userId });

    expect(b.superseded).toMatchObject({ id: a.card.id, supersededBy: b.card.id, supersededByActor: { kind: 'admin_token' } });
    expect(b.siblingDates).toEqual([new Date('2025-08-01T00:00:00Z')]);
    expect(c.superseded).toMatchObject({ id: b.card.id, supersededBy: c.card.id, supersededByActor: { kind: 'user', userId } });
    expect(c.card.createdBy).toEqual({ kind: 'user', userId });
    // superseded_at is the superseding write's time: the same transaction's now() as the new card's created_at.
    expect(c.superseded!.supersededAt).toEqual(c.card.createdAt);

    const current = await listRateCards(db(), org.id);
    expect(current.map((x) => [x.serviceTier, x.effectiveFrom.toISOString(), x.id])).toEqual([
      ['batch', '2025-03-01T00:00:00.000Z', batch.card.id],
      ['standard', '2025-03-01T00:00:00.000Z', c.card.id],
      ['standard', '2025-08-01T00:00:00.000Z', later.id],
    ]);
    const history = await listRateCards(db(), org.id, { includeSuperseded: true });
    const standardMarch = history.filter(
      (x) => x.serviceTier === 'standard' && x.effectiveFrom.getTime() === input.effectiveFrom.getTime(),
    );
    expect(standardMarch.map((x) => [x.id, x.inputCostPerMillion, x.supersededBy, x.supersededByActor, x.createdBy])).toEqual([
      [a.card.id, '1', b.card.id, { kind: 'admin_token' }, { kind: 'admin_token' }],
      [b.card.id, '1.5', c.card.id, { kind: 'user', userId }, { kind: 'admin_token' }],
      [c.card.id, '1.25', null, null, { kind: 'user', userId }],
    ]);
    expect(standardMarch[0]!.supersededAt).toEqual(b.card.createdAt);
    expect(standardMarch[1]!.supersededAt).toEqual(c.card.createdAt);
    expect(history).toHaveLength(5);
    expect(await getRatesVersion(db(), org.id)).toBe(5);
  });

  it('concurrent corrections of one identity all succeed, each superseding the one before it', async () => {
    const org = await createOrganization(db(), { name: 'Concurrent' });
    const input = (rate: string) => ({
      modelSlug: 'acme-3',
      inputCostPerMillion: rate,
      outputCostPerMillion: '2',
      cacheCreationCostPerMillion: null,
      cacheReadCostPerMillion: null,
      reasoningCostPerMillion: null,
      effectiveFrom: new Date('2025-03-01T00:00:00Z'),
    });
    // On PostgreSQL these run on separate pooled connections; the version bump's row lock queues them.
    const written = await Promise.all(['1', '2', '3', '4', '5'].map((r) => writeRateCard(db(), org.id, input(r), ADMIN_TOKEN_ACTOR)));
    expect(await getRatesVersion(db(), org.id)).toBe(5);
    const current = await listRateCards(db(), org.id);
    expect(current).toHaveLength(1);
    const history = await listRateCards(db(), org.id, { includeSuperseded: true });
    expect(history).toHaveLength(5);
    // One chain: the first write superseded nothing, every other write superseded exactly one earlier card.
    expect(written.filter((w) => w.superseded === null)).toHaveLength(1);
    const successors = new Map(history.map((c) => [c.id, c.supersededBy]));
    let at: string | undefined = written.find((w) => w.superseded === null)!.card.id;
    const chain: string[] = [];
    while (at) {
      chain.push(at);
      at = successors.get(at) ?? undefined;
    }
    expect(chain).toHaveLength(5);
    expect(chain.at(-1)).toBe(current[0]!.id);
  });

  it('one current card per identity, held by the database itself', async () => {
    const org = await createOrganization(db(), { name: 'Unique' });
    await createRateCard(db(), org.id, {
      modelSlug: 'acme-2',
      inputCostPerMillion: '1',
      outputCostPerMillion: '2',
      cacheCreationCostPerMillion: null,
      cacheReadCostPerMillion: null,
      reasoningCostPerMillion: null,
      effectiveFrom: new Date('2025-03-01T00:00:00Z'),
    });
    const insert = `INSERT INTO rate_cards (organization_id, model_slug, input_cost_per_million, output_cost_per_million, effective_from)
                    VALUES ($1, 'acme-2', 1, 2, '2025-03-01T00:00:00Z')`;
    expect(await sqlError(db().query(insert, [org.id]))).toBe('23505');
    // A user actor needs its user id, and a superseded card names its successor.
    expect(await sqlError(db().query(`UPDATE rate_cards SET created_by_kind = 'user' WHERE organization_id = $1`, [org.id]))).toBe('23514');
    expect(await sqlError(db().query(`UPDATE rate_cards SET superseded_at = now() WHERE organization_id = $1`, [org.id]))).toBe('23514');
  });

  it('a unit rate names exactly one of model and provider', async () => {
    const org = await createOrganization(db(), { name: 'Unit' });
    const base = { metric: 'images', unit: 'image', costPerUnit: '0.04' };
    expect(await sqlError(createUnitRate(db(), org.id, { ...base, model: 'dall-e-3', provider: 'openai' }))).toBe('23514');
    expect(await sqlError(createUnitRate(db(), org.id, base))).toBe('23514');
    await createUnitRate(db(), org.id, { ...base, model: 'dall-e-3' });
    await createUnitRate(db(), org.id, { ...base, provider: 'dall-e-3' });
    await expect(createUnitRate(db(), org.id, { ...base, model: 'DALL-E-3' })).rejects.toThrow(ConflictError);
  });
});
