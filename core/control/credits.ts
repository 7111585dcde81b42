// Event credits: one credit per accepted event. Grants are recorded in a ledger; spending is a
// single conditional UPDATE, so concurrent spenders can never take the balance below zero.
import { NotFoundError, ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ControlDb, Queryable } from './db.js';
import { CHECK_VIOLATION, FOREIGN_KEY_VIOLATION, sqlState } from './sql-errors.js';

export interface CreditGrant {
  id: string;
  organizationId: string;
  amount: number;
  balanceAfter: number;
  note: string | null;
  createdAt: Date;
}

/** Adds credits and records the grant; returns the new balance. */
export async function grantCredits(
  db: ControlDb,
  organizationId: string,
  amount: number,
  note: string | null = null,
): Promise<{ balance: number; grantId: string }> {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new ValidationError('amount', 'must be a positive integer');
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  try {
    return await db.transaction(async (tx) => {
      const [bal] = await tx.query<{ balance: string }>(
        'UPDATE credit_balances SET balance = balance + $2 WHERE organization_id = $1 RETURNING balance',
        [organizationId, amount],
      );
      if (!bal) throw new NotFoundError('organization', organizationId);
      const [grant] = await tx.query<{ id: string }>(
        'INSERT INTO credit_grants (organization_id, amount, balance_after, note) VALUES ($1, $2, $3, $4) RETURNING id',
        [organizationId, amount, bal.balance, note],
      );
      return { balance: Number(bal.balance), grantId: grant!.id };
    });
  } catch (err) {
    if (sqlState(err) === CHECK_VIOLATION) {
      throw new ValidationError('amount', 'the balance would exceed 9007199254740991 credits');
    }
    if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('organization', organizationId);
    throw err;
  }
}

/** Current balance, or null for an unknown organization. */
export async function getCreditBalance(db: Queryable, organizationId: string): Promise<number | null> {
  if (!isUuid(organizationId)) return null;
  const [row] = await db.query<{ balance: string }>('SELECT balance FROM credit_balances WHERE organization_id = $1', [organizationId]);
  return row ? Number(row.balance) : null;
}

/**
 * spendCredits's statement, for it and for a statement that spends as part of a larger one (the
 * ingest ledger's insert, as a WITH query): `organization` and `n` are SQL expressions; `from` a
 * FROM list they may refer to and `when` a further condition, both optional. Returns the new
 * balance, or no row when it did not cover n (or `when` was false).
 */
export function spendAllOrNothing(organization: string, n: string, opts: { from?: string; when?: string } = {}): string {
  return `UPDATE credit_balances SET balance = balance - ${n}${opts.from ? ` FROM ${opts.from}` : ''}
      WHERE organization_id = ${organization} AND balance >= ${n}${opts.when ? ` AND ${opts.when}` : ''}
      RETURNING balance`;
}

/**
 * Spends n credits only if the balance covers all of them (all or nothing). Returns whether it
 * did and the balance afterwards. Row-locks the balance until the caller's transaction ends.
 */
export async function spendCredits(tx: Queryable, organizationId: string, n: number): Promise<{ ok: boolean; balance: number }> {
  const [row] = await tx.query<{ balance: string }>(spendAllOrNothing('$1', '$2'), [organizationId, n]);
  if (row) return { ok: true, balance: Number(row.balance) };
  return { ok: false, balance: (await getCreditBalance(tx, organizationId)) ?? 0 };
}

/**
 * Spends up to `max` credits, as many as the balance has (for a group commit where some events
 * of a batch fit and the rest answer 402). Returns how many were spent and what is left.
 */
export async function spendAvailableCredits(
  tx: Queryable,
  organizationId: string,
  max: number,
): Promise<{ spent: number; balance: number }> {
  // Lock first, then spend what the locked (newest) balance allows; the lock holds to commit.
  const [cur] = await tx.query<{ balance: string }>('SELECT balance FROM credit_balances WHERE organization_id = $1 FOR UPDATE', [
    organizationId,
  ]);
  if (!cur) return { spent: 0, balance: 0 };
  const spent = Math.min(Number(cur.balance), max);
  if (spent === 0) return { spent: 0, balance: Number(cur.balance) };
  const [row] = await tx.query<{ balance: string }>(
    'UPDATE credit_balances SET balance = balance - $2 WHERE organization_id = $1 RETURNING balance',
    [organizationId, spent],
  );
  return { spent, balance: Number(row!.balance) };
}

/** Gives back credits spent on events that were not queued (Kafka down → 503). */
export async function refundCredits(tx: Queryable, organizationId: string, n: number): Promise<number> {
  if (n === 0) return (await getCreditBalance(tx, organizationId)) ?? 0;
  const [row] = await tx.query<{ balance: string }>(
    'UPDATE credit_balances SET balance = balance + $2 WHERE organization_id = $1 RETURNING balance',
    [organizationId, n],
  );
  return row ? Number(row.balance) : 0;
}

export async function listCreditGrants(db: Queryable, organizationId: string): Promise<CreditGrant[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<{
    id: string;
    organization_id: string;
    amount: string;
    balance_after: string;
    note: string | null;
    created_at: Date;
  }>(
    `SELECT id, organization_id, amount, balance_after, note, created_at
       FROM credit_grants WHERE organization_id = $1 ORDER BY created_at, id`,
    [organizationId],
  );
  return rows.map((r) => ({
    id: r.id,
    organizationId: r.organization_id,
    amount: Number(r.amount),
    balanceAfter: Number(r.balance_after),
    note: r.note,
    createdAt: r.created_at,
  }));
}
