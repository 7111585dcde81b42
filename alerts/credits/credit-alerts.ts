// `credits.low` (balance at or below the organization's level) and `credits.exhausted` (balance 0):
// fired inside the ingest transaction that spent the credits (so the event exists exactly when the
// spend commits), once each until a grant lifts the balance above the level again (re-armed).
import type { Queryable } from '../../core/control/db.js';
import { creditsLowLevel } from '../settings/alert-settings.store.js';
import { fireOnce, rearm } from '../webhooks/outbox.js';

/** After a spend, in its transaction: fires what the new balance makes true. */
export async function fireCreditAlerts(tx: Queryable, organizationId: string, balance: number): Promise<void> {
  const low = await creditsLowLevel(tx, organizationId);
  if (low !== null && balance <= low)
    await fireOnce(tx, organizationId, 'credits.low', 'credits.low', { balance, low_balance_threshold: low });
  if (balance <= 0) await fireOnce(tx, organizationId, 'credits.exhausted', 'credits.exhausted', { balance: 0 });
}

/** After a grant: alerts whose condition no longer holds may fire again. */
export async function rearmCreditAlerts(q: Queryable, organizationId: string, balance: number): Promise<void> {
  const low = await creditsLowLevel(q, organizationId);
  const keys = [];
  if (balance > 0) keys.push('credits.exhausted');
  if (low === null || balance > low) keys.push('credits.low');
  if (keys.length > 0) await rearm(q, organizationId, keys);
}
