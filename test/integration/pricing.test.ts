// Pricing: GET /v1/rates (the rate estimation table) end to end over the shared read data set
// (test/support/read-dataset.ts), every figure worked out there, never by calling the api code;
// then the rate-card store (pricing/rate-cards.store.ts) on PGlite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import {
  A,
  B,
  expectValidation,
  get,
  useReadDataset,
} from '../support/read-dataset.js';
import crypto from 'node:crypto';
import { createOrganization, getOrganization } from '../../core/control/organizations.js';
import { createRateCard, createUnitRate, getRatesVersion, listRateCards, listRatesVersions, listUnitRates } from '../../pricing/rate-cards.store.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { describeEachControlDb } from '../support/control-db.js';

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
    expect(res.body.items.find((i: any) => i.model_slug === 'acme-small')).toMatchObject({ cache_read_cost_per_million: null, reasoning_cost_per_million: null });
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

  it('refuse a second card for the same slug and effective_from, and a failed write bumps nothing', async () => {
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
    await createRateCard(db(), org.id, input);
    await expect(createRateCard(db(), org.id, { ...input, modelSlug: 'GPT-4o' })).rejects.toThrow(ConflictError);
    expect(await getRatesVersion(db(), org.id)).toBe(1);
    await createRateCard(db(), org.id, { ...input, effectiveFrom: new Date('2025-07-01T00:00:00Z') });
    expect(await getRatesVersion(db(), org.id)).toBe(2);
    await expect(createRateCard(db(), crypto.randomUUID(), input)).rejects.toThrow(NotFoundError);
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
