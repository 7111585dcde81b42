// An organization's billing subscriptions. At most one is active (a partial unique index); ingest
// answers 402 SUBSCRIPTION_INACTIVE without one and stamps each event with the active one's id.
import { ConflictError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ControlDb, Queryable } from './db.js';
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, sqlState } from './sql-errors.js';

export type SubscriptionStatus = 'active' | 'inactive' | 'canceled';

export interface Subscription {
  id: string;
  organizationId: string;
  status: SubscriptionStatus;
  plan: string;
  startedAt: Date;
  endedAt: Date | null;
  createdAt: Date;
}

interface SubscriptionRow {
  id: string;
  organization_id: string;
  status: SubscriptionStatus;
  plan: string;
  started_at: Date;
  ended_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, status, plan, started_at, ended_at, created_at';

function toSubscription(r: SubscriptionRow): Subscription {
  return {
    id: r.id,
    organizationId: r.organization_id,
    status: r.status,
    plan: r.plan,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    createdAt: r.created_at,
  };
}

/**
 * Starts a subscription. A new active one replaces the current active one, which is canceled
 * (ended now) in the same transaction.
 */
export async function createSubscription(
  db: ControlDb,
  organizationId: string,
  input: { plan: string; status?: SubscriptionStatus; startedAt?: Date },
): Promise<Subscription> {
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  const status = input.status ?? 'active';
  try {
    return await db.transaction(async (tx) => {
      if (status === 'active') {
        await tx.query(
          `UPDATE subscriptions SET status = 'canceled', ended_at = greatest(now(), started_at)
            WHERE organization_id = $1 AND status = 'active'`,
          [organizationId],
        );
      }
      const [row] = await tx.query<SubscriptionRow>(
        `INSERT INTO subscriptions (organization_id, status, plan, started_at, ended_at)
         VALUES ($1, $2, $3, coalesce($4, now()), CASE WHEN $2 = 'canceled' THEN coalesce($4, now()) END)
         RETURNING ${COLUMNS}`,
        [organizationId, status, input.plan, input.startedAt ?? null],
      );
      return toSubscription(row!);
    });
  } catch (err) {
    if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('organization', organizationId);
    throw err;
  }
}

/**
 * Changes a subscription's status. Canceling ends it now; reactivating clears the end. Activating
 * while another subscription is active is a conflict.
 */
export async function setSubscriptionStatus(
  db: Queryable,
  organizationId: string,
  subscriptionId: string,
  status: SubscriptionStatus,
): Promise<Subscription> {
  if (!isUuid(organizationId) || !isUuid(subscriptionId)) throw new NotFoundError('subscription', subscriptionId);
  try {
    const [row] = await db.query<SubscriptionRow>(
      `UPDATE subscriptions
          SET status = $3,
              ended_at = CASE WHEN $3 = 'canceled' THEN coalesce(ended_at, greatest(now(), started_at))
                              WHEN $3 = 'active' THEN NULL
                              ELSE ended_at END
        WHERE organization_id = $1 AND id = $2
        RETURNING ${COLUMNS}`,
      [organizationId, subscriptionId, status],
    );
    if (!row) throw new NotFoundError('subscription', subscriptionId);
    return toSubscription(row);
  } catch (err) {
    if (sqlState(err) === UNIQUE_VIOLATION) throw new ConflictError('the organization already has an active subscription');
    throw err;
  }
}

export async function getActiveSubscription(db: Queryable, organizationId: string): Promise<Subscription | null> {
  if (!isUuid(organizationId)) return null;
  const [row] = await db.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE organization_id = $1 AND status = 'active'`, [
    organizationId,
  ]);
  return row ? toSubscription(row) : null;
}

export async function getSubscription(db: Queryable, organizationId: string, subscriptionId: string): Promise<Subscription | null> {
  if (!isUuid(organizationId) || !isUuid(subscriptionId)) return null;
  const [row] = await db.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    subscriptionId,
  ]);
  return row ? toSubscription(row) : null;
}

export async function listSubscriptions(db: Queryable, organizationId: string): Promise<Subscription[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<SubscriptionRow>(`SELECT ${COLUMNS} FROM subscriptions WHERE organization_id = $1 ORDER BY created_at, id`, [
    organizationId,
  ]);
  return rows.map(toSubscription);
}
