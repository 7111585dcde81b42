import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../../core/control/db.js';
import { OrganizationSettingsCache } from '../../../ingest/org-settings.js';

const ORG = '6f1c2b9e-58a4-4d0c-9d7e-2b1f0c3a4e5d';

/** A control plane holding one organization's dimensions and subscriptions, counting reads. */
function fakeDb(state: {
  dims: Array<{ key: string; value_type: string; is_required: boolean }>;
  subs: Array<{ id: string; status: string }>;
}) {
  let reads = 0;
  const db: Queryable = {
    async query<T>(sql: string): Promise<T[]> {
      reads++;
      if (sql.includes('FROM dimension_definitions')) {
        return state.dims.map((d) => ({
          id: d.key,
          organization_id: ORG,
          name: d.key,
          description: null,
          created_at: new Date(0),
          ...d,
        })) as T[];
      }
      if (sql.includes("status = 'active'")) {
        return state.subs.filter((s) => s.status === 'active').map((s) => ({ ...s, organization_id: ORG, plan: 'p' })) as T[];
      }
      if (sql.includes('FROM subscriptions')) return state.subs.map((s) => ({ ...s, organization_id: ORG, plan: 'p' })) as T[];
      throw new Error(`unexpected SQL ${sql}`);
    },
    async exec() {},
  };
  return { db, reads: () => reads };
}

describe('OrganizationSettingsCache', () => {
  it('reads dimension rules and the active subscription', async () => {
    const { db } = fakeDb({ dims: [{ key: 'team', value_type: 'string', is_required: true }], subs: [{ id: 's1', status: 'active' }] });
    expect(await new OrganizationSettingsCache(db).get(ORG)).toEqual({
      dimensions: [{ key: 'team', valueType: 'string', isRequired: true }],
      subscription: { activeId: 's1', inactive: false },
    });
  });

  it('no subscription at all is allowed; subscriptions with none active are inactive', async () => {
    expect((await new OrganizationSettingsCache(fakeDb({ dims: [], subs: [] }).db).get(ORG)).subscription).toEqual({
      activeId: null,
      inactive: false,
    });
    const lapsed = fakeDb({
      dims: [],
      subs: [
        { id: 's1', status: 'canceled' },
        { id: 's2', status: 'inactive' },
      ],
    });
    expect((await new OrganizationSettingsCache(lapsed.db).get(ORG)).subscription).toEqual({ activeId: null, inactive: true });
  });

  it('fresh for ttl, then served stale while one background read refreshes it, then re-read first', async () => {
    const state = { dims: [] as Array<{ key: string; value_type: string; is_required: boolean }>, subs: [{ id: 's1', status: 'active' }] };
    const { db, reads } = fakeDb(state);
    let now = 0;
    const cache = new OrganizationSettingsCache(db, 1000, () => now);
    await cache.get(ORG);
    const afterFirst = reads();
    expect(afterFirst).toBe(2); // dimensions + active subscription

    state.dims.push({ key: 'team', value_type: 'string', is_required: true });
    now = 999;
    expect((await cache.get(ORG)).dimensions).toEqual([]);
    expect(reads()).toBe(afterFirst);

    now = 1500; // stale: answered at once from the old entry, one refresh started
    expect((await cache.get(ORG)).dimensions).toEqual([]);
    expect((await cache.get(ORG)).dimensions).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(reads()).toBe(afterFirst + 2);
    expect((await cache.get(ORG)).dimensions).toEqual([{ key: 'team', valueType: 'string', isRequired: true }]);

    state.dims = [];
    now = 1500 + 2000; // older than 2 × ttl: read before answering
    expect((await cache.get(ORG)).dimensions).toEqual([]);
  });
});
