// How many events an organization has in the idempotency ledger: every accepted event, once per
// idempotency key. The cost summary's `pending` is this minus what the lake already holds.
import { isUuid } from '../core/ids.js';
import type { Queryable } from '../core/control/db.js';

/** Ledger rows of the organization (an index-only range scan of the primary key). */
export async function countLedgerEvents(db: Queryable, organizationId: string): Promise<number> {
  if (!isUuid(organizationId)) return 0;
  const [row] = await db.query<{ n: string | number }>('SELECT count(*) AS n FROM ingest_ledger WHERE organization_id = $1', [
    organizationId,
  ]);
  return Number(row?.n ?? 0);
}
