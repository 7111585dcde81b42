// Test support: what the idempotency ledger holds for some keys, read through production's own read
// (getLedgerDetails, over ingest_ledger_states, the one place the state rule is written).
import type { Queryable } from '../../core/control/db.js';
import { getLedgerDetails, type LedgerState } from '../../ingest/ingest-ledger.store.js';

export { getLedgerDetails };

/** Current ledger state of some keys of one organization (absent keys are missing from the map). */
export async function getLedgerEntries(
  db: Queryable,
  organizationId: string,
  idempotencyKeys: string[],
): Promise<Map<string, { eventId: string; state: LedgerState }>> {
  const details = await getLedgerDetails(db, organizationId, idempotencyKeys);
  return new Map([...details].map(([key, d]) => [key, { eventId: d.eventId, state: d.state }]));
}
