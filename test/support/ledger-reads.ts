// Test support: what the idempotency ledger holds for some keys, read straight from its state view
// (ingest_ledger_states, the one place the state rule is written), for assertions.
import type { Queryable } from '../../core/control/db.js';
import type { LedgerState } from '../../ingest/ingest-ledger.store.js';

/** Current ledger state of some keys of one organization (absent keys are missing from the map). */
export async function getLedgerEntries(
  db: Queryable,
  organizationId: string,
  idempotencyKeys: string[],
): Promise<Map<string, { eventId: string; state: LedgerState }>> {
  if (idempotencyKeys.length === 0) return new Map();
  const rows = await db.query<{ idempotency_key: string; event_id: string; state: LedgerState }>(
    `SELECT idempotency_key, event_id, state FROM ingest_ledger_states
      WHERE organization_id = $1 AND idempotency_key = ANY($2::text[])`,
    [organizationId, idempotencyKeys],
  );
  return new Map(rows.map((r) => [r.idempotency_key, { eventId: r.event_id, state: r.state }]));
}

// Ingest answers retries from the same read (a subscription gone inactive), so it lives there.
export { getLedgerDetails } from '../../ingest/ingest-ledger.store.js';
