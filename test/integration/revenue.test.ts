// Revenue through the admin API, on PGlite and PostgreSQL: imported records (upsert by id, refunds,
// validation naming the field, the import connection becoming active) and the Stripe connection
// against stripe-mock (key checked and stored sealed, sync on demand and periodic, records of a
// full sync replacing stale ones, disconnect). stripe-mock answers fixed fixtures; the expected
// records are worked out in the test from the fixtures it serves. Last, the revenue store itself
// (revenue/revenue.store.ts) on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiComponent } from '../../api/component.js';
import { unsealSecret } from '../../core/auth/secrets.js';
import {
  getRevenueConnection,
  listRevenueRecords,
  upsertRevenueRecords,
  hasActiveRevenueConnection,
  importRevenueRecords,
  upsertRevenueConnection,
} from '../../revenue/revenue.store.js';
import { createLogger } from '../../core/logger.js';
import type { StartComponent } from '../../core/process-host.js';
import { RevenueSync } from '../../revenue/stripe-sync.js';
import { TEST_MASTER_KEY, describeEachControlDb } from '../support/control-db.js';
import { admin, describeEachHost, http, type TestHost } from '../support/http.js';
import { startStripeMock, type StripeMock } from '../support/stripe-mock.js';
import { getEndUserByExternalId, upsertEndUsers } from '../../core/control/end-users.js';
import { createOrganization } from '../../core/control/organizations.js';

let mock: StripeMock;
beforeAll(async () => {
  mock = await startStripeMock();
});
afterAll(async () => {
  await mock?.stop();
});

// The api service with its Stripe client pointed at stripe-mock (resolved when the host starts,
// after the mock is up); the periodic job is off here and tested on its own below.
const apiWithMock: StartComponent = (ctx, infra) =>
  apiComponent({ revenue: { stripeApi: { host: mock.host, port: mock.port, protocol: 'http' }, checkIntervalMs: 0 } })(ctx, infra);

const TEST_KEY = 'sk_test_marginal0123456789';

function expectValidationError(res: { status: number; body: any }, field: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details.field).toBe(field);
}

