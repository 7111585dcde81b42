// The what-if panel's rules: a substitution typed into the form as a scenario, a scenario in words,
// and the per-customer rows of an answer with their difference, worked from the API's decimal
// strings with big.js (never a float). Pure.
import Big from 'big.js';
import type { WhatIfEndUser, WhatIfScenario } from './what-if.queries.js';

/** The form's substitution as a scenario, or why not: the ratio, when given, a decimal above 0 and at most 1000 (the API's bounds). */
export function substitutionScenario(from: string, to: string, ratio: string): { scenario: WhatIfScenario } | { error: string } {
  if (from === '') return { error: 'Pick the model to move away from.' };
  if (to.trim() === '') return { error: 'Type or pick the model to price its events at.' };
  const r = ratio.trim();
  if (r !== '' && (!/^\d+(\.\d+)?$/.test(r) || new Big(r).lte(0) || new Big(r).gt(1000))) {
    return { error: 'The token ratio is a number above 0 and at most 1000 (1.2: the new model uses 20% more tokens).' };
  }
  return {
    scenario: { substitutions: [{ from_model: from, to_model: to.trim(), ...(r === '' ? {} : { token_ratio: Number(r) }) }] },
  };
}

/** "gpt-4o → gpt-4o-mini (tokens × 1.2); input +20% for openai; 30% cache hits; only agent support". */
export function scenarioText(s: WhatIfScenario): string {
  const parts = [
    ...(s.substitutions ?? []).map(
      (x) => `${x.from_model} → ${x.to_model}${x.token_ratio === undefined || x.token_ratio === 1 ? '' : ` (tokens × ${x.token_ratio})`}`,
    ),
    ...(s.price_changes ?? []).map(
      (c) =>
        `${c.token_class ?? 'all'} rates ${c.percent >= 0 ? '+' : ''}${c.percent}%${c.provider ? ` for ${c.provider}` : ''}${c.model ? ` on ${c.model}` : ''}`,
    ),
    ...(s.cache_hit_rate
      ? [`${s.cache_hit_rate.percent}% cache hits${s.cache_hit_rate.model ? ` on ${s.cache_hit_rate.model}` : ''}`]
      : []),
    ...(s.cards ?? []).map((c) => `card ${c.model_slug} at ${c.input_cost_per_million} / ${c.output_cost_per_million} per 1M`),
  ];
  const scope = [
    s.end_user_id && 'one end user',
    s.agent && `agent ${s.agent}`,
    s.workflow && `workflow ${s.workflow}`,
    s.feature && `feature ${s.feature}`,
    s.dimension && `${s.dimension.key} = ${s.dimension.value}`,
  ].filter(Boolean);
  return `${parts.join('; ')}${scope.length > 0 ? `; only ${scope.join(', ')}` : ''}`;
}

/** simulated − actual, exactly: "-12.5" is a saving. */
export const difference = (actual: string, simulated: string): string => new Big(simulated).minus(actual).toFixed();

export interface WhatIfRow extends WhatIfEndUser {
  name: string;
  difference: string;
}

/** The answer's customers named as the console names them (else their external id), each with its difference. */
export function whatIfRows(endUsers: readonly WhatIfEndUser[], names: ReadonlyMap<string, string>): WhatIfRow[] {
  return endUsers.map((u) => ({
    ...u,
    name: names.get(u.end_user_id) ?? u.external_id ?? u.end_user_id,
    difference: difference(u.actual_cost, u.simulated_cost),
  }));
}
