// Which revenue counts: only records of a source whose connection is active (without one, every end
// user would read as unprofitable). The margin endpoints, the margin alerts and the read warm-up
// ask here, so the rule is written once and other capabilities never read revenue's store.
import type { Queryable } from '../core/control/db.js';
import { Big } from '../core/money.js';
import { recognizeRevenue } from './recognize-revenue.js';
import { listRevenueConnections, listRevenueRecords, type RevenueSource } from './revenue.store.js';

/** The organization's source kinds with an active connection. */
export async function activeRevenueSources(db: Queryable, organizationId: string): Promise<Set<RevenueSource>> {
  const connections = await listRevenueConnections(db, organizationId);
  return new Set(connections.filter((c) => c.status === 'active').map((c) => c.kind));
}

/**
 * Revenue of the given active sources recognized in [start, end), per end user (external id);
 * records without an end user are left out, and so are other users when `userIds` is given.
 */
export async function recognizedRevenueByEndUser(
  db: Queryable,
  organizationId: string,
  window: { start: Date; end: Date },
  active: ReadonlySet<RevenueSource>,
  userIds: readonly string[] | null,
): Promise<Map<string, Big>> {
  const revenue = new Map<string, Big>();
  for (const r of await listRevenueRecords(db, organizationId, { overlapping: window })) {
    if (!active.has(r.source) || r.userId === null || (userIds && !userIds.includes(r.userId))) continue;
    revenue.set(r.userId, (revenue.get(r.userId) ?? new Big(0)).plus(recognizeRevenue(r, window)));
  }
  return revenue;
}
