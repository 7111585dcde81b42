// The Reconciliation page's figures from the API's answer: the range's totals over the compared
// days by the API's own variance rule (reconciliation/variance.ts, not a copy), the words for
// what only one side has, and a token variance's sign. Pure, exact decimals.
import Big from 'big.js';
import { varianceOf, type VarianceFigures } from '../../../../reconciliation/variance.js';
import { sumMoney } from '../../format/money.js';
import type { ReconciliationReport, ReconciliationRow } from './reconciliation.queries.js';

export interface ReconciliationTotals extends VarianceFigures {
  /** Days beyond the tolerance, of `days` compared. */
  daysOut: number;
  days: number;
}

export function reconciliationTotals(r: ReconciliationReport): ReconciliationTotals {
  const figures = varianceOf(
    new Big(sumMoney(r.days.map((d) => d.provider_cost))),
    new Big(sumMoney(r.days.map((d) => d.our_cost))),
    new Big(r.tolerance_percent),
  );
  return {
    ...figures,
    daysOut: r.days.filter((d) => d.out_of_tolerance).length,
    days: r.days.length,
  };
}

/** What a row's side means to a reader: the provider billed something we have no events of, or the reverse. */
export function sideText(side: ReconciliationRow['side']): string | null {
  if (side === 'provider_only') return 'only in the provider’s report';
  if (side === 'ours_only') return 'only in our events';
  return null;
}

/** A token variance with its sign (ours − provider's): "+400,000", "−300,000", "0". */
export function signedTokens(value: number): string {
  const digits = Math.abs(value).toLocaleString('en-US');
  return value > 0 ? `+${digits}` : value < 0 ? `−${digits}` : '0';
}
