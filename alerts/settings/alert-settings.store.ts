// Per-organization alert settings: the credit balance at which `credits.low` fires, and the margin
// percent under which `end_user.margin_below` fires. Absent row = neither (credits.exhausted and
// the profitable/unprofitable pair need no setting). Ingest reads the credit level through a small
// cache (2 s; cleared in-process on change) so its hot path adds no query.
import { LRUCache } from '../../core/cache.js';
import type { Queryable } from '../../core/control/db.js';

export interface AlertSettings {
  creditsLowBalance: number | null;
  marginBelowPercent: string | null;
}

export async function getAlertSettings(db: Queryable, organizationId: string): Promise<AlertSettings> {
  const [row] = await db.query<{ credits_low_balance: string | null; margin_below_percent: string | null }>(
    'SELECT credits_low_balance, margin_below_percent FROM alert_settings WHERE organization_id = $1',
    [organizationId],
  );
  return {
    creditsLowBalance: row?.credits_low_balance == null ? null : Number(row.credits_low_balance),
    marginBelowPercent: row?.margin_below_percent ?? null,
  };
}

export async function putAlertSettings(db: Queryable, organizationId: string, s: AlertSettings): Promise<AlertSettings> {
  await db.query(
    `INSERT INTO alert_settings (organization_id, credits_low_balance, margin_below_percent) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id) DO UPDATE SET credits_low_balance = $2, margin_below_percent = $3, updated_at = now()`,
    [organizationId, s.creditsLowBalance, s.marginBelowPercent],
  );
  creditLevels.delete(organizationId);
  return getAlertSettings(db, organizationId);
}

const creditLevels = new LRUCache<string, { low: number | null }>({ max: 10_000, ttl: 2_000 });

/** The organization's credits.low level (cached 2 s). */
export async function creditsLowLevel(q: Queryable, organizationId: string): Promise<number | null> {
  const hit = creditLevels.get(organizationId);
  if (hit) return hit.low;
  const low = (await getAlertSettings(q, organizationId)).creditsLowBalance;
  creditLevels.set(organizationId, { low });
  return low;
}
