// What-if rules: substitutions checked field by field, token scaling rounded half-up in exact
// decimals, and worked examples priced by hand (rates per million tokens; a card in effect at each
// event's timestamp; cost_override kept; other models carried over as stored).
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../core/errors.js';
import { Big } from '../../../../core/money.js';
import type { PricingRates } from '../../../../pricing/price-event.js';
import { buildTokenRateIndex, buildUnitRateIndex, type TokenRateCard } from '../../../../pricing/rate-card-match.js';
import {
  assertCardsExist,
  parseSubstitutions,
  scaleTokens,
  simulatedCostOf,
  whatIf,
  type SubstitutedGroup,
} from '../../../../api/what-if/what-if.js';

const card = (slug: string, from: string, input: string, output: string, cacheRead: string | null = null): TokenRateCard => ({
  model_slug: slug,
  input_cost_per_million: input,
  output_cost_per_million: output,
  cache_creation_cost_per_million: null,
  cache_read_cost_per_million: cacheRead,
  reasoning_cost_per_million: null,
  effective_from: new Date(from),
});

const rates: PricingRates = {
  tokenCards: buildTokenRateIndex([
    card('alpha', '2025-01-01T00:00:00Z', '2.5', '10', '1.25'),
    card('beta', '2025-01-01T00:00:00Z', '0.15', '0.6'),
    // beta's price doubles from June: events after it are priced at this card.
    card('beta', '2025-06-01T00:00:00Z', '0.3', '1.2'),
  ]),
  unitRates: buildUnitRateIndex([]),
};

function group(fields: Partial<SubstitutedGroup>): SubstitutedGroup {
  return {
    end_user_id: 'u1',
    timestamp: new Date('2025-03-01T10:00:00Z'),
    model: 'alpha',
    provider: null,
    metric: null,
    unit: null,
    quantity: null,
    cost_override: null,
    service_tier: null,
    input_tokens: 1000,
    output_tokens: 100,
    count: 1,
    actual_cost: '0',
    ...fields,
  };
}

function fieldOf(f: () => unknown): [number, string | undefined] {
  try {
    f();
  } catch (e) {
    if (e instanceof AppError) return [e.status, e.details?.field];
    throw e;
  }
  throw new Error('did not throw');
}

describe('scaleTokens', () => {
  it('rounds half-up to whole tokens, exactly', () => {
    expect(scaleTokens(3, new Big('1.5'))).toBe(5); // 4.5 → 5
    expect(scaleTokens(1, new Big('1.5'))).toBe(2); // 1.5 → 2
    expect(scaleTokens(5, new Big('0.5'))).toBe(3); // 2.5 → 3
    expect(scaleTokens(3, new Big('0.1'))).toBe(0); // 0.3 (a double would say 0.30000000000000004)
    expect(scaleTokens(1_000_000_001, new Big('1.5'))).toBe(1_500_000_002); // 1500000001.5 → …02
    expect(scaleTokens(0, new Big('1.5'))).toBe(0);
    expect(scaleTokens(null, new Big('1.5'))).toBeNull();
  });
});

