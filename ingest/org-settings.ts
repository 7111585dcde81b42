// What ingest needs to know about an organization besides its rates: dimension definitions
// (validation) and its subscription state (402 SUBSCRIPTION_INACTIVE, and the id stamped on each
// event). Read from the control plane about once per `ttlMs` per organization, so the hot path
// makes no query of its own; a change is seen within 2 × ttlMs by other processes, and by the next
// request in the process whose admin API made it (the admin controllers call forget()). At most
// 100,000 organizations are kept, the least recently used dropped first.
import { LRUCache } from '../core/cache.js';
import type { Queryable } from '../core/control/db.js';
import { listDimensions } from '../core/control/dimensions.js';
import { getActiveSubscription, listSubscriptions } from '../core/control/subscriptions.js';
import type { DimensionRule } from './validate-event.js';

interface SubscriptionState {
  /** The active subscription's id, stamped on every event; null when there is none. */
  activeId: string | null;
  /** True when the organization has subscriptions and none is active: ingestion answers 402. */
  inactive: boolean;
}

export interface OrganizationSettings {
  dimensions: DimensionRule[];
  subscription: SubscriptionState;
}

interface Entry {
  at: number;
  value: Promise<OrganizationSettings>;
  refreshing: boolean;
}

export class OrganizationSettingsCache {
  // Freshness (ttlMs, then 2 × ttlMs while refreshing) is judged here from `at`, on the injected clock.
  private readonly entries = new LRUCache<string, Entry>({ max: 100_000 });

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Settings no older than ttlMs, or up to 2 × ttlMs while a refresh runs in the background (so
   * busy organizations never wait on the control plane); older entries are re-read first.
   */
  get(organizationId: string): Promise<OrganizationSettings> {
    const now = this.now();
    const hit = this.entries.get(organizationId);
    if (hit) {
      const age = now - hit.at;
      if (age < this.ttlMs) return hit.value;
      if (age < 2 * this.ttlMs) {
        if (!hit.refreshing) {
          hit.refreshing = true;
          this.load(organizationId).then(
            (v) => this.entries.set(organizationId, { at: this.now(), value: Promise.resolve(v), refreshing: false }),
            () => (hit.refreshing = false),
          );
        }
        return hit.value;
      }
    }
    const value = this.load(organizationId);
    const entry: Entry = { at: now, value, refreshing: false };
    this.entries.set(organizationId, entry);
    // A failed read is not cached: the next request tries again.
    value.catch(() => {
      if (this.entries.peek(organizationId) === entry) this.entries.delete(organizationId);
    });
    return value;
  }

  /** Drops what is cached for the organization: its next request reads the control plane. */
  forget(organizationId: string): void {
    this.entries.delete(organizationId);
  }

  private async load(organizationId: string): Promise<OrganizationSettings> {
    const [dims, active] = await Promise.all([listDimensions(this.db, organizationId), getActiveSubscription(this.db, organizationId)]);
    // Organizations that never had a subscription are allowed; only "had one, none active" is 402.
    const inactive = active === null && (await listSubscriptions(this.db, organizationId)).length > 0;
    return {
      dimensions: dims.map((d) => ({ key: d.key, valueType: d.valueType, isRequired: d.isRequired })),
      subscription: { activeId: active?.id ?? null, inactive },
    };
  }
}
