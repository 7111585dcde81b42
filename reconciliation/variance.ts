// The reconciliation rule: the provider's cost set against ours per UTC day × provider × model,
// the variance in money (ours − provider's) and percent of the provider's cost (core/money's
// percent rule), and whether it is outside the tolerance. Only (day, provider) pairs a report
// covers are compared; our cost of the others is listed apart as unreported. Where a usage report
// covers the (day, provider), each row also sets the provider's token counts against ours per
// class (variance = ours − provider's), so a cost variance reads as price or as usage. Exact
// (big.js); pure.
import { compareCodePoints } from '../core/compare.js';
import { Big, formatMoney, percentOf, sumMoney } from '../core/money.js';
import { addTokens, type ProviderUsageLine, type TokenCounts } from './provider-usage-reports.js';

export interface ProviderCost {
  date: string;
  provider: string;
  model: string;
  project: string;
  amount: string;
}

export interface OurCost extends TokenCounts {
  date: string;
  provider: string;
  model: string;
  cost: string;
}

interface TokenClassComparison {
  provider: number;
  ours: number;
  /** ours − provider. */
  variance: number;
}

/** One row's tokens by class: input not read from cache (cache writes included), cache reads, output. */
interface TokenComparison {
  input_tokens: TokenClassComparison;
  cached_input_tokens: TokenClassComparison;
  output_tokens: TokenClassComparison;
}

type ReconciliationSide = 'both' | 'provider_only' | 'ours_only';

export interface VarianceFigures {
  /** The provider's cost, USD. */
  provider_cost: string;
  /** Our cost of completed events, USD. */
  our_cost: string;
  /** our_cost − provider_cost, USD. */
  variance: string;
  /** variance / provider_cost × 100, 2 decimals; null when the provider's cost is 0. */
  variance_percent: number | null;
  /** |variance| > tolerance_percent % of the provider's cost (any variance over a zero provider cost). */
  out_of_tolerance: boolean;
}

interface ReconciliationRow extends VarianceFigures {
  date: string;
  provider: string;
  model: string;
  side: ReconciliationSide;
  /** The provider's cost of this row by project, workspace or key, where the report has them. */
  projects: { project: string; provider_cost: string }[];
  /** The provider's tokens against ours; null when no usage report covers the row's day and provider. */
  tokens: TokenComparison | null;
}

interface ReconciliationDay extends VarianceFigures {
  date: string;
  /** Providers whose reports cover the day. */
  providers: string[];
}

interface UnreportedCost {
  date: string;
  provider: string;
  our_cost: string;
}

export interface Reconciliation {
  rows: ReconciliationRow[];
  days: ReconciliationDay[];
  unreported: UnreportedCost[];
}

/** The variance figures of one comparison; tolerance in percent of the provider's cost. */
export function varianceOf(providerCost: Big, ourCost: Big, tolerancePercent: Big): VarianceFigures {
  const variance = ourCost.minus(providerCost);
  const outOfTolerance = providerCost.eq(0) ? !variance.eq(0) : variance.abs().times(100).gt(tolerancePercent.times(providerCost.abs()));
  return {
    provider_cost: formatMoney(providerCost),
    our_cost: formatMoney(ourCost),
    variance: formatMoney(variance),
    variance_percent: providerCost.eq(0) ? null : percentOf(variance, providerCost),
    out_of_tolerance: outOfTolerance,
  };
}

const keyOf = (...parts: string[]) => JSON.stringify(parts);

interface Cell {
  date: string;
  provider: string;
  model: string;
  theirs: Big | null;
  ours: Big | null;
  projects: Map<string, Big>;
  theirTokens: TokenCounts;
  ourTokens: TokenCounts;
}

const NO_TOKENS: TokenCounts = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 };

function tokenComparison(theirs: TokenCounts, ours: TokenCounts): TokenComparison {
  const of = (k: keyof TokenCounts) => ({ provider: theirs[k], ours: ours[k], variance: ours[k] - theirs[k] });
  return { input_tokens: of('input_tokens'), cached_input_tokens: of('cached_input_tokens'), output_tokens: of('output_tokens') };
}