describe('parseSubstitutions', () => {
  it('defaults token_ratio to 1 and keeps the order', () => {
    const subs = parseSubstitutions([
      { from_model: 'alpha', to_model: 'beta' },
      { from_model: 'gamma', to_model: 'beta', token_ratio: 0.8 },
    ]);
    expect(subs.map((s) => [s.fromModel, s.toModel, s.tokenRatio.toString(), s.index])).toEqual([
      ['alpha', 'beta', '1', 0],
      ['gamma', 'beta', '0.8', 1],
    ]);
  });

  it('names the failing field (400)', () => {
    expect(fieldOf(() => parseSubstitutions([]))).toEqual([400, 'substitutions']);
    expect(fieldOf(() => parseSubstitutions(undefined))).toEqual([400, 'substitutions']);
    const many = Array.from({ length: 21 }, (_, i) => ({ from_model: `m${i}`, to_model: 'beta' }));
    expect(fieldOf(() => parseSubstitutions(many))).toEqual([400, 'substitutions']);
    expect(fieldOf(() => parseSubstitutions([{ from_model: ' ', to_model: 'beta' }]))).toEqual([400, 'substitutions[0].from_model']);
    expect(fieldOf(() => parseSubstitutions([{ from_model: 'alpha', to_model: '' }]))).toEqual([400, 'substitutions[0].to_model']);
    expect(fieldOf(() => parseSubstitutions([{ from_model: 'al\u0000pha', to_model: 'beta' }]))).toEqual([
      400,
      'substitutions[0].from_model',
    ]);
    expect(
      fieldOf(() =>
        parseSubstitutions([
          { from_model: 'alpha', to_model: 'beta' },
          { from_model: 'alpha', to_model: 'gamma' },
        ]),
      ),
    ).toEqual([400, 'substitutions[1].from_model']);
    for (const bad of [0, -1, 1001, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(fieldOf(() => parseSubstitutions([{ from_model: 'alpha', to_model: 'beta', token_ratio: bad }]))).toEqual([
        400,
        'substitutions[0].token_ratio',
      ]);
    }
  });
});

describe('rate cards of the target model', () => {
  it('a to_model no card prices is 422 naming it, before and while pricing', () => {
    const subs = parseSubstitutions([
      { from_model: 'alpha', to_model: 'beta' },
      { from_model: 'gamma', to_model: 'no-such-model' },
    ]);
    expect(fieldOf(() => assertCardsExist(subs, rates, new Date('2025-04-01T00:00:00Z')))).toEqual([422, 'substitutions[1].to_model']);
    // beta has no cache-read rate: an alpha event with cache reads cannot move to it.
    expect(fieldOf(() => simulatedCostOf(group({ cache_read_input_tokens: 10 }), subs[0]!, rates))).toEqual([
      422,
      'substitutions[0].to_model',
    ]);
    // Before beta's first card, events cannot be priced at it either.
    expect(fieldOf(() => simulatedCostOf(group({ timestamp: new Date('2024-12-31T23:59:59Z') }), subs[0]!, rates))).toEqual([
      422,
      'substitutions[0].to_model',
    ]);
  });
});

describe('whatIf', () => {
  const subs = parseSubstitutions([{ from_model: 'alpha', to_model: 'beta', token_ratio: 1.5 }]);

  it('re-prices the substituted groups by hand, carries the rest, margins where revenue is known', () => {
    // u1: two alpha events in March, 1000 in / 100 out each: stored 2 × (1000 × 2.5 + 100 × 10) / 1e6 = 0.007.
    //     As beta × 1.5: 1500 in, 150 out at 0.15 / 0.6 → (225 + 90) / 1e6 = 0.000315 each, 0.00063 both.
    //     One alpha event in July, same tokens, stored 0.0035; beta's July card 0.3 / 1.2 →
    //     (1500 × 0.3 + 150 × 1.2) / 1e6 = 0.00063.
    //     Plus 1 of other models (kept as stored). Actual 0.007 + 0.0035 + 1 = 1.0105;
    //     simulated 0.00063 + 0.00063 + 1 = 1.00126.
    // u2: one alpha event with cost_override 0.5 (kept) and 2 of other models: 2.5 both ways.
    // Unattributed: 0.25 of other models, in the totals only.
    const groups = [
      group({ count: 2, actual_cost: '0.007' }),
      group({ timestamp: new Date('2025-07-01T00:00:00Z'), actual_cost: '0.0035' }),
      group({ end_user_id: 'u2', cost_override: '0.5', actual_cost: '0.5' }),
    ];
    const actual = [
      { endUserId: 'u2', externalId: 'bob', cost: '2.5' },
      { endUserId: 'u1', externalId: 'alice', cost: '1.0105' },
      { endUserId: null, externalId: null, cost: '0.25' },
    ];
    const revenue = new Map([['u1', new Big('3')]]);
    expect(whatIf({ actual, groups, substitutions: subs, rates, revenue })).toEqual({
      actual_cost: '3.7605', // 1.0105 + 2.5 + 0.25
      simulated_cost: '3.75126', // 1.00126 + 2.5 + 0.25
      difference: '-0.00924', // (0.00063 − 0.007) + (0.00063 − 0.0035)
      end_users: [
        {
          end_user_id: 'u1',
          external_id: 'alice',
          actual_cost: '1.0105',
          simulated_cost: '1.00126',
          actual_margin: '1.9895',
          simulated_margin: '1.99874',
        },
        { end_user_id: 'u2', external_id: 'bob', actual_cost: '2.5', simulated_cost: '2.5', actual_margin: null, simulated_margin: null },
      ],
    });
  });

  it('without revenue (no revenue:read) every margin is null', () => {
    const out = whatIf({
      actual: [{ endUserId: 'u1', externalId: 'alice', cost: '1' }],
      groups: [],
      substitutions: subs,
      rates,
      revenue: null,
    });
    expect(out.end_users[0]).toMatchObject({ actual_margin: null, simulated_margin: null });
    expect(out.difference).toBe('0');
  });
});
