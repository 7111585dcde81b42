// The organization's revenue records as margin reads them, kept per process and re-read only when
// revenueRecordsVersion changes (a cheap count/max query), so a margin request does not re-parse
// thousands of records. Bounded: the least recently used organizations are dropped.
import type { ControlDb } from '../../core/control/db.js';
import { listRevenueRecords, revenueRecordsVersion, type RevenueSource } from '../../core/control/revenue.js';
import { endUserIdFor } from '../../core/ids.js';
import type { MarginRevenueRecord } from './margin.js';

export interface CachedRevenueRecord extends MarginRevenueRecord {
  source: RevenueSource;
}

const MAX_ORGANIZATIONS = 64;

interface Entry {
  version: string;
  records: CachedRevenueRecord[];
}

// Per control plane (tests run several in one process), then per organization in LRU order.
const caches = new WeakMap<ControlDb, Map<string, Entry>>();

/** Every revenue record of the organization (all sources), with end users resolved. */
export async function cachedRevenueRecords(db: ControlDb, organizationId: string): Promise<CachedRevenueRecord[]> {
  let byOrg = caches.get(db);
  if (!byOrg) caches.set(db, (byOrg = new Map()));
  const version = await revenueRecordsVersion(db, organizationId);
  const hit = byOrg.get(organizationId);
  if (hit && hit.version === version) {
    byOrg.delete(organizationId);
    byOrg.set(organizationId, hit);
    return hit.records;
  }
  const records = (await listRevenueRecords(db, organizationId)).map((r) => ({
    source: r.source,
    endUserId: r.userId === null ? null : endUserIdFor(organizationId, r.userId),
    externalUserId: r.userId,
    customerName: r.customerName,
    amount: r.amount,
    periodStart: r.periodStart,
    periodEnd: r.periodEnd,
  }));
  byOrg.delete(organizationId);
  byOrg.set(organizationId, { version, records });
  while (byOrg.size > MAX_ORGANIZATIONS) byOrg.delete(byOrg.keys().next().value!);
  return records;
}
