// What-if rules: substitutions checked field by field, token scaling rounded half-up in exact
// decimals, and worked examples priced by hand (rates per million tokens; a card in effect at each
// event's timestamp; cost_override kept; other models carried over as stored).
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../core/errors.js';
import { Big } from '../../../../core/money.js';
import { buildTokenRateIndex, buildUnitRateIndex, type TokenRateCard } from '../../../../pricing/rate-card-match.js';
import { scenarioRates, type ScenarioRates } from '../../../../api/what-if/what-if-scenario.js';
import {
  assertCardsExist,
  linearSubstitutions,
  parseScenario,
  parseSubstitutions,
  type Scenario,
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

const CARDS = [
  card('alpha', '2025-01-01T00:00:00Z', '2.5', '10', '1.25'),
  card('beta', '2025-01-01T00:00:00Z', '0.15', '0.6'),
  // beta's price doubles from June: events after it are priced at this card.
  card('beta', '2025-06-01T00:00:00Z', '0.3', '1.2'),
];

const BASE = { tokenCards: buildTokenRateIndex(CARDS), unitRates: buildUnitRateIndex([]) };

/** The scenario of a request body and the rates it prices at, over CARDS. */
function scenarioOf(body: Parameters<typeof parseScenario>[0]): { scenario: Scenario; rates: ScenarioRates } {
  const scenario = parseScenario(body);
  return { scenario, rates: scenarioRates(CARDS, BASE, scenario.priceChanges, scenario.cards) };
}
const rates = scenarioOf({ substitutions: [{ from_model: 'alpha', to_model: 'beta' }] }).rates;

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
    expect(parseSubstitutions(undefined)).toEqual([]);
    // A scenario without any change names substitutions.
    expect(fieldOf(() => parseScenario({ substitutions: [] }))).toEqual([400, 'substitutions']);
    expect(fieldOf(() => parseScenario({}))).toEqual([400, 'substitutions']);
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
    const { scenario } = scenarioOf({
      substitutions: [
        { from_model: 'alpha', to_model: 'beta' },
        { from_model: 'gamma', to_model: 'no-such-model' },
      ],
    });
    const subs = scenario.substitutions;
    expect(fieldOf(() => assertCardsExist(subs, rates, new Date('2025-04-01T00:00:00Z')))).toEqual([422, 'substitutions[1].to_model']);
    // beta has no cache-read rate: an alpha event with cache reads cannot move to it.
    expect(fieldOf(() => simulatedCostOf(group({ cache_read_input_tokens: 10 }), scenario, rates))).toEqual([
      422,
      'substitutions[0].to_model',
    ]);
    // Before beta's first card, events cannot be priced at it either.
    expect(fieldOf(() => simulatedCostOf(group({ timestamp: new Date('2024-12-31T23:59:59Z') }), scenario, rates))).toEqual([
      422,
      'substitutions[0].to_model',
    ]);
  });
});

describe('whatIf', () => {
  const { scenario, rates } = scenarioOf({ substitutions: [{ from_model: 'alpha', to_model: 'beta', token_ratio: 1.5 }] });

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
    expect(whatIf({ actual, groups, scenario, rates, revenue })).toEqual({
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
      scenario,
      rates,
      revenue: null,
    });
    expect(out.end_users[0]).toMatchObject({ actual_margin: null, simulated_margin: null });
    expect(out.difference).toBe('0');
  });
});

