import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isDecimalString } from '../../../core/money.js';
import { loadStandardRateCards } from '../../../pricing/rate-card-match.js';
import { findTokenRateCard } from '../../support/rate-lookup.js';
import { STANDARD_RATE_CARDS_PATH, parseStandardRateCardFile } from '../../../pricing/standard-rate-cards.js';
import type { StandardRateCardFile } from '../../../pricing/pricing.types.js';

const raw = JSON.parse(fs.readFileSync(STANDARD_RATE_CARDS_PATH, 'utf8')) as StandardRateCardFile;
const RATE_FIELDS = [
  'input_cost_per_million',
  'output_cost_per_million',
  'cache_creation_cost_per_million',
  'cache_read_cost_per_million',
  'reasoning_cost_per_million',
] as const;

describe('standard-rate-cards.json', () => {
  it('has the top-level shape', () => {
    expect(raw.currency).toBe('USD');
    expect(typeof raw.version).toBe('string');
    expect(Array.isArray(raw.notes) && raw.notes.length > 0).toBe(true);
    expect(raw.cards.length).toBeGreaterThanOrEqual(40);
  });

  it('every entry parses, has an https source and a source date, and decimal-string rates', () => {
    for (const entry of raw.cards) {
      expect(entry.source, entry.model_slug).toMatch(/^https:\/\//);
      expect(entry.source_date, entry.model_slug).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Number.isNaN(Date.parse(entry.source_date)), entry.model_slug).toBe(false);
      expect(Number.isNaN(Date.parse(entry.effective_from)), entry.model_slug).toBe(false);
      expect(entry.model_slug).toBe(entry.model_slug.toLowerCase());
      for (const field of RATE_FIELDS) {
        const value = entry[field];
        if (field === 'input_cost_per_million' || field === 'output_cost_per_million') {
          expect(typeof value, `${entry.model_slug}.${field}`).toBe('string');
        }
        if (value !== null) {
          // A string, never a JSON number: rates are decimal end to end.
          expect(typeof value, `${entry.model_slug}.${field}`).toBe('string');
          expect(isDecimalString(value) && !value.startsWith('-'), `${entry.model_slug}.${field}`).toBe(true);
        }
      }
    }
    expect(parseStandardRateCardFile(raw)).toHaveLength(raw.cards.length);
  });

  it('covers every provider the project prices', () => {
    const providers = new Set(raw.cards.map((c) => c.provider));
    for (const p of ['openai', 'anthropic', 'google', 'mistral', 'meta', 'deepseek', 'xai']) expect(providers).toContain(p);
  });

  it('every slug prices itself once its first card is in effect', () => {
    const cards = loadStandardRateCards();
    for (const entry of raw.cards) {
      const found = findTokenRateCard(cards, entry.model_slug, new Date(entry.effective_from));
      expect(found?.model_slug, entry.model_slug).toBe(entry.model_slug);
    }
  });

  it('prices real model names by longest prefix', () => {
    const cards = loadStandardRateCards();
    const t = new Date('2026-11-01');
    expect(findTokenRateCard(cards, 'gpt-4o-2024-08-06', t)?.model_slug).toBe('gpt-4o');
    expect(findTokenRateCard(cards, 'gpt-4o-mini-2024-07-18', t)?.model_slug).toBe('gpt-4o-mini');
    expect(findTokenRateCard(cards, 'gpt-4o-2024-05-13', t)?.model_slug).toBe('gpt-4o-2024-05-13');
    expect(findTokenRateCard(cards, 'claude-opus-4-1-20250805', t)?.model_slug).toBe('claude-opus-4-1');
    expect(findTokenRateCard(cards, 'claude-sonnet-5-5', t)?.model_slug).toBe('claude-sonnet-5-5');
    expect(findTokenRateCard(cards, 'gemini-2.5-flash-lite', t)?.model_slug).toBe('gemini-2.5-flash-lite');
    expect(findTokenRateCard(cards, 'meta-llama/llama-4-scout-17b-16e-instruct', t)?.model_slug).toBe('meta-llama/llama-4-scout');
  });

  it('dated price changes in the file take effect on their dates', () => {
    const cards = loadStandardRateCards();
    // gpt-4o: $5 at launch; $2.50 once the alias moved to gpt-4o-2024-08-06 on 2024-10-02.
    expect(findTokenRateCard(cards, 'gpt-4o', new Date('2024-09-01'))?.input_cost_per_million).toBe('5');
    expect(findTokenRateCard(cards, 'gpt-4o', new Date('2024-10-02'))?.input_cost_per_million).toBe('2.5');
  });

  it('reasoning is billed at the output rate wherever a reasoning rate is given', () => {
    for (const entry of raw.cards) {
      if (entry.reasoning_cost_per_million !== null) {
        expect(entry.reasoning_cost_per_million, entry.model_slug).toBe(entry.output_cost_per_million);
      }
    }
  });

  it('rejects a malformed file', () => {
    const bad = structuredClone(raw);
    (bad.cards[0] as unknown as Record<string, unknown>).input_cost_per_million = 2.5;
    expect(() => parseStandardRateCardFile(bad)).toThrow(/input_cost_per_million/);
    const dup = structuredClone(raw);
    dup.cards.push({ ...dup.cards[0]! });
    expect(() => parseStandardRateCardFile(dup)).toThrow(/duplicate/);
    const noSource = structuredClone(raw);
    noSource.cards[1]!.source = 'openai.com';
    expect(() => parseStandardRateCardFile(noSource)).toThrow(/source/);
  });
});
