// The organization's revenue records as margin reads them, kept per process and re-read only when
// revenueRecordsVersion changes (a cheap count/max query), so a margin request does not re-parse
// thousands of records; with them the end users' names (docs/design.md: the revenue source's customer
// name, here that of the record whose period ends last). Bounded: least recently used dropped.
import { LRUCache } from '../core/cache.js';
import type { ControlDb } from '../core/control/db.js';
import { latestNamedRecords } from './customer-names.js';
import { listRevenueRecordsForMargin, revenueRecordsVersion, type RevenueSource } from './revenue.store.js';
import { endUserIdFor } from '../core/ids.js';
import { Big } from '../core/money.js';
import type { EndUserIdentity, MarginRevenueRecord } from './margin.js';

interface CachedRevenueRecord extends MarginRevenueRecord {
  source: RevenueSource;
}

const MAX_ORGANIZATIONS = 64;

export interface CachedRevenue {
  records: CachedRevenueRecord[];
  /** By internal end-user id: the customer name of its latest-ending named record. */
  names: Map<string, EndUserIdentity>;
}

interface Entry extends CachedRevenue {
  version: string;
}

// Per control plane (tests run several in one process), then per organization in LRU order.
const caches = new WeakMap<ControlDb, LRUCache<string, Entry>>();
/** Control planes whose revenue is read through on every call (bench/read-path-layers' off switch). */
const uncached = new WeakSet<ControlDb>();

/** Switches the cache off (false) or on for one control plane; default on. */
export function cacheRevenue(db: ControlDb, on: boolean): void {
  if (on) uncached.delete(db);
  else uncached.add(db);
}

/** Every revenue record of the organization (all sources), with end users resolved, and their names. */
export async function cachedRevenue(db: ControlDb, organizationId: string): Promise<CachedRevenue> {
  let byOrg = caches.get(db);
  if (!byOrg) caches.set(db, (byOrg = new LRUCache({ max: MAX_ORGANIZATIONS })));
  const hit = uncached.has(db) ? undefined : byOrg.get(organizationId);
  // A miss reads the version with the records in one statement (a fresh process's first request).
  if (hit && hit.version === (await revenueRecordsVersion(db, organizationId))) return hit;
  const read = await listRevenueRecordsForMargin(db, organizationId);
  const version = read.version;
  const records = read.records.map((r) => ({
    source: r.source,
    endUserId: r.userId === null ? null : endUserIdFor(organizationId, r.userId),
    externalUserId: r.userId,
    customerName: r.customerName,
    amount: new Big(r.amount), // parsed once, not per request
    periodStart: r.periodStart,
    periodEnd: r.periodEnd,
  }));
  const names = new Map<string, EndUserIdentity>();
  for (const [id, r] of latestNamedRecords(records, (x) => x.endUserId))
    names.set(id, { externalId: r.externalUserId!, name: r.customerName });
  const entry = { version, records, names };
  if (!uncached.has(db)) byOrg.set(organizationId, entry);
  return entry;
}
