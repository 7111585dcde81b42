// GET /reconciliation: the provider's imported figures and token counts (control plane) and our
// completed costs and tokens (lake) for whole UTC days of the range, handed to the reconciliation rule. The tolerance is the
// query's, else the organization's setting, else 1%.
import type { Queryable } from '../../core/control/db.js';
import { ValidationError } from '../../core/errors.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { Big, formatMoney, toBig } from '../../core/money.js';
import { assertMaxMonths, DAY_MS, parseDateRange, utcDate, type DateRange } from '../../core/time.js';
import { providerCostsIn, providerUsageIn, tolerancePercentOf } from '../../reconciliation/reconciliation.service.js';
import { providerOfModel, reconciliationModel } from '../../reconciliation/model-keys.js';
import { reconcile, type Reconciliation } from '../../reconciliation/variance.js';
import { queryDailyModelCosts } from './reconciliation.queries.js';

export interface ReconciliationReport extends Reconciliation {
  start_date: string;
  end_date: string;
  /** The tolerance the flags used, in percent of the provider's cost. */
  tolerance_percent: string;
}

/** The query's tolerance (tsoa checked 0 to 1000) as an exact decimal: a number by its shortest decimal text. */
function tolerance(value: number | undefined): string | null {
  if (value === undefined) return null;
  if (!Number.isFinite(value) || value < 0 || value > 1000)
    throw new ValidationError('tolerance_percent', 'must be a number from 0 to 1000');
  return toBig(value).toFixed();
}

export async function reconciliationOf(
  rc: ReadContext,
  q: { start_date: string; end_date: string; tolerance_percent?: number },
): Promise<ReconciliationReport> {
  const range = parseDateRange(q.start_date, q.end_date);
  for (const [field, at] of [
    ['start_date', range.start],
    ['end_date', range.end],
  ] as const) {
    if (at.getTime() % DAY_MS !== 0) throw new ValidationError(field, 'must be a UTC date: reconciliation compares whole days');
  }
  assertMaxMonths(range, 12);
  const tolerancePercent = tolerance(q.tolerance_percent) ?? (await tolerancePercentOf(rc.db, rc.organizationId));
  const result = await reconcileRange(rc, range, new Big(tolerancePercent));
  return { start_date: utcDate(range.start), end_date: utcDate(range.end), tolerance_percent: formatMoney(tolerancePercent), ...result };
}

/** The reconciliation of whole UTC days [range.start, range.end): imported figures against the lake. */
export async function reconcileRange(
  rc: { db: Queryable; lake: ReadContext['lake']; organizationId: string },
  range: DateRange,
  tolerancePercent: Big,
): Promise<Reconciliation> {
  const [providerCosts, providerUsage, ours] = await Promise.all([
    providerCostsIn(rc.db, rc.organizationId, utcDate(range.start), utcDate(range.end)),
    providerUsageIn(rc.db, rc.organizationId, utcDate(range.start), utcDate(range.end)),
    queryDailyModelCosts(rc.lake, { organizationId: rc.organizationId, range }),
  ]);
  const ourCosts = ours.map((r) => ({
    date: r.date,
    provider: providerOfModel(r.model, r.provider),
    model: reconciliationModel(r.model ?? r.provider ?? ''),
    cost: r.cost,
    input_tokens: Number(r.input_tokens),
    cached_input_tokens: Number(r.cached_input_tokens),
    output_tokens: Number(r.output_tokens),
  }));
  return reconcile({ providerCosts, providerUsage, ourCosts, tolerancePercent });
}