describe('price changes, cache hit rate and hypothetical cards', () => {
  // One alpha event in March: 1000 in, 100 out, 400 cache reads; stored at alpha's card
  // (1000 × 2.5 + 100 × 10 + 400 × 1.25) / 1e6 = 0.004.
  const stored = { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 400, provider: 'openai', actual_cost: '0.004' };
  const cost = (body: Parameters<typeof parseScenario>[0], fields: Partial<SubstitutedGroup> = stored) => {
    const { scenario, rates } = scenarioOf(body);
    return simulatedCostOf(group(fields), scenario, rates)?.toFixed() ?? null;
  };

  it('+20% on input for the provider: (1000 × 3 + 100 × 10 + 400 × 1.25) / 1e6 = 0.0045', () => {
    expect(cost({ price_changes: [{ provider: 'openai', token_class: 'input', percent: 20 }] })).toBe('0.0045');
    // Another provider's change leaves the event alone (its stored cost is kept).
    expect(cost({ price_changes: [{ provider: 'anthropic', percent: 20 }] })).toBeNull();
  });

  it('a model at −50% on every class: 0.004 / 2 = 0.002; changes compose: +10% then +10% on output is × 1.21', () => {
    expect(cost({ price_changes: [{ model: 'alpha', percent: -50 }] })).toBe('0.002');
    // output rate 10 × 1.1 × 1.1 = 12.1: (2500 + 100 × 12.1 + 500) / 1e6 = 0.00421
    expect(
      cost({
        price_changes: [
          { model: 'alpha', token_class: 'output', percent: 10 },
          { provider: 'openai', token_class: 'output', percent: 10 },
        ],
      }),
    ).toBe('0.00421');
  });

  it('a price change applies to the substituted model: beta +100% → (1000 × 0.3 + 100 × 1.2) / 1e6 = 0.00042', () => {
    expect(
      cost(
        { substitutions: [{ from_model: 'alpha', to_model: 'beta' }], price_changes: [{ model: 'beta', percent: 100 }] },
        { ...stored, cache_read_input_tokens: null },
      ),
    ).toBe('0.00042');
  });

  it('a 25% cache hit rate moves 250 input tokens to cache reads: (750 × 2.5 + 100 × 10 + 650 × 1.25) / 1e6 = 0.0036875', () => {
    expect(cost({ cache_hit_rate: { percent: 25 } })).toBe('0.0036875');
    // 33.3% of 1000 = 333 (half-up): (667 × 2.5 + 1000 + 733 × 1.25) / 1e6 = 0.00358375
    expect(cost({ cache_hit_rate: { percent: 33.3, model: 'alpha' } })).toBe('0.00358375');
    // beta's card has no cache-read rate: its events are left alone; other models' too.
    expect(cost({ cache_hit_rate: { percent: 25 } }, { ...stored, model: 'beta', cache_read_input_tokens: null })).toBeNull();
    expect(cost({ cache_hit_rate: { percent: 25, model: 'beta' } })).toBeNull();
  });

  it('a hypothetical card replaces alpha at every date: (1000 × 1 + 100 × 4 + 400 × 0.5) / 1e6 = 0.0016', () => {
    const hypothetical = {
      model_slug: 'Alpha',
      input_cost_per_million: '1',
      output_cost_per_million: '4',
      cache_read_cost_per_million: '0.5',
    };
    expect(cost({ cards: [hypothetical] })).toBe('0.0016');
    // Before alpha's own first card too (the hypothetical one is in effect since the epoch).
    expect(cost({ cards: [hypothetical] }, { ...stored, timestamp: new Date('2020-01-01T00:00:00Z') })).toBe('0.0016');
    // Events of other models are not touched.
    expect(cost({ cards: [hypothetical] }, { ...stored, model: 'beta', cache_read_input_tokens: null })).toBeNull();
    // A card without a cache-read rate cannot price cache reads: 422 naming cards.
    expect(fieldOf(() => cost({ cards: [{ ...hypothetical, cache_read_cost_per_million: null }] }))).toEqual([422, 'cards']);
  });

  it('names the failing field (400)', () => {
    expect(fieldOf(() => parseScenario({ price_changes: [{ percent: -101 }] }))).toEqual([400, 'price_changes[0].percent']);
    expect(fieldOf(() => parseScenario({ price_changes: [{ percent: 1, token_class: 'x' as 'input' }] }))).toEqual([
      400,
      'price_changes[0].token_class',
    ]);
    expect(fieldOf(() => parseScenario({ price_changes: [{ percent: 1, provider: ' ' }] }))).toEqual([400, 'price_changes[0].provider']);
    expect(fieldOf(() => parseScenario({ cache_hit_rate: { percent: 101 } }))).toEqual([400, 'cache_hit_rate.percent']);
    const c = { model_slug: 'x', input_cost_per_million: '1', output_cost_per_million: '1' };
    expect(fieldOf(() => parseScenario({ cards: [{ ...c, input_cost_per_million: '-1' }] }))).toEqual([
      400,
      'cards[0].input_cost_per_million',
    ]);
    expect(fieldOf(() => parseScenario({ cards: [c, { ...c, model_slug: 'X' }] }))).toEqual([400, 'cards[1].model_slug']);
  });
});

describe('linearSubstitutions', () => {
  const sub = (to: string, ratio?: number) => ({ substitutions: [{ from_model: 'alpha', to_model: to, token_ratio: ratio }] });
  const range = (start: string, end: string) => ({ start: new Date(start), end: new Date(end) });
  const linear = (body: Parameters<typeof parseScenario>[0], r = range('2025-02-01', '2025-03-01')) => {
    const { scenario, rates } = scenarioOf(body);
    return linearSubstitutions(scenario, rates, r).map((s) => s.toModel);
  };

  it('one card over the whole range, rates of at most 6 decimals: summed in the lake', () => {
    expect(linear(sub('beta', 1.5))).toEqual(['beta']);
    // The June card starts after the range ends: it prices nothing here.
    expect(linear(sub('beta-large'), range('2025-02-01', '2025-06-01'))).toEqual(['beta-large']);
  });

  it('a card starting inside the range, a ratio past 12 decimals, or any other kind of change: event by event', () => {
    expect(linear(sub('beta'), range('2025-05-01', '2025-07-01'))).toEqual([]);
    expect(linear(sub('beta', 1.0000000000001))).toEqual([]);
    expect(linear({ ...sub('beta'), cache_hit_rate: { percent: 10 } })).toEqual([]);
    // A hypothetical card with a 7-decimal rate: its cost per token would be rounded.
    const cards = [{ model_slug: 'beta', input_cost_per_million: '0.1234567', output_cost_per_million: '1' }];
    const { scenario } = scenarioOf({ ...sub('beta'), cards });
    const rates = scenarioRates(CARDS, BASE, [], scenario.cards);
    expect(linearSubstitutions({ ...scenario, cards: [] }, rates, range('2025-02-01', '2025-03-01'))).toEqual([]);
  });
});
