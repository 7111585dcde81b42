// The what-if panel's rules: the form's substitution checked as the API bounds it, a scenario in
// words, and per-customer differences worked exactly from the API's decimal strings.
import { describe, expect, it } from 'vitest';
import { difference, scenarioText, substitutionScenario, whatIfRows } from '../../../console/src/pages/what-if/what-if.js';

describe('substitutionScenario', () => {
  it('a ratio is optional; given, it is sent as the number typed', () => {
    expect(substitutionScenario('gpt-4o', ' gpt-4o-mini ', '')).toEqual({
      scenario: { substitutions: [{ from_model: 'gpt-4o', to_model: 'gpt-4o-mini' }] },
    });
    expect(substitutionScenario('gpt-4o', 'gpt-4o-mini', '1.5')).toEqual({
      scenario: { substitutions: [{ from_model: 'gpt-4o', to_model: 'gpt-4o-mini', token_ratio: 1.5 }] },
    });
  });

  it('refuses a missing model and a ratio outside (0, 1000] or not a decimal', () => {
    for (const [from, to, ratio] of [
      ['', 'b', ''],
      ['a', ' ', ''],
      ['a', 'b', '0'],
      ['a', 'b', '1000.5'],
      ['a', 'b', '1e3'],
      ['a', 'b', '-1'],
      ['a', 'b', 'one'],
    ] as const) {
      expect('error' in substitutionScenario(from, to, ratio)).toBe(true);
    }
    expect('error' in substitutionScenario('a', 'b', '1000')).toBe(false);
  });
});

describe('scenarioText', () => {
  it('names every change and the scope', () => {
    expect(
      scenarioText({
        agent: 'support',
        substitutions: [
          { from_model: 'gpt-4o', to_model: 'gpt-4o-mini', token_ratio: 1.2 },
          { from_model: 'o3', to_model: 'o3-mini', token_ratio: 1 },
        ],
        price_changes: [{ provider: 'openai', token_class: 'input', percent: 20 }],
        cache_hit_rate: { percent: 30 },
      }),
    ).toBe('gpt-4o → gpt-4o-mini (tokens × 1.2); o3 → o3-mini; input rates +20% for openai; 30% cache hits; only agent support');
  });
});

describe('whatIfRows', () => {
  it('differences exact (0.1 + 0.2 is not a float here), names from the console, else the external id', () => {
    // 0.3 − 0.1 = 0.2 exactly; 1.000000000001 − 2 = −0.999999999999.
    expect(difference('0.1', '0.3')).toBe('0.2');
    const rows = whatIfRows(
      [
        {
          end_user_id: 'u1',
          external_id: 'carol',
          actual_cost: '2',
          simulated_cost: '1.000000000001',
          actual_margin: null,
          simulated_margin: null,
        },
        { end_user_id: 'u2', external_id: 'dave', actual_cost: '0.1', simulated_cost: '0.3', actual_margin: '1', simulated_margin: '0.8' },
      ],
      new Map([['u2', 'Dave & Co']]),
    );
    expect(rows.map((r) => [r.name, r.difference])).toEqual([
      ['carol', '-0.999999999999'],
      ['Dave & Co', '0.2'],
    ]);
  });
});
