// The providers' imported cost figures and token counts and the reconciliation tolerance, in the
// control plane. A report replaces every row of each (provider, day) it covers in one transaction, so the same
// report imported twice counts once and a corrected report replaces the first. Amounts travel as
// exact decimal strings (NUMERIC). Organization id is always the first filter.
import type { ControlDb, Queryable } from '../core/control/db.js';
import type { ProviderCost } from './variance.js';
import type { ProviderCostLine, ReportFormat } from './provider-reports.js';
import type { ProviderUsageLine, UsageReportFormat } from './provider-usage-reports.js';

/** The distinct (provider, day) pairs of a report's lines: what its import replaces. */
function providerDaysOf(lines: readonly { provider: string; date: string }[]): { provider: string; date: string }[] {
  const providerDays = new Map<string, { provider: string; date: string }>();
  for (const l of lines) providerDays.set(JSON.stringify([l.provider, l.date]), { provider: l.provider, date: l.date });
  return [...providerDays.values()];
}

export async function replaceProviderCosts(
  db: ControlDb,
  organizationId: string,
  source: ReportFormat,
  lines: readonly ProviderCostLine[],
): Promise<void> {
  await db.transaction(async (tx) => {
    for (const { provider, date } of providerDaysOf(lines)) {
      await tx.query('DELETE FROM reconciliation_provider_costs WHERE organization_id = $1 AND provider = $2 AND cost_date = $3::date', [
        organizationId,
        provider,
        date,
      ]);
    }
    for (const l of lines) {
      await tx.query(
        `INSERT INTO reconciliation_provider_costs (organization_id, provider, cost_date, model, project, amount, source)
         VALUES ($1, $2, $3::date, $4, $5, $6::numeric, $7)`,
        [organizationId, l.provider, l.date, l.model, l.project, l.amount.toFixed(), source],
      );
    }
  });
}

export async function replaceProviderUsage(
  db: ControlDb,
  organizationId: string,
  source: UsageReportFormat,
  lines: readonly ProviderUsageLine[],
): Promise<void> {
  await db.transaction(async (tx) => {
    for (const { provider, date } of providerDaysOf(lines)) {
      await tx.query('DELETE FROM reconciliation_provider_usage WHERE organization_id = $1 AND provider = $2 AND usage_date = $3::date', [
        organizationId,
        provider,
        date,
      ]);
    }
    for (const l of lines) {
      await tx.query(
        `INSERT INTO reconciliation_provider_usage
           (organization_id, provider, usage_date, model, project, input_tokens, cached_input_tokens, output_tokens, source)
         VALUES ($1, $2, $3::date, $4, $5, $6, $7, $8, $9)`,
        [organizationId, l.provider, l.date, l.model, l.project, l.input_tokens, l.cached_input_tokens, l.output_tokens, source],
      );
    }
  });
}

interface UsageRow {
  usage_date: string;
  provider: string;
  model: string;
  project: string;
  input_tokens: string;
  cached_input_tokens: string;
  output_tokens: string;
}

/** Imported token counts of UTC days in [startDate, endDate) (YYYY-MM-DD). */
export async function listProviderUsage(
  db: Queryable,
  organizationId: string,
  startDate: string,
  endDate: string,
): Promise<ProviderUsageLine[]> {
  const rows = await db.query<UsageRow>(
    `SELECT to_char(usage_date, 'YYYY-MM-DD') AS usage_date, provider, model, project,
            input_tokens::text AS input_tokens, cached_input_tokens::text AS cached_input_tokens, output_tokens::text AS output_tokens
       FROM reconciliation_provider_usage
      WHERE organization_id = $1 AND usage_date >= $2::date AND usage_date < $3::date`,
    [organizationId, startDate, endDate],
  );
  return rows.map((r) => ({
    date: r.usage_date,
    provider: r.provider,
    model: r.model,
    project: r.project,
    input_tokens: Number(r.input_tokens),
    cached_input_tokens: Number(r.cached_input_tokens),
    output_tokens: Number(r.output_tokens),
  }));
}

interface CostRow {
  cost_date: string;
  provider: string;
  model: string;
  project: string;
  amount: string;
}

/** Imported figures of UTC days in [startDate, endDate) (YYYY-MM-DD). */
export async function listProviderCosts(
  db: Queryable,
  organizationId: string,
  startDate: string,
  endDate: string,
): Promise<ProviderCost[]> {
  const rows = await db.query<CostRow>(
    `SELECT to_char(cost_date, 'YYYY-MM-DD') AS cost_date, provider, model, project, amount::text AS amount
       FROM reconciliation_provider_costs
      WHERE organization_id = $1 AND cost_date >= $2::date AND cost_date < $3::date`,
    [organizationId, startDate, endDate],
  );
  return rows.map((r) => ({ date: r.cost_date, provider: r.provider, model: r.model, project: r.project, amount: r.amount }));
}

export async function getTolerancePercent(db: Queryable, organizationId: string): Promise<string | null> {
  const rows = await db.query<{ tolerance_percent: string }>(
    'SELECT tolerance_percent::text AS tolerance_percent FROM reconciliation_settings WHERE organization_id = $1',
    [organizationId],
  );
  return rows[0]?.tolerance_percent ?? null;
}

export async function setTolerancePercent(db: Queryable, organizationId: string, tolerancePercent: string): Promise<void> {
  await db.query(
    `INSERT INTO reconciliation_settings (organization_id, tolerance_percent) VALUES ($1, $2::numeric)
     ON CONFLICT (organization_id) DO UPDATE SET tolerance_percent = EXCLUDED.tolerance_percent, updated_at = now()`,
    [organizationId, tolerancePercent],
  );
}
