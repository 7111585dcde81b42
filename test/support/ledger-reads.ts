// Test support: what the idempotency ledger holds for some keys, read straight from its state view
// (ingest_ledger_states, the one place the state rule is written), for assertions.
import type { Queryable } from '../../core/control/db.js';
import type { LedgerState } from '../../ingest/ingest-ledger.store.js';

function toBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

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

/** What an existing ledger row says, for answering a retry: its flag and, while `reserved`, its payload. */
export interface LedgerDetail {
  eventId: string;
  state: LedgerState;
  flagReason: string | null;
  /** The stored record while the row is `reserved` (so a retry can publish it); null once published. */
  payload: Buffer | null;
}

/** Details of some keys of one organization (absent keys are missing from the map). */
export async function getLedgerDetails(
  db: Queryable,
  organizationId: string,
  idempotencyKeys: string[],
): Promise<Map<string, LedgerDetail>> {
  if (idempotencyKeys.length === 0) return new Map();
  const rows = await db.query<{
    idempotency_key: string;
    event_id: string;
    state: LedgerState;
    flag_reason: string | null;
    payload: Uint8Array | null;
  }>(
    `SELECT idempotency_key, event_id, state, flag_reason, payload FROM ingest_ledger_states
      WHERE organization_id = $1 AND idempotency_key = ANY($2::text[])`,
    [organizationId, idempotencyKeys],
  );
  return new Map(
    rows.map((r) => [
      r.idempotency_key,
      { eventId: r.event_id, state: r.state, flagReason: r.flag_reason, payload: r.payload ? toBuffer(r.payload) : null },
    ]),
  );
}

