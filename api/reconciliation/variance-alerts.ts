// reconciliation.variance: after an import, each imported day whose variance (all providers its
// reports cover) is beyond the organization's tolerance fires once per set of figures: the same
// report imported again fires nothing, a corrected report or later events that still drift fire
// again. Our side is what the lake holds at the import. Registered by api/component.ts in the
// providerCostsImported slot (reconciliation/provider-costs-imported.ts).
import { fireOnce } from '../../alerts/webhooks/outbox.js';
import type { Queryable } from '../../core/control/db.js';
import { Big, formatMoney } from '../../core/money.js';
import type { ProviderCostsImported } from '../../reconciliation/provider-costs-imported.js';
import { tolerancePercentOf } from '../../reconciliation/reconciliation.service.js';
import type { LakeQuery } from '../lake/lake-query.js';
import { reconcileRange } from './reconciliation.service.js';

const DAY_MS = 86_400_000;

export function reconciliationVarianceAlerts(lake: LakeQuery): ProviderCostsImported {
  return async (db: Queryable, organizationId: string, days) => {
    const tolerance = await tolerancePercentOf(db, organizationId);
    for (const date of new Set(days.map((d) => d.date))) {
      const start = new Date(`${date}T00:00:00Z`);
      const range = { start, end: new Date(start.getTime() + DAY_MS) };
      const result = await reconcileRange({ db, lake, organizationId }, range, new Big(tolerance));
      for (const day of result.days.filter((d) => d.out_of_tolerance)) {
        const key = `reconciliation.variance:${day.date}:${day.provider_cost}:${day.our_cost}`;
        await fireOnce(db, organizationId, key, 'reconciliation.variance', { ...day, tolerance_percent: formatMoney(tolerance) });
      }
    }
  };
}