function cellsOf(
  providerCosts: readonly ProviderCost[],
  providerUsage: readonly ProviderUsageLine[],
  ourCosts: readonly OurCost[],
): { cells: Cell[]; unreported: UnreportedCost[] } {
  const cells = new Map<string, Cell>();
  const cellAt = (date: string, provider: string, model: string): Cell => {
    const key = keyOf(date, provider, model);
    let cell = cells.get(key);
    if (!cell) {
      cell = { date, provider, model, theirs: null, ours: null, projects: new Map(), theirTokens: NO_TOKENS, ourTokens: NO_TOKENS };
      cells.set(key, cell);
    }
    return cell;
  };
  const reported = new Set<string>();
  for (const p of providerCosts) {
    reported.add(keyOf(p.date, p.provider));
    const cell = cellAt(p.date, p.provider, p.model);
    cell.theirs = (cell.theirs ?? new Big(0)).plus(p.amount);
    if (p.project !== '') cell.projects.set(p.project, (cell.projects.get(p.project) ?? new Big(0)).plus(p.amount));
  }
  const unreported = new Map<string, UnreportedCost & { sum: Big }>();
  for (const o of ourCosts) {
    if (reported.has(keyOf(o.date, o.provider))) {
      const cell = cellAt(o.date, o.provider, o.model);
      cell.ours = (cell.ours ?? new Big(0)).plus(o.cost);
      cell.ourTokens = addTokens(cell.ourTokens, o);
    } else {
      const key = keyOf(o.date, o.provider);
      const seen = unreported.get(key) ?? { date: o.date, provider: o.provider, our_cost: '0', sum: new Big(0) };
      unreported.set(key, { ...seen, sum: seen.sum.plus(o.cost) });
    }
  }
  // Usage decorates the rows the costs make: a model no cost line names on either side is not listed.
  for (const u of providerUsage) {
    const cell = cells.get(keyOf(u.date, u.provider, u.model));
    if (cell) cell.theirTokens = addTokens(cell.theirTokens, u);
  }
  return {
    cells: [...cells.values()],
    unreported: [...unreported.values()]
      .map(({ date, provider, sum }) => ({ date, provider, our_cost: formatMoney(sum) }))
      .sort((a, b) => compareCodePoints(a.date, b.date) || compareCodePoints(a.provider, b.provider)),
  };
}

function rowOf(cell: Cell, tolerance: Big, usageReported: ReadonlySet<string>): ReconciliationRow {
  const side: ReconciliationSide = cell.theirs === null ? 'ours_only' : cell.ours === null ? 'provider_only' : 'both';
  const projects = [...cell.projects]
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([project, amount]) => ({ project, provider_cost: formatMoney(amount) }));
  return {
    date: cell.date,
    provider: cell.provider,
    model: cell.model,
    side,
    ...varianceOf(cell.theirs ?? new Big(0), cell.ours ?? new Big(0), tolerance),
    projects,
    tokens: usageReported.has(keyOf(cell.date, cell.provider)) ? tokenComparison(cell.theirTokens, cell.ourTokens) : null,
  };
}

/** Rows (day, provider, model order), day totals over the compared providers, our unreported cost. */
export function reconcile(input: {
  providerCosts: readonly ProviderCost[];
  /** The providers' token counts; rows of (day, provider) pairs none covers have tokens null. */
  providerUsage?: readonly ProviderUsageLine[];
  ourCosts: readonly OurCost[];
  tolerancePercent: Big;
}): Reconciliation {
  const providerUsage = input.providerUsage ?? [];
  const { cells, unreported } = cellsOf(input.providerCosts, providerUsage, input.ourCosts);
  const usageReported = new Set(providerUsage.map((u) => keyOf(u.date, u.provider)));
  const rows = cells
    .map((cell) => rowOf(cell, input.tolerancePercent, usageReported))
    .sort((a, b) => compareCodePoints(a.date, b.date) || compareCodePoints(a.provider, b.provider) || compareCodePoints(a.model, b.model));
  const byDay = new Map<string, ReconciliationRow[]>();
  for (const r of rows) byDay.set(r.date, [...(byDay.get(r.date) ?? []), r]);
  const days = [...byDay].map(([date, dayRows]) => ({
    date,
    providers: [...new Set(dayRows.map((r) => r.provider))],
    ...varianceOf(sumMoney(dayRows.map((r) => r.provider_cost)), sumMoney(dayRows.map((r) => r.our_cost)), input.tolerancePercent),
  }));
  return { rows, days, unreported };
}
