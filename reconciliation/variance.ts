// The reconciliation rule: the provider's cost set against ours per UTC day × provider × model,
// the variance in money (ours − provider's) and percent of the provider's cost (core/money's
// percent rule), and whether it is outside the tolerance. Only (day, provider) pairs a report
// covers are compared; our cost of the others is listed apart as unreported. Exact (big.js); pure.
import { compareCodePoints } from '../core/compare.js';
import { Big, formatMoney, percentOf, sumMoney } from '../core/money.js';

export interface ProviderCost {
  date: string;
  provider: string;
  model: string;
  project: string;
  amount: string;
}

export interface OurCost {
  date: string;
  provider: string;
  model: string;
  cost: string;
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
}

function cellsOf(providerCosts: readonly ProviderCost[], ourCosts: readonly OurCost[]): { cells: Cell[]; unreported: UnreportedCost[] } {
  const cells = new Map<string, Cell>();
  const cellAt = (date: string, provider: string, model: string): Cell => {
    const key = keyOf(date, provider, model);
    let cell = cells.get(key);
    if (!cell) {
      cell = { date, provider, model, theirs: null, ours: null, projects: new Map() };
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
    } else {
      const key = keyOf(o.date, o.provider);
      const seen = unreported.get(key) ?? { date: o.date, provider: o.provider, our_cost: '0', sum: new Big(0) };
      unreported.set(key, { ...seen, sum: seen.sum.plus(o.cost) });
    }
  }
  return {
    cells: [...cells.values()],
    unreported: [...unreported.values()]
      .map(({ date, provider, sum }) => ({ date, provider, our_cost: formatMoney(sum) }))
      .sort((a, b) => compareCodePoints(a.date, b.date) || compareCodePoints(a.provider, b.provider)),
  };
}

function rowOf(cell: Cell, tolerance: Big): ReconciliationRow {
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
  };
}

/** Rows (day, provider, model order), day totals over the compared providers, our unreported cost. */
export function reconcile(input: {
  providerCosts: readonly ProviderCost[];
  ourCosts: readonly OurCost[];
  tolerancePercent: Big;
}): Reconciliation {
  const { cells, unreported } = cellsOf(input.providerCosts, input.ourCosts);
  const rows = cells
    .map((cell) => rowOf(cell, input.tolerancePercent))
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