/** What stripe-mock serves, read with plain HTTP (not through the code under test). */
async function fixture(path: string): Promise<any> {
  const res = await fetch(`${mock.url}${path}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  return res.json();
}

describeEachHost(
  'revenue',
  ({ host }) => {
    let h: TestHost;
    let orgId: string;
    beforeAll(async () => {
      h = host();
      orgId = (await admin(h, 'POST', '/organizations', { name: 'Revenue Co' })).body.organization_id;
    });
    const org = (suffix: string) => `/organizations/${orgId}${suffix}`;
    /** Polls the Stripe connection until its sync is no longer running (at most 10 s). */
    const settledSyncState = async (state: string): Promise<string> => {
      for (let i = 0; i < 200 && state === 'running'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        state = (await admin(h, 'GET', org('/revenue-connections/stripe'))).body.last_sync.state;
      }
      return state;
    };

    describe('import', () => {
      it('upserts records by id, keeps refunds negative and activates the import connection', async () => {
        const res = await admin(h, 'POST', org('/revenue-records'), {
          records: [
            {
              id: 'inv-1',
              user_id: 'alice',
              customer_name: 'Alice Ltd',
              amount: '49.99',
              period_start: '2026-01-01',
              period_end: '2026-02-01',
            },
            { id: 'ref-1', user_id: 'alice', amount: '-10.5', period_start: '2026-01-01T00:00:00Z', period_end: '2026-02-01T00:00:00Z' },
            { id: 'inv-2', user_id: null, amount: '100.000000000001', period_start: '2026-01-15', period_end: '2026-02-15' },
          ],
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body).toMatchObject({ organization_id: orgId, upserted: 3, connection: { kind: 'import', status: 'active' } });
        expect(Date.parse(res.body.connection.last_synced_at)).toBeGreaterThan(Date.now() - 60_000);

        const again = await admin(h, 'POST', org('/revenue-records'), {
          records: [
            {
              id: 'inv-1',
              user_id: 'alice',
              customer_name: 'Alice Ltd',
              amount: '59.99',
              period_start: '2026-01-01',
              period_end: '2026-02-01',
            },
          ],
        });
        expect(again.body.upserted).toBe(1);

        const list = await admin(h, 'GET', org('/revenue-records'));
        expect(list.body.total).toBe(3);
        expect(list.body.records.map((r: any) => [r.id, r.source, r.user_id, r.amount, r.period_start, r.period_end])).toEqual([
          ['inv-1', 'import', 'alice', '59.99', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
          ['ref-1', 'import', 'alice', '-10.5', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
          ['inv-2', 'import', null, '100.000000000001', '2026-01-15T00:00:00.000Z', '2026-02-15T00:00:00.000Z'],
        ]);
        const conns = await admin(h, 'GET', org('/revenue-connections'));
        expect(conns.body.connections.map((c: any) => [c.kind, c.status])).toEqual([['import', 'active']]);
      });

      it.each([
        [{ records: [] }, 'records'],
        [{ records: [{ id: 'x', amount: '1.2.3', period_start: '2026-01-01', period_end: '2026-02-01' }] }, 'records[0].amount'],
        [{ records: [{ id: 'x', amount: '1e5', period_start: '2026-01-01', period_end: '2026-02-01' }] }, 'records[0].amount'],
        [{ records: [{ id: 'x', amount: '0.0000000000001', period_start: '2026-01-01', period_end: '2026-02-01' }] }, 'records[0].amount'],
        [
          {
            records: [
              { id: 'ok', amount: '1', period_start: '2026-01-01', period_end: '2026-02-01' },
              { id: ' ', amount: '1', period_start: '2026-01-01', period_end: '2026-02-01' },
            ],
          },
          'records[1].id',
        ],
        [{ records: [{ id: 'x', amount: '1', period_start: 'January', period_end: '2026-02-01' }] }, 'records[0].period_start'],
        [{ records: [{ id: 'x', amount: '1', period_start: '2026-02-01', period_end: '2026-02-01' }] }, 'records[0].period_end'],
      ])('refuses %j naming %s', async (body, field) => {
        expectValidationError(await admin(h, 'POST', org('/revenue-records'), body), field);
      });

      it('404 for an unknown organization, 401 without the admin token', async () => {
        const body = { records: [{ id: 'x', amount: '1', period_start: '2026-01-01', period_end: '2026-02-01' }] };
        expect((await admin(h, 'POST', '/organizations/00000000-0000-4000-8000-000000000000/revenue-records', body)).status).toBe(404);
        expect((await http(h.url, 'POST', `/v1/admin${org('/revenue-records')}`, { json: body })).status).toBe(401);
      });
    });

    describe('Stripe', () => {
      it('refuses a key that is not a Stripe key, naming the field', async () => {
        expectValidationError(await admin(h, 'POST', org('/revenue-connections/stripe'), { secret_key: 'pk_test_abc' }), 'secret_key');
        expectValidationError(
          await admin(h, 'POST', org('/revenue-connections/stripe'), { secret_key: TEST_KEY, customer_metadata_key: '' }),
          'customer_metadata_key',
        );
      });

      it('404 on sync before any connection', async () => {
        const res = await admin(h, 'POST', org('/revenue-connections/stripe/sync?wait=true'));
        expect(res.status).toBe(404);
        expect((await admin(h, 'GET', org('/revenue-connections/stripe'))).status).toBe(404);
      });

      it('connects: the key is checked with Stripe, stored sealed and never shown; the first sync starts', async () => {
        const res = await admin(h, 'POST', org('/revenue-connections/stripe'), { secret_key: TEST_KEY });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        expect(res.body).toMatchObject({
          kind: 'stripe',
          status: 'active',
          stripe: { key_hint: '6789', livemode: false, customer_metadata_key: 'user_id', unmatched_customers: 'customer_id' },
        });
        expect(['running', 'succeeded']).toContain(res.body.last_sync.state);
        expect(JSON.stringify(res.body)).not.toContain(TEST_KEY);

        const stored = await getRevenueConnection(h.db, orgId, 'stripe');
        const sealed = (stored!.config as { secret_key_sealed: string }).secret_key_sealed;
        expect(JSON.stringify(stored!.config)).not.toContain(TEST_KEY);
        expect(unsealSecret(TEST_MASTER_KEY, sealed, `revenue_connections:${orgId}:stripe`)).toBe(TEST_KEY);
        // Bound to its organization: the same ciphertext does not open for another.
        expect(() => unsealSecret(TEST_MASTER_KEY, sealed, 'revenue_connections:other:stripe')).toThrow();
      });

      it('syncs on demand: invoice lines and credit notes become records, stale ones are removed', async () => {
        // The sync that connecting started must finish first: a sync on demand joins a running one,
        // which would not see the stale record written below.
        expect(await settledSyncState((await admin(h, 'GET', org('/revenue-connections/stripe'))).body.last_sync.state)).toBe('succeeded');
        // A record of an earlier sync that Stripe no longer reports (say, a voided invoice).
        await upsertRevenueRecords(h.db, orgId, 'stripe', [
          { id: 'in_old:il_old', userId: 'alice', amount: '5', periodStart: new Date('2025-01-01'), periodEnd: new Date('2025-02-01') },
        ]);
        const res = await admin(h, 'POST', org('/revenue-connections/stripe/sync?wait=true'));
        expect(res.status, JSON.stringify(res.body)).toBe(200);

        // Expected from the fixtures: each invoice is a draft (not revenue), each credit note is
        // issued in USD and credits a line of an invoice that is not in the listing, so it is
        // recognized at its effective date over one second, negatively.
        const invoices = (await fixture('/v1/invoices')).data;
        const notes = (await fixture('/v1/credit_notes')).data;
        const customers = (await fixture('/v1/customers')).data;
        expect(invoices.map((i: any) => i.status)).toEqual(['draft']);
        const expected = notes.flatMap((n: any) =>
          n.lines.data.map((l: any) => {
            const start = (n.effective_at ?? n.created) * 1000;
            const discount = l.discount_amounts.reduce((s: number, d: any) => s + d.amount, 0);
            return {
              id: `${n.id}:${l.id}`,
              user_id: n.customer, // the fixture customer has no user_id metadata
              amount: String(-(l.amount - discount) / 100),
              period_start: new Date(start).toISOString(),
              period_end: new Date(start + 1000).toISOString(),
            };
          }),
        );
        expect(expected).toHaveLength(1);
        expect(res.body.sync).toMatchObject({
          state: 'succeeded',
          customers: customers.length,
          invoices: invoices.length,
          credit_notes: notes.length,
          records_written: expected.length,
          records_deleted: 1,
          skipped_not_final: 1,
          skipped_non_usd: 0,
          error: null,
        });
        const list = await admin(h, 'GET', org('/revenue-records?source=stripe'));
        expect(
          list.body.records.map((r: any) => ({
            id: r.id,
            user_id: r.user_id,
            amount: r.amount,
            period_start: r.period_start,
            period_end: r.period_end,
          })),
        ).toEqual(expected);

        const conn = await admin(h, 'GET', org('/revenue-connections/stripe'));
        expect(conn.body.last_sync).toMatchObject({ state: 'succeeded', records_written: 1 });
        expect(Date.parse(conn.body.last_synced_at)).toBeGreaterThan(Date.now() - 60_000);
        // The import connection and its records are untouched.
        expect((await listRevenueRecords(h.db, orgId)).filter((r) => r.source === 'import')).toHaveLength(3);
      });

      it('202 with the running sync without wait', async () => {
        const res = await admin(h, 'POST', org('/revenue-connections/stripe/sync'));
        expect(res.status).toBe(202);
        expect(res.body.sync.state).toMatch(/running|succeeded/);
        expect(await settledSyncState(res.body.sync.state)).toBe('succeeded');
      });

      it('callers asking at once, with no sync running, start one sync and all join it', async () => {
        const sync = h.host.ctx.services.revenueSync!;
        const entries = await Promise.all(Array.from({ length: 5 }, () => sync.startSync(orgId)));
        expect(new Set(entries.map((e) => e.report)).size).toBe(1);
        expect((await entries[0]!.done).state).toBe('succeeded');
      });

      it('disconnect: inactive, key forgotten, sync refused', async () => {
        const res = await admin(h, 'DELETE', org('/revenue-connections/stripe'));
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ kind: 'stripe', status: 'inactive' });
        expect(res.body.stripe).toBeUndefined();
        expect((await getRevenueConnection(h.db, orgId, 'stripe'))!.config).not.toHaveProperty('secret_key_sealed');
        expect((await admin(h, 'POST', org('/revenue-connections/stripe/sync?wait=true'))).status).toBe(404);
      });
    });
  },
  { components: [apiWithMock] },
);

describeEachHost(
  'revenue: Stripe unreachable and periodic sync',
  ({ host }) => {
    it('503 when Stripe cannot be reached at connect', async () => {
      const h = host();
      const orgId = (await admin(h, 'POST', '/organizations', { name: 'Offline' })).body.organization_id;
      const res = await admin(h, 'POST', `/organizations/${orgId}/revenue-connections/stripe`, { secret_key: TEST_KEY });
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(JSON.stringify(res.body)).not.toContain(TEST_KEY);
    });

    it('the periodic job syncs connections that are due', async () => {
      const h = host();
      const orgId = (await admin(h, 'POST', '/organizations', { name: 'Periodic' })).body.organization_id;
      const stripeApi = { host: mock.host, port: mock.port, protocol: 'http' as const };
      const deps = { db: h.db, masterKey: TEST_MASTER_KEY, logger: createLogger('silent') };
      const connector = new RevenueSync(deps, { stripeApi, checkIntervalMs: 0 });
      await connector.connectStripe(orgId, { secretKey: TEST_KEY });
      expect((await getRevenueConnection(h.db, orgId, 'stripe'))!.lastSyncedAt).toBeNull();

      const job = new RevenueSync(deps, { stripeApi, checkIntervalMs: 50, syncEveryMs: 3_600_000 });
      job.start();
      try {
        let synced: Date | null = null;
        for (let i = 0; i < 200 && !synced; i++) {
          await new Promise((r) => setTimeout(r, 50));
          synced = (await getRevenueConnection(h.db, orgId, 'stripe'))!.lastSyncedAt;
        }
        expect(synced).not.toBeNull();
        expect((await listRevenueRecords(h.db, orgId)).map((r) => r.source)).toEqual(['stripe']);
      } finally {
        await job.stop();
      }
    });
  },
  // Port 9 (discard) on loopback: nothing listens, so the client fails fast.
  { components: [apiComponent({ revenue: { stripeApi: { host: '127.0.0.1', port: 9, protocol: 'http' }, checkIntervalMs: 0 } })] },
);

describeEachControlDb('revenue store', ({ db }) => {
  it('an import upserts by id, keeps amounts exact and activates the import connection', async () => {
    const org = await createOrganization(db(), { name: 'Revenue' });
    expect(await hasActiveRevenueConnection(db(), org.id)).toBe(false);
    await upsertEndUsers(db(), org.id, ['cust-1']);
    const p = (s: string) => new Date(s);
    const result = await importRevenueRecords(db(), org.id, [
      {
        id: 'inv-1',
        userId: 'cust-1',
        customerName: 'Old Name',
        amount: '10',
        periodStart: p('2025-01-01T00:00:00Z'),
        periodEnd: p('2025-02-01T00:00:00Z'),
      },
      {
        id: 'inv-2',
        userId: null,
        amount: '123456789012345678.123456789012',
        periodStart: p('2025-01-15T00:00:00Z'),
        periodEnd: p('2025-01-16T00:00:00Z'),
      },
      {
        id: 'inv-3',
        userId: 'cust-2',
        customerName: 'Beta Corp',
        amount: '-0.000000000001',
        periodStart: p('2025-03-01T00:00:00Z'),
        periodEnd: p('2025-04-01T00:00:00Z'),
      },
      // The same id again within one import: the last one wins.
      {
        id: 'inv-1',
        userId: 'cust-1',
        customerName: 'Acme Ltd',
        amount: '99.90',
        periodStart: p('2025-01-01T00:00:00Z'),
        periodEnd: p('2025-02-01T00:00:00Z'),
      },
    ]);
    expect(result.upserted).toBe(3);
    expect(result.connection).toMatchObject({ kind: 'import', status: 'active' });
    expect(result.connection.lastSyncedAt).toBeInstanceOf(Date);
    expect(await hasActiveRevenueConnection(db(), org.id)).toBe(true);

    const all = await listRevenueRecords(db(), org.id);
    expect(all.map((r) => [r.id, r.amount, r.userId, r.currency])).toEqual([
      ['inv-1', '99.90', 'cust-1', 'USD'],
      ['inv-2', '123456789012345678.123456789012', null, 'USD'],
      ['inv-3', '-0.000000000001', 'cust-2', 'USD'],
    ]);
    // Overlapping [2025-01-20, 2025-03-01): inv-1 only (inv-2 ended on the 16th, inv-3 starts at the end).
    const window = await listRevenueRecords(db(), org.id, {
      overlapping: { start: p('2025-01-20T00:00:00Z'), end: p('2025-03-01T00:00:00Z') },
    });
    expect(window.map((r) => r.id)).toEqual(['inv-1']);

    // Known end users take the customer name; new ones pick it up from the records.
    expect((await getEndUserByExternalId(db(), org.id, 'cust-1'))?.name).toBe('Acme Ltd');
    await upsertEndUsers(db(), org.id, ['cust-2']);
    expect((await getEndUserByExternalId(db(), org.id, 'cust-2'))?.name).toBe('Beta Corp');

    await importRevenueRecords(db(), org.id, [
      { id: 'inv-2', userId: 'cust-1', amount: '0.5', periodStart: p('2025-01-15T00:00:00Z'), periodEnd: p('2025-01-16T00:00:00Z') },
    ]);
    const after = await listRevenueRecords(db(), org.id);
    expect(after.find((r) => r.id === 'inv-2')).toMatchObject({ amount: '0.5', userId: 'cust-1' });
    expect(after).toHaveLength(3);
  });

  it('stripe connection config is a JSON object, replaced only when given', async () => {
    const org = await createOrganization(db(), { name: 'Stripe' });
    const c = await upsertRevenueConnection(db(), org.id, 'stripe', {
      status: 'active',
      config: { account_id: 'acct_123', api_key_sealed: 'v1.a.b.c' },
    });
    expect(c.config).toEqual({ account_id: 'acct_123', api_key_sealed: 'v1.a.b.c' });
    await upsertRevenueConnection(db(), org.id, 'stripe', { status: 'inactive' });
    const again = await getRevenueConnection(db(), org.id, 'stripe');
    expect(again).toMatchObject({ status: 'inactive', config: { account_id: 'acct_123', api_key_sealed: 'v1.a.b.c' } });
    expect(await hasActiveRevenueConnection(db(), org.id)).toBe(false);
  });
});
