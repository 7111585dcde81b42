// Expected cost of an event worked out independently of the service, with big.js: each token class
// times its rate (USD per million tokens). Used to check what the read methods return.
import Big from 'big.js';
import type { RateCard } from './tenant.js';

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  reasoning_tokens?: number;
}

const CLASSES = [
  ['input_tokens', 'input_cost_per_million', 'input_cost'],
  ['output_tokens', 'output_cost_per_million', 'output_cost'],
  ['cache_creation_input_tokens', 'cache_creation_cost_per_million', 'cache_creation_cost'],
  ['cache_read_input_tokens', 'cache_read_cost_per_million', 'cache_read_cost'],
  ['reasoning_tokens', 'reasoning_cost_per_million', 'reasoning_cost'],
] as const;

export type ClassCosts = Record<(typeof CLASSES)[number][2], Big> & { total: Big };

export function expectedCost(tokens: TokenCounts, card: RateCard): ClassCosts {
  const out = { total: new Big(0) } as ClassCosts;
  for (const [t, rate, cost] of CLASSES) {
    const n = tokens[t] ?? 0;
    const r = card[rate] ?? '0';
    out[cost] = new Big(n).times(r).div(1_000_000);
    out.total = out.total.plus(out[cost]);
  }
  return out;
}

export function sumCosts(list: ClassCosts[]): ClassCosts {
  const out = { total: new Big(0) } as ClassCosts;
  for (const [, , cost] of CLASSES) out[cost] = list.reduce((s, c) => s.plus(c[cost]), new Big(0));
  out.total = list.reduce((s, c) => s.plus(c.total), new Big(0));
  return out;
}

/** True when the API's decimal string is exactly `expected`. */
export function sameAmount(actual: string | null | undefined, expected: Big): boolean {
  return typeof actual === 'string' && /^-?\d+(\.\d+)?$/.test(actual) && new Big(actual).eq(expected);
}
