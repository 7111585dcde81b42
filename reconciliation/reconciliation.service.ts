// Reconciliation's public surface: importing a provider's cost or usage report (parse, sum,
// replace its days) and what the read endpoint (api/reconciliation/) needs from the control plane:
// the imported figures and token counts of a range and the organization's tolerance.
import { compareCodePoints } from '../core/compare.js';
import type { ControlDb, Queryable } from '../core/control/db.js';
import { Big, formatMoney, sumMoney } from '../core/money.js';
import { parseProviderReport, sumCostLines, type ReportFormat } from './provider-reports.js';
import {
  addTokens,
  parseUsageReport,
  sumUsageLines,
  type ProviderUsageLine,
  type TokenCounts,
  type UsageReportFormat,
} from './provider-usage-reports.js';
import {
  getTolerancePercent,
  listProviderCosts,
  listProviderUsage,
  replaceProviderCosts,
  replaceProviderUsage,
  setTolerancePercent,
} from './reconciliation.store.js';
import type { ProviderCost } from './variance.js';

/** Percent of the provider's cost a day may drift before it is flagged, when nothing else is set. */
const DEFAULT_TOLERANCE_PERCENT = '1';

export interface ImportSummary {
  format: ReportFormat;
  /** Cost lines after summing a day's lines of one provider, model and project. */
  lines: number;
  /** The (provider, day) pairs whose figures this import replaced, in order. */
  days: { provider: string; date: string; provider_cost: string }[];
  /** USD over the whole report. */
  total_cost: string;
}

export async function importProviderReport(
  db: ControlDb,
  organizationId: string,
  format: ReportFormat,
  report: unknown,
): Promise<ImportSummary> {
  const lines = sumCostLines(parseProviderReport(format, report));
  await replaceProviderCosts(db, organizationId, format, lines);
  const days = new Map<string, { provider: string; date: string; sum: Big }>();
  for (const l of lines) {
    const key = JSON.stringify([l.date, l.provider]);
    const seen = days.get(key) ?? { provider: l.provider, date: l.date, sum: new Big(0) };
    days.set(key, { ...seen, sum: seen.sum.plus(l.amount) });
  }
  return {
    format,
    lines: lines.length,
    days: [...days.values()]
      .sort((a, b) => compareCodePoints(a.date, b.date) || compareCodePoints(a.provider, b.provider))
      .map((d) => ({ provider: d.provider, date: d.date, provider_cost: formatMoney(d.sum) })),
    total_cost: formatMoney(sumMoney(lines.map((l) => l.amount))),
  };
}

export interface UsageImportSummary extends TokenCounts {
  format: UsageReportFormat;
  /** Usage lines after summing a day's lines of one provider, model and project. */
  lines: number;
  /** The (provider, day) pairs whose token counts this import replaced, in order. */
  days: { provider: string; date: string }[];
}

export async function importUsageReport(
  db: ControlDb,
  organizationId: string,
  format: UsageReportFormat,
  report: unknown,
): Promise<UsageImportSummary> {
  const lines = sumUsageLines(parseUsageReport(format, report));
  await replaceProviderUsage(db, organizationId, format, lines);
  const days = new Map(lines.map((l) => [JSON.stringify([l.date, l.provider]), { provider: l.provider, date: l.date }]));
  const zero: TokenCounts = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 };
  return {
    format,
    lines: lines.length,
    days: [...days.values()].sort((a, b) => compareCodePoints(a.date, b.date) || compareCodePoints(a.provider, b.provider)),
    ...lines.reduce(addTokens, zero),
  };
}

export function providerUsageIn(db: Queryable, organizationId: string, startDate: string, endDate: string): Promise<ProviderUsageLine[]> {
  return listProviderUsage(db, organizationId, startDate, endDate);
}

export function providerCostsIn(db: Queryable, organizationId: string, startDate: string, endDate: string): Promise<ProviderCost[]> {
  return listProviderCosts(db, organizationId, startDate, endDate);
}

/** The organization's tolerance in percent (its setting, else the default). */
export async function tolerancePercentOf(db: Queryable, organizationId: string): Promise<string> {
  return (await getTolerancePercent(db, organizationId)) ?? DEFAULT_TOLERANCE_PERCENT;
}

export async function setOrganizationTolerance(db: Queryable, organizationId: string, tolerancePercent: string): Promise<void> {
  await setTolerancePercent(db, organizationId, tolerancePercent);
}
