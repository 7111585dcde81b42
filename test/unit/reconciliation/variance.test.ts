import { describe, expect, it } from 'vitest';
import { Big } from '../../../core/money.js';
import { reconcile, varianceOf } from '../../../reconciliation/variance.js';

describe('varianceOf', () => {
  it('is ours − provider in money and percent of the provider, exact', () => {
    // 10.10 − 10 = 0.1 = 1% of 10: at the 1% tolerance, not beyond it.
    expect(varianceOf(new Big('10'), new Big('10.1'), new Big('1'))).toEqual({
      provider_cost: '10',
      our_cost: '10.1',
      variance: '0.1',
      variance_percent: 1,
      out_of_tolerance: false,
    });
    // 0.100000000001 over 10 is beyond 1% though its percent rounds to 1.
    expect(varianceOf(new Big('10'), new Big('10.100000000001'), new Big('1')).out_of_tolerance).toBe(true);
    // Under by 3 of 4: −75%.
    expect(varianceOf(new Big('4'), new Big('1'), new Big('1'))).toMatchObject({
      variance: '-3',
      variance_percent: -75,
      out_of_tolerance: true,
    });
  });
  it('has no percent over a zero provider cost, and any variance there is out of tolerance', () => {
    expect(varianceOf(new Big(0), new Big('0.5'), new Big('50'))).toMatchObject({ variance_percent: null, out_of_tolerance: true });
    expect(varianceOf(new Big(0), new Big(0), new Big('0'))).toMatchObject({
      variance: '0',
      variance_percent: null,
      out_of_tolerance: false,
    });
  });
});

describe('reconcile', () => {
  const providerCosts = [
    { date: '2026-01-02', provider: 'openai', model: 'gpt-4o', project: 'proj_a', amount: '3' },
    { date: '2026-01-02', provider: 'openai', model: 'gpt-4o', project: 'proj_b', amount: '1.5' },
    { date: '2026-01-02', provider: 'openai', model: 'dall-e-3', project: '', amount: '2' },
  ];
  const tokens = (input_tokens: number, cached_input_tokens: number, output_tokens: number) => ({
    input_tokens,
    cached_input_tokens,
    output_tokens,
  });
  const ourCosts = [
    { date: '2026-01-02', provider: 'openai', model: 'gpt-4o', cost: '4.5', ...tokens(1_000, 200, 300) },
    { date: '2026-01-02', provider: 'openai', model: 'gpt-4o', cost: '0', ...tokens(500, 0, 0) },
    { date: '2026-01-02', provider: 'openai', model: 'gpt-4o-mini', cost: '0.25', ...tokens(10, 0, 5) },
    // No anthropic report for that day: not compared, listed as unreported.
    { date: '2026-01-02', provider: 'anthropic', model: 'claude-sonnet-4', cost: '7', ...tokens(1, 0, 1) },
    { date: '2026-01-02', provider: 'anthropic', model: 'claude-haiku-4', cost: '1', ...tokens(1, 0, 1) },
  ];
  it('rows per day × provider × model with the side that has them, day totals, unreported cost', () => {
    const r = reconcile({ providerCosts, ourCosts, tolerancePercent: new Big('1') });
    expect(r.rows).toEqual([
      {
        date: '2026-01-02',
        provider: 'openai',
        model: 'dall-e-3',
        side: 'provider_only',
        provider_cost: '2',
        our_cost: '0',
        variance: '-2',
        variance_percent: -100,
        out_of_tolerance: true,
        projects: [],
        tokens: null,
      },
      {
        date: '2026-01-02',
        provider: 'openai',
        model: 'gpt-4o',
        side: 'both',
        provider_cost: '4.5',
        our_cost: '4.5',
        variance: '0',
        variance_percent: 0,
        out_of_tolerance: false,
        projects: [
          { project: 'proj_a', provider_cost: '3' },
          { project: 'proj_b', provider_cost: '1.5' },
        ],
        tokens: null,
      },
      {
        date: '2026-01-02',
        provider: 'openai',
        model: 'gpt-4o-mini',
        side: 'ours_only',
        provider_cost: '0',
        our_cost: '0.25',
        variance: '0.25',
        variance_percent: null,
        out_of_tolerance: true,
        projects: [],
        tokens: null,
      },
    ]);
    // Day: provider 2 + 4.5 = 6.5, ours 4.5 + 0.25 = 4.75, variance −1.75 = −26.923…% → −26.92.
    expect(r.days).toEqual([
      {
        date: '2026-01-02',
        providers: ['openai'],
        provider_cost: '6.5',
        our_cost: '4.75',
        variance: '-1.75',
        variance_percent: -26.92,
        out_of_tolerance: true,
      },
    ]);
    expect(r.unreported).toEqual([{ date: '2026-01-02', provider: 'anthropic', our_cost: '8' }]);
  });
  it("sets the provider's tokens against ours per class where a usage report covers the day and provider", () => {
    const providerUsage = [
      { date: '2026-01-02', provider: 'openai', model: 'gpt-4o', project: 'proj_a', ...tokens(1_200, 150, 300) },
      { date: '2026-01-02', provider: 'openai', model: 'gpt-4o', project: 'proj_b', ...tokens(100, 0, 0) },
      // A model no cost line names: not listed.
      { date: '2026-01-02', provider: 'openai', model: 'o3', project: '', ...tokens(9, 9, 9) },
    ];
    const r = reconcile({ providerCosts, providerUsage, ourCosts, tolerancePercent: new Big('1') });
    const byModel = new Map(r.rows.map((row) => [row.model, row.tokens]));
    // gpt-4o: ours input 1,000 + 500 = 1,500 against 1,200 + 100 = 1,300 → +200; cached 200 − 150 = +50; output 300 − 300 = 0.
    expect(byModel.get('gpt-4o')).toEqual({
      input_tokens: { provider: 1_300, ours: 1_500, variance: 200 },
      cached_input_tokens: { provider: 150, ours: 200, variance: 50 },
      output_tokens: { provider: 300, ours: 300, variance: 0 },
    });
    // The report covers (2026-01-02, openai): rows it has no usage for compare against 0.
    expect(byModel.get('gpt-4o-mini')).toEqual({
      input_tokens: { provider: 0, ours: 10, variance: 10 },
      cached_input_tokens: { provider: 0, ours: 0, variance: 0 },
      output_tokens: { provider: 0, ours: 5, variance: 5 },
    });
    expect(byModel.get('dall-e-3')!.input_tokens).toEqual({ provider: 0, ours: 0, variance: 0 });
    expect(byModel.has('o3')).toBe(false);
  });
});
