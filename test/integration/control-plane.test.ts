// The control plane on both engines it runs on: PGlite (embedded) and real PostgreSQL. Expected
// values are written out by hand or computed independently (node:crypto), never by the code
// under test.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretDecryptionError } from '../../core/auth/secrets.js';
import { findActiveApiKey, issueApiKey, listApiKeys, revokeApiKey } from '../../core/control/api-keys.js';
import {
  getCreditBalance,
  grantCredits,
  listCreditGrants,
  spendAvailableCredits,
  spendCredits,
} from '../../core/control/credits.js';
import { openControlDb, type ControlDb, type Queryable } from '../../core/control/db.js';
import { createDimension, getDimension, listDimensions } from '../../core/control/dimensions.js';
import { getEndUserByExternalId, listEndUsers, upsertEndUsers } from '../../core/control/end-users.js';
import {
  beginIngestGroup,
  discardReservations,
  listGroupRecords,
  listStrandedGroups,
  markGroupsPublished,
  releaseReservations,
  reserveEvents,
  writeIngestGroup,
  type IngestGroup,
  type Reservation,
  type ReservationInput,
} from '../../ingest/ingest-ledger.store.js';
import { getLedgerDetails, getLedgerEntries } from '../support/ledger-reads.js';
import { loadMigrations, migrate } from '../../core/control/migrate.js';
import { createOrganization, getOrganization } from '../../core/control/organizations.js';
import {
  createRateCard,
  createUnitRate,
  getRatesVersion,
  listRateCards,
  listRatesVersions,
  listUnitRates,
} from '../../pricing/rate-cards.store.js';
import {
  getRevenueConnection,
  hasActiveRevenueConnection,
  importRevenueRecords,
  listRevenueRecords,
  upsertRevenueConnection,
} from '../../revenue/revenue.store.js';
import {
  createSubscription,
  getActiveSubscription,
  listSubscriptions,
  setSubscriptionStatus,
} from '../../core/control/subscriptions.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import { endUserIdFor, eventIdFor } from '../../core/ids.js';
import {
  CONTROL_DB_KINDS,
  TEST_MASTER_KEY,
  describeEachControlDb,
  openFreshControlDb,
  testPostgresUrl,
} from '../support/control-db.js';

const MIGRATION_NAMES = [
  '001_organizations_keys_credits',
  '002_ingest_ledger',
  '003_pricing',
  '004_dimensions_end_users',
  '005_revenue',
  '006_ingest_groups',
  '007_ingest_group_member_names',
];

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

async function sqlError(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string }).code ?? 'no-code';
  }
  return undefined;
}

const keysOf = (records: Array<{ idempotencyKey: string }>) => records.map((r) => r.idempotencyKey);

function reservation(orgId: string, key: string, payload = Buffer.from(key)): ReservationInput {
  return { idempotencyKey: key, eventId: eventIdFor(orgId, key), payload, flagReason: null };
}

for (const kind of CONTROL_DB_KINDS) {
  const skip = kind === 'postgres' && !testPostgresUrl();
  describe.skipIf(skip)(`migrations [${kind}]`, () => {
    it('apply from empty in order, record themselves, and do nothing on re-run', async () => {
      const fresh = await openFreshControlDb(kind, { migrate: false });
      try {
        expect(await migrate(fresh.db)).toEqual(MIGRATION_NAMES);
        expect(await migrate(fresh.db)).toEqual([]);
        const rows = await fresh.db.query<{ version: number; name: string; checksum: string }>(
          'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
        );
        expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
        expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
        const tables = await fresh.db.query<{ table_name: string }>(
          `SELECT table_name FROM information_schema.tables
            WHERE table_schema = current_schema() ORDER BY table_name`,
        );
        expect(tables.map((t) => t.table_name)).toEqual([
          'api_keys',
          'credit_balances',
          'credit_grants',
          'dimension_definitions',
          'end_users',
          'ingest_groups',
          'ingest_ledger',
          'ingest_ledger_states',
          'organizations',
          'rate_cards',
          'revenue_connections',
          'revenue_records',
          'schema_migrations',
          'subscriptions',
          'unit_rates',
        ]);
      } finally {
        await fresh.dispose();
      }
    });

    it('refuse to run when an applied migration file was edited', async () => {
      const fresh = await openFreshControlDb(kind);
      try {
        const edited = loadMigrations().map((m) => (m.version === 2 ? { ...m, sql: m.sql + '\n-- x', checksum: 'f'.repeat(64) } : m));
        await expect(migrate(fresh.db, edited)).rejects.toThrow(/002_ingest_ledger\.sql was edited/);
      } finally {
        await fresh.dispose();
      }
    });

    it('006 keeps the ledger rows of 002: published ones stay published, reserved ones are swept from their own group', async () => {
      const fresh = await openFreshControlDb(kind, { migrate: false });
      try {
        await migrate(fresh.db, loadMigrations().filter((m) => m.version <= 5));
        const org = crypto.randomUUID();
        // Rows as 002's ledger wrote them: payload and state per row; published rows had the payload cleared.
        await fresh.db.query(
          `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, state, payload, flag_reason, created_at, published_at) VALUES
             ($1, 'old-pub', $2, 'published', ''::bytea, NULL, now() - interval '1 hour', now() - interval '1 hour'),
             ($1, 'old-res-1', $3, 'reserved', '\\x00ff01'::bytea, 'timestamp_too_old', now() - interval '5 minutes', NULL),
             ($1, 'old-res-2', $4, 'reserved', 'two'::bytea, NULL, now() - interval '4 minutes', NULL)`,
          [org, eventIdFor(org, 'old-pub'), eventIdFor(org, 'old-res-1'), eventIdFor(org, 'old-res-2')],
        );
        // 007 renames the members' fields of the groups 006 made; the sweeper's reads below go through the new names.
        expect(await migrate(fresh.db)).toEqual(['006_ingest_groups', '007_ingest_group_member_names']);

        const entries = await getLedgerEntries(fresh.db, org, ['old-pub', 'old-res-1', 'old-res-2']);
        expect([...entries].sort()).toEqual([
          ['old-pub', { eventId: eventIdFor(org, 'old-pub'), state: 'published' }],
          ['old-res-1', { eventId: eventIdFor(org, 'old-res-1'), state: 'reserved' }],
          ['old-res-2', { eventId: eventIdFor(org, 'old-res-2'), state: 'reserved' }],
        ]);
        expect((await getLedgerDetails(fresh.db, org, ['old-res-1'])).get('old-res-1')).toEqual({
          eventId: eventIdFor(org, 'old-res-1'),
          state: 'reserved',
          flagReason: 'timestamp_too_old',
          payload: Buffer.from([0x00, 0xff, 0x01]),
        });

        // Each reserved row is its own stranded group, as old as the row.
        const stranded = await listStrandedGroups(fresh.db, new Date(Date.now() - 60_000), 100);
        expect(stranded).toHaveLength(2);
        const records = await listGroupRecords(fresh.db, stranded.map((g) => g.id));
        expect(records.map((r) => [r.idempotencyKey, r.payload, r.flagReason, r.eventId])).toEqual([
          ['old-res-1', Buffer.from([0x00, 0xff, 0x01]), 'timestamp_too_old', eventIdFor(org, 'old-res-1')],
          ['old-res-2', Buffer.from('two'), null, eventIdFor(org, 'old-res-2')],
        ]);
        expect(Date.now() - records[0]!.createdAt.getTime()).toBeGreaterThan(4.5 * 60_000);

        // A retry of the published key is a duplicate; of a reserved one, moves it into the new group.
        const retried = await fresh.db.transaction(async (tx) => {
          const group = await beginIngestGroup(tx);
          const r = await reserveEvents(tx, group, org, [reservation(org, 'old-pub'), reservation(org, 'old-res-2')]);
          await writeIngestGroup(tx, group);
          return { r, groupId: group.id };
        });
        expect(retried.r.map((r) => [r.idempotencyKey, r.isNew, r.state, r.payload])).toEqual([
          ['old-pub', false, 'published', null],
          ['old-res-2', false, 'reserved', Buffer.from('two')],
        ]);
        expect(keysOf(await listGroupRecords(fresh.db, stranded.map((g) => g.id)))).toEqual(['old-res-1']);

        // The sweep's mark publishes the legacy group.
        expect(await markGroupsPublished(fresh.db, [stranded[0]!.id, retried.groupId])).toBe(2);
        const after = await getLedgerEntries(fresh.db, org, ['old-pub', 'old-res-1', 'old-res-2']);
        expect([...after.values()].map((e) => e.state)).toEqual(['published', 'published', 'published']);
        expect(await listStrandedGroups(fresh.db, new Date(Date.now() - 60_000), 100)).toEqual([
          { id: stranded[1]!.id, createdAt: stranded[1]!.createdAt },
        ]);
      } finally {
        await fresh.dispose();
      }
    });

    it('survive several processes migrating the same empty database at once', async () => {
      const fresh = await openFreshControlDb(kind, { migrate: false });
      // PGlite is one connection, so "processes" share it; on PostgreSQL each has its own pool.
      const others: ControlDb[] = [];
      if (fresh.url) {
        for (let i = 0; i < 3; i++) others.push(await openControlDb({ databaseUrl: fresh.url, pgliteDir: null }));
      } else {
        others.push(fresh.db, fresh.db, fresh.db);
      }
      try {
        const results = await Promise.all([fresh.db, ...others].map((db) => migrate(db)));
        // Every migration was applied exactly once, by whichever process got there first.
        expect(results.flat().sort()).toEqual(MIGRATION_NAMES);
        const [count] = await fresh.db.query<{ n: string }>('SELECT count(*) AS n FROM schema_migrations');
        expect(count!.n).toBe('7');
      } finally {
        if (fresh.url) for (const o of others) await o.close();
        await fresh.dispose();
      }
    });
  });
}

describeEachControlDb('control plane', ({ kind, db }) => {
  describe('organizations', () => {
    it('start with zero credits, an active default subscription and rates_version 0', async () => {
      const org = await createOrganization(db(), { name: 'Acme' });
      expect(org.name).toBe('Acme');
      expect(org.ratesVersion).toBe(0);
      expect(org.createdAt).toBeInstanceOf(Date);
      expect(await getCreditBalance(db(), org.id)).toBe(0);
      const sub = await getActiveSubscription(db(), org.id);
      expect(sub).toMatchObject({ organizationId: org.id, status: 'active', plan: 'default', endedAt: null });
      expect((await getOrganization(db(), org.id))?.name).toBe('Acme');
      expect(await getOrganization(db(), crypto.randomUUID())).toBeNull();
      expect(await getOrganization(db(), 'not-a-uuid')).toBeNull();
    });

    it('refuse an empty name', async () => {
      expect(await sqlError(createOrganization(db(), { name: '  ' }))).toBe('23514');
    });
  });

  describe('API keys', () => {
    it('are stored only as SHA-256 and resolve to their organization, scopes and signing secret', async () => {
      const org = await createOrganization(db(), { name: 'Keys' });
      const owner = crypto.randomUUID();
      const issued = await issueApiKey(db(), TEST_MASTER_KEY, org.id, { scopes: ['usage:write', 'costs:read'], ownerUserId: owner });
      expect(issued.apiKey).toMatch(/^mk_live_[A-Za-z0-9_-]{43}$/);
      expect(issued.signingSecret).toMatch(/^mks_[A-Za-z0-9_-]{43}$/);
      expect(issued.keyPrefix).toBe(issued.apiKey.slice(0, 14));

      const [row] = await db().query<{ key_hash: string; signing_secret_ciphertext: Buffer }>(
        'SELECT key_hash, signing_secret_ciphertext FROM api_keys WHERE organization_id = $1 AND id = $2',
        [org.id, issued.id],
      );
      expect(row!.key_hash).toBe(sha256(issued.apiKey));
      expect(Buffer.isBuffer(row!.signing_secret_ciphertext)).toBe(true);
      expect(row!.signing_secret_ciphertext.toString('utf8')).not.toContain(issued.signingSecret.slice(4));

      expect(await findActiveApiKey(db(), TEST_MASTER_KEY, issued.apiKey)).toEqual({
        organizationId: org.id,
        keyId: issued.id,
        ownerUserId: owner,
        scopes: ['usage:write', 'costs:read'],
        signingSecret: issued.signingSecret,
      });
      expect(await findActiveApiKey(db(), TEST_MASTER_KEY, issued.apiKey + 'x')).toBeNull();
      expect(await findActiveApiKey(db(), TEST_MASTER_KEY, 'Bearer nonsense')).toBeNull();
      await expect(findActiveApiKey(db(), Buffer.alloc(32, 9), issued.apiKey)).rejects.toThrow(SecretDecryptionError);

      const listed = await listApiKeys(db(), org.id);
      expect(listed.map((k) => k.id)).toEqual([issued.id]);
      expect(JSON.stringify(listed)).not.toContain(issued.apiKey);

      const revoked = await revokeApiKey(db(), org.id, issued.id);
      expect(revoked.revokedAt).toBeInstanceOf(Date);
      expect(await findActiveApiKey(db(), TEST_MASTER_KEY, issued.apiKey)).toBeNull();
    });

    it("bind each ciphertext to its own row: a secret copied onto another key does not decrypt", async () => {
      const org = await createOrganization(db(), { name: 'Swap' });
      const a = await issueApiKey(db(), TEST_MASTER_KEY, org.id, { scopes: ['usage:write'] });
      const b = await issueApiKey(db(), TEST_MASTER_KEY, org.id, { scopes: ['usage:write'] });
      await db().query(
        `UPDATE api_keys SET (signing_secret_ciphertext, signing_secret_iv, signing_secret_tag) =
           (SELECT signing_secret_ciphertext, signing_secret_iv, signing_secret_tag FROM api_keys WHERE organization_id = $1 AND id = $2)
         WHERE organization_id = $1 AND id = $3`,
        [org.id, a.id, b.id],
      );
      await expect(findActiveApiKey(db(), TEST_MASTER_KEY, b.apiKey)).rejects.toThrow(SecretDecryptionError);
    });

    it('default the owner to a fresh UUID, refuse unknown scopes and unknown organizations', async () => {
      const org = await createOrganization(db(), { name: 'Scopes' });
      const k = await issueApiKey(db(), TEST_MASTER_KEY, org.id, { scopes: ['revenue:read'] });
      expect(k.ownerUserId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await sqlError(issueApiKey(db(), TEST_MASTER_KEY, org.id, { scopes: ['admin' as never] }))).toBe('23514');
      expect(await sqlError(issueApiKey(db(), TEST_MASTER_KEY, org.id, { scopes: [] }))).toBe('23514');
      await expect(issueApiKey(db(), TEST_MASTER_KEY, crypto.randomUUID(), { scopes: ['usage:read'] })).rejects.toThrow(
        NotFoundError,
      );
    });
  });

  describe('credits', () => {
    it('grants add up, are recorded in the ledger, and spending is all or nothing', async () => {
      const org = await createOrganization(db(), { name: 'Credits' });
      expect(await grantCredits(db(), org.id, 5, 'first')).toMatchObject({ balance: 5 });
      expect(await grantCredits(db(), org.id, 7)).toMatchObject({ balance: 12 });
      const grants = await listCreditGrants(db(), org.id);
      expect(grants.map((g) => [g.amount, g.balanceAfter, g.note])).toEqual([
        [5, 5, 'first'],
        [7, 12, null],
      ]);
      expect(await db().transaction((tx) => spendCredits(tx, org.id, 13))).toEqual({ ok: false, balance: 12 });
      expect(await db().transaction((tx) => spendCredits(tx, org.id, 12))).toEqual({ ok: true, balance: 0 });
      expect(await db().transaction((tx) => spendCredits(tx, org.id, 1))).toEqual({ ok: false, balance: 0 });
      await expect(grantCredits(db(), org.id, 0)).rejects.toThrow(ValidationError);
      await expect(grantCredits(db(), org.id, 1.5)).rejects.toThrow(ValidationError);
      await expect(grantCredits(db(), crypto.randomUUID(), 1)).rejects.toThrow(NotFoundError);
    });

    it('a balance can never go below zero, not even by direct SQL', async () => {
      const org = await createOrganization(db(), { name: 'Floor' });
      expect(await sqlError(db().query('UPDATE credit_balances SET balance = -1 WHERE organization_id = $1', [org.id]))).toBe(
        '23514',
      );
    });

    it('20 concurrent spends of 1 against a balance of 5: exactly 5 succeed', async () => {
      const org = await createOrganization(db(), { name: 'Race' });
      await grantCredits(db(), org.id, 5);
      const results = await Promise.all(
        Array.from({ length: 20 }, () => db().transaction((tx) => spendCredits(tx, org.id, 1))),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(await getCreditBalance(db(), org.id)).toBe(0);
    });

    it('concurrent partial spends never hand out more than the balance', async () => {
      const org = await createOrganization(db(), { name: 'Partial' });
      await grantCredits(db(), org.id, 10);
      const results = await Promise.all(
        Array.from({ length: 6 }, () => db().transaction((tx) => spendAvailableCredits(tx, org.id, 3))),
      );
      // 6 × 3 = 18 asked, 10 available: spends are 3, 3, 3, 1, 0, 0 in some order.
      expect(results.map((r) => r.spent).sort()).toEqual([0, 0, 1, 3, 3, 3]);
      expect(await getCreditBalance(db(), org.id)).toBe(0);
    });
  });

  describe('ingest ledger', () => {
    /** One reservation transaction as the group committer runs it: its own group, written at the end. */
    async function reserveGroup(
      orgId: string,
      rows: ReservationInput[],
      inTx: (tx: Queryable, group: IngestGroup, reserved: Reservation[]) => Promise<void> = async () => undefined,
    ): Promise<{ groupId: string; written: boolean; reserved: Reservation[] }> {
      return db().transaction(async (tx) => {
        const group = await beginIngestGroup(tx);
        const reserved = await reserveEvents(tx, group, orgId, rows);
        await inTx(tx, group, reserved);
        return { groupId: group.id, written: await writeIngestGroup(tx, group), reserved };
      });
    }

    async function groupRow(id: string) {
      const [row] = await db().query<{ published: boolean; payloads: Buffer | null; members: string | null }>(
        'SELECT published_at IS NOT NULL AS published, payloads, members FROM ingest_groups WHERE id = $1::bigint',
        [id],
      );
      return row;
    }

    it('reserves new keys once; a repeated key returns the existing event id and state', async () => {
      const org = await createOrganization(db(), { name: 'Ledger' });
      // Keys with characters that array literals and JSON must escape.
      const keys = ['k1', 'a,b', 'q"uote', 'back\\slash', '{brace}', 'NULL', ' sp ', 'new\nline'];
      const first = await reserveGroup(org.id, keys.map((k) => reservation(org.id, k)));
      expect(first.reserved.map((r) => [r.idempotencyKey, r.isNew, r.state])).toEqual(keys.map((k) => [k, true, 'reserved']));
      expect(first.reserved[1]!.eventId).toBe(eventIdFor(org.id, 'a,b'));
      expect(first.reserved[2]!.payload).toEqual(Buffer.from('q"uote'));
      expect(first.written).toBe(true);

      // Same key again with a different payload and event id: the stored row wins, nothing is added.
      // k1 was reserved in the first group: it moves into this one, with its stored record.
      const again = await reserveGroup(org.id, [
        { idempotencyKey: 'k1', eventId: crypto.randomUUID(), payload: Buffer.from('other'), flagReason: 'x' },
        reservation(org.id, 'k2'),
        reservation(org.id, 'k2'),
      ]);
      expect(again.reserved).toEqual([
        { idempotencyKey: 'k1', eventId: eventIdFor(org.id, 'k1'), isNew: false, state: 'reserved', flagReason: null, payload: Buffer.from('k1') },
        { idempotencyKey: 'k2', eventId: eventIdFor(org.id, 'k2'), isNew: true, state: 'reserved', flagReason: null, payload: Buffer.from('k2') },
        { idempotencyKey: 'k2', eventId: eventIdFor(org.id, 'k2'), isNew: false, state: 'reserved', flagReason: null, payload: Buffer.from('k2') },
      ]);
      const [count] = await db().query<{ n: string }>('SELECT count(*) AS n FROM ingest_ledger WHERE organization_id = $1', [org.id]);
      expect(count!.n).toBe(String(keys.length + 1));

      // One mark publishes the second group: k1 and k2; the first group's other keys stay reserved.
      expect(await markGroupsPublished(db(), [again.groupId])).toBe(1);
      expect(await markGroupsPublished(db(), [again.groupId])).toBe(0);
      const third = await reserveGroup(org.id, [reservation(org.id, 'k1')]);
      expect(third.reserved).toEqual([
        { idempotencyKey: 'k1', eventId: eventIdFor(org.id, 'k1'), isNew: false, state: 'published', flagReason: null, payload: null },
      ]);
      // Nothing referenced the third group: no row was written for it.
      expect(third.written).toBe(false);
      expect(await groupRow(third.groupId)).toBeUndefined();

      const entries = await getLedgerEntries(db(), org.id, ['k1', 'k2', 'a,b', 'missing']);
      expect([...entries.entries()].sort()).toEqual([
        ['a,b', { eventId: eventIdFor(org.id, 'a,b'), state: 'reserved' }],
        ['k1', { eventId: eventIdFor(org.id, 'k1'), state: 'published' }],
        ['k2', { eventId: eventIdFor(org.id, 'k2'), state: 'published' }],
      ]);
    });

    it('a group may hold several organizations; the same key in another organization is a different row', async () => {
      const a = await createOrganization(db(), { name: 'A' });
      const b = await createOrganization(db(), { name: 'B' });
      const { groupId } = await reserveGroup(a.id, [reservation(a.id, 'same')], async (tx, group) => {
        const rb = await reserveEvents(tx, group, b.id, [reservation(b.id, 'same', Buffer.from('bee')), reservation(b.id, 'empty', Buffer.alloc(0))]);
        expect(rb[0]).toMatchObject({ isNew: true, eventId: eventIdFor(b.id, 'same') });
      });
      const details = await getLedgerDetails(db(), b.id, ['same', 'empty']);
      expect(details.get('same')).toEqual({ eventId: eventIdFor(b.id, 'same'), state: 'reserved', flagReason: null, payload: Buffer.from('bee') });
      expect(details.get('empty')!.payload).toEqual(Buffer.alloc(0));
      expect((await getLedgerDetails(db(), a.id, ['same'])).get('same')!.payload).toEqual(Buffer.from('same'));

      // One mark covers both organizations' rows and drops the blob.
      expect(await markGroupsPublished(db(), [groupId, groupId])).toBe(1);
      expect((await getLedgerEntries(db(), b.id, ['same', 'empty'])).get('empty')?.state).toBe('published');
      expect((await getLedgerDetails(db(), a.id, ['same'])).get('same')).toEqual({
        eventId: eventIdFor(a.id, 'same'),
        state: 'published',
        flagReason: null,
        payload: null,
      });
      expect(await groupRow(groupId)).toEqual({ published: true, payloads: null, members: null });
    });

    it('concurrent transactions reserving the same key: exactly one sees it as new and spends; the row ends in one group', async () => {
      const org = await createOrganization(db(), { name: 'Concurrent' });
      await grantCredits(db(), org.id, 100);
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          reserveGroup(org.id, [reservation(org.id, 'dup', Buffer.from([i]))], async (tx, _group, [r]) => {
            if (r!.isNew) expect((await spendCredits(tx, org.id, 1)).ok).toBe(true);
          }),
        ),
      );
      expect(outcomes.filter((o) => o.reserved[0]!.isNew)).toHaveLength(1);
      expect(new Set(outcomes.map((o) => o.reserved[0]!.eventId))).toEqual(new Set([eventIdFor(org.id, 'dup')]));
      // Every transaction publishes the winner's record.
      const winner = outcomes.find((o) => o.reserved[0]!.isNew)!.reserved[0]!.payload!;
      expect(outcomes.map((o) => o.reserved[0]!.payload)).toEqual(outcomes.map(() => winner));
      expect(await getCreditBalance(db(), org.id)).toBe(99);
      const [count] = await db().query<{ n: string }>('SELECT count(*) AS n FROM ingest_ledger WHERE organization_id = $1', [org.id]);
      expect(count!.n).toBe('1');
      // Moved from group to group, the row is a record of exactly one of them.
      const records = await listGroupRecords(db(), outcomes.map((o) => o.groupId));
      expect(records.map((r) => [r.idempotencyKey, r.payload])).toEqual([['dup', winner]]);
    });

    it('concurrent groups over the same keys, some reserved in a stranded group: no deadlock, one credit and one group per key', async () => {
      const orgs = [await createOrganization(db(), { name: 'Lock A' }), await createOrganization(db(), { name: 'Lock B' })];
      const orgIds = orgs.map((o) => o.id).sort();
      for (const id of orgIds) await grantCredits(db(), id, 1000);
      const keys = Array.from({ length: 600 }, (_, i) => `lk-${String(i).padStart(3, '0')}`);
      // A dead process's group holds every other key of both organizations.
      const stranded = await reserveGroup(orgIds[0]!, keys.filter((_, i) => i % 2 === 0).map((k) => reservation(orgIds[0]!, k)), async (tx, group) => {
        await reserveEvents(tx, group, orgIds[1]!, keys.filter((_, i) => i % 2 === 0).map((k) => reservation(orgIds[1]!, k)));
        for (const id of orgIds) await spendCredits(tx, id, 300);
      });
      // Six transactions over all keys, organizations in order (as the group committer runs them);
      // on PostgreSQL they run at once on separate connections.
      // Half of them take the keys in ascending order, half in descending: without one lock order
      // they would meet in the middle, each waiting for the other.
      const orders = Array.from({ length: 6 }, (_, t) => (t % 2 === 0 ? [...keys] : [...keys].reverse()));
      const inputs = orders.map((order) => orgIds.map((id) => order.map((k) => reservation(id, k))));
      // Six open connections first, so the transactions below start together instead of one per connect.
      if (kind === 'postgres') await Promise.all(Array.from({ length: 6 }, () => db().query('SELECT pg_sleep(0.05)')));
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, t) =>
          db().transaction(async (tx) => {
            const group = await beginIngestGroup(tx);
            let fresh = 0;
            for (const [o, id] of orgIds.entries()) {
              const r = await reserveEvents(tx, group, id, inputs[t]![o]!);
              const n = r.filter((x) => x.isNew).length;
              if (n > 0) expect((await spendCredits(tx, id, n)).ok).toBe(true);
              fresh += n;
            }
            await writeIngestGroup(tx, group);
            return { groupId: group.id, fresh };
          }),
        ),
      );
      // The 600 odd keys (300 per organization) were new exactly once.
      expect(results.reduce((n, r) => n + r.fresh, 0)).toBe(600);
      for (const id of orgIds) expect(await getCreditBalance(db(), id)).toBe(1000 - 600);
      // Every key of both organizations is a record of exactly one group.
      const records = await listGroupRecords(db(), [stranded.groupId, ...results.map((r) => r.groupId)]);
      expect(records.map((r) => `${r.organizationId}/${r.idempotencyKey}`).sort()).toEqual(orgIds.flatMap((id) => keys.map((k) => `${id}/${k}`)).sort());
      for (const r of records) expect(r.payload).toEqual(Buffer.from(r.idempotencyKey));
    });

    it('a key reserved in another group moves into ours with its record: our one mark covers it, the old group no longer lists it', async () => {
      const org = await createOrganization(db(), { name: 'Move' });
      const old = await reserveGroup(org.id, [
        { ...reservation(org.id, 'm1', Buffer.from('one')), flagReason: 'timestamp_too_old' },
        reservation(org.id, 'm2', Buffer.from('two')),
      ]);
      const ours = await reserveGroup(org.id, [
        { ...reservation(org.id, 'm1', Buffer.from('retry body')), flagReason: null },
        reservation(org.id, 'm3', Buffer.from('three')),
      ]);
      expect(ours.reserved[0]).toEqual({
        idempotencyKey: 'm1',
        eventId: eventIdFor(org.id, 'm1'),
        isNew: false,
        state: 'reserved',
        flagReason: 'timestamp_too_old',
        payload: Buffer.from('one'),
      });
      expect((await listGroupRecords(db(), [old.groupId])).map((r) => [r.idempotencyKey, r.payload.toString()])).toEqual([['m2', 'two']]);
      expect((await listGroupRecords(db(), [ours.groupId])).map((r) => [r.idempotencyKey, r.payload.toString(), r.flagReason])).toEqual([
        ['m3', 'three', null],
        ['m1', 'one', 'timestamp_too_old'],
      ]);
      await markGroupsPublished(db(), [ours.groupId]);
      const entries = await getLedgerEntries(db(), org.id, ['m1', 'm2', 'm3']);
      expect([...entries].map(([k, e]) => [k, e.state]).sort()).toEqual([
        ['m1', 'published'],
        ['m2', 'reserved'],
        ['m3', 'published'],
      ]);
      expect(await listGroupRecords(db(), [ours.groupId])).toEqual([]);
    });

    it('a rolled-back reservation leaves no row, no group and no spent credit', async () => {
      const org = await createOrganization(db(), { name: 'Rollback' });
      await grantCredits(db(), org.id, 1);
      let groupId = '';
      await expect(
        reserveGroup(org.id, [reservation(org.id, 'r')], async (tx, group) => {
          groupId = group.id;
          await spendCredits(tx, org.id, 1);
          await writeIngestGroup(tx, group);
          throw new Error('publish failed before commit');
        }),
      ).rejects.toThrow('publish failed');
      expect(await getCreditBalance(db(), org.id)).toBe(1);
      expect((await getLedgerEntries(db(), org.id, ['r'])).size).toBe(0);
      expect(await groupRow(groupId)).toBeUndefined();
    });

    it('rows that could not be paid are deleted; their bytes stay in the blob unreferenced', async () => {
      const org = await createOrganization(db(), { name: 'Partial402' });
      const partly = await reserveGroup(org.id, ['d1', 'd2', 'd3'].map((k) => reservation(org.id, k)), async (tx, group) => {
        expect(await discardReservations(tx, group, org.id, ['d3', 'd2', 'd2'])).toBe(2);
      });
      expect([...(await getLedgerEntries(db(), org.id, ['d1', 'd2', 'd3'])).keys()]).toEqual(['d1']);
      expect((await listGroupRecords(db(), [partly.groupId])).map((r) => [r.idempotencyKey, r.payload.toString()])).toEqual([['d1', 'd1']]);
      const row = await groupRow(partly.groupId);
      expect(row!.payloads).toEqual(Buffer.from('d1d2d3'));
      expect(JSON.parse(row!.members!)).toEqual([{ organization_id: org.id, idempotency_keys: ['d1'] }]);

      // None paid: nothing references the group, so it is not written.
      const none = await reserveGroup(org.id, [reservation(org.id, 'd4')], async (tx, group) => {
        await discardReservations(tx, group, org.id, ['d4']);
      });
      expect(none.written).toBe(false);
      expect(await groupRow(none.groupId)).toBeUndefined();
    });

    it('records come back as Buffers with the same bytes; stranded groups are listed oldest first, in-flight ones skipped', async () => {
      const org = await createOrganization(db(), { name: 'Sweeper' });
      const bytes = Buffer.from([0, 0, 0, 0, 1, 0xff, 0x00, 0x7f]);
      const g1 = await reserveGroup(org.id, [{ ...reservation(org.id, 's1', bytes), flagReason: 'timestamp_too_old' }]);
      const g2 = await reserveGroup(org.id, [reservation(org.id, 's2'), reservation(org.id, 's3')]);
      const g3 = await reserveGroup(org.id, [reservation(org.id, 's4')]);
      await markGroupsPublished(db(), [g3.groupId]);
      // Age the groups so their order is known; the sweeper only takes groups older than its cutoff.
      await db().query(
        `UPDATE ingest_groups SET created_at = now() - CASE id WHEN $1::bigint THEN interval '3 minutes' ELSE interval '2 minutes' END
          WHERE id = ANY($2::bigint[])`,
        [g1.groupId, [g1.groupId, g2.groupId, g3.groupId]],
      );
      const mine = new Set([g1.groupId, g2.groupId, g3.groupId]);
      const cutoff = new Date(Date.now() - 60_000);
      const stranded = (await listStrandedGroups(db(), cutoff, 100)).filter((g) => mine.has(g.id));
      expect(stranded.map((g) => g.id)).toEqual([g1.groupId, g2.groupId]);
      expect(stranded[0]!.createdAt).toBeInstanceOf(Date);
      expect((await listStrandedGroups(db(), cutoff, 100, [g1.groupId])).filter((g) => mine.has(g.id)).map((g) => g.id)).toEqual([g2.groupId]);
      expect((await listStrandedGroups(db(), new Date(Date.now() - 10 * 60_000), 100)).filter((g) => mine.has(g.id))).toEqual([]);
      expect(await listStrandedGroups(db(), cutoff, 1)).toHaveLength(1);

      const records = await listGroupRecords(db(), [g2.groupId, g1.groupId, g3.groupId]);
      expect(keysOf(records)).toEqual(['s1', 's2', 's3']);
      expect(Buffer.isBuffer(records[0]!.payload)).toBe(true);
      expect(records[0]!.payload.equals(bytes)).toBe(true);
      expect(records[0]).toMatchObject({ groupId: g1.groupId, organizationId: org.id, eventId: eventIdFor(org.id, 's1'), flagReason: 'timestamp_too_old' });
      expect(records[0]!.createdAt).toEqual(stranded[0]!.createdAt);
      expect(records[2]!.payload).toEqual(Buffer.from('s3'));
    });

    it('releasing a group deletes its rows of the keys given, refunds exactly their credits and deletes the group', async () => {
      const org = await createOrganization(db(), { name: 'Release' });
      await grantCredits(db(), org.id, 10);
      const spend = (n: number) => async (tx: Queryable) => void (await spendCredits(tx, org.id, n));
      const g1 = await reserveGroup(org.id, ['x1', 'x2'].map((k) => reservation(org.id, k)), spend(2));
      const g2 = await reserveGroup(org.id, [reservation(org.id, 'x3')], spend(1));
      await markGroupsPublished(db(), [g2.groupId]);
      const keys = (...ks: string[]) => ks.map((k) => ({ organizationId: org.id, idempotencyKey: k }));
      // x3 is another group's and published (it reached Kafka) and must stay; 'nope' never existed.
      expect(await db().transaction((tx) => releaseReservations(tx, g1.groupId, keys('x1', 'x2', 'x3', 'nope')))).toBe(2);
      expect(await getCreditBalance(db(), org.id)).toBe(9);
      expect([...(await getLedgerEntries(db(), org.id, ['x1', 'x2', 'x3'])).keys()]).toEqual(['x3']);
      expect(await groupRow(g1.groupId)).toBeUndefined();
      // A published group releases nothing.
      expect(await db().transaction((tx) => releaseReservations(tx, g2.groupId, keys('x3')))).toBe(0);
      expect(await getCreditBalance(db(), org.id)).toBe(9);

      // keepGroup: the rows go, the group stays unpublished for the sweeper's other rows.
      const g3 = await reserveGroup(org.id, ['y1', 'y2'].map((k) => reservation(org.id, k)), spend(2));
      expect(await db().transaction((tx) => releaseReservations(tx, g3.groupId, keys('y1'), { keepGroup: true }))).toBe(1);
      expect(await getCreditBalance(db(), org.id)).toBe(8);
      expect(await groupRow(g3.groupId)).toMatchObject({ published: false });
      expect(keysOf(await listGroupRecords(db(), [g3.groupId]))).toEqual(['y2']);
    });
  });

  describe('end users', () => {
    it('upsert is idempotent and ids are UUIDv5 of organization + external id', async () => {
      const org = await createOrganization(db(), { name: 'Users' });
      expect(await upsertEndUsers(db(), org.id, ['alice', 'bob', 'alice'])).toBe(2);
      expect(await upsertEndUsers(db(), org.id, ['bob', 'alice'])).toBe(0);
      expect(await upsertEndUsers(db(), org.id, ['carol', 'bob'])).toBe(1);
      const users = await listEndUsers(db(), org.id);
      expect(users.map((u) => [u.externalId, u.id])).toEqual([
        ['alice', endUserIdFor(org.id, 'alice')],
        ['bob', endUserIdFor(org.id, 'bob')],
        ['carol', endUserIdFor(org.id, 'carol')],
      ]);
      expect((await getEndUserByExternalId(db(), org.id, 'bob'))?.id).toBe(endUserIdFor(org.id, 'bob'));
      expect(await getEndUserByExternalId(db(), org.id, 'dave')).toBeNull();
    });

    it('concurrent upserts of overlapping batches create each user once', async () => {
      const org = await createOrganization(db(), { name: 'UsersRace' });
      const batches = [['u1', 'u2', 'u3'], ['u3', 'u2', 'u4'], ['u4', 'u1', 'u5'], ['u5', 'u6']];
      const created = await Promise.all(batches.map((b) => db().transaction((tx) => upsertEndUsers(tx, org.id, b))));
      expect(created.reduce((a, b) => a + b, 0)).toBe(6);
      expect((await listEndUsers(db(), org.id)).map((u) => u.externalId)).toEqual(['u1', 'u2', 'u3', 'u4', 'u5', 'u6']);
    });
  });

  describe('rate cards and unit rates', () => {
    it('keep NUMERIC rates exact and bump rates_version on every write', async () => {
      const org = await createOrganization(db(), { name: 'Rates' });
      const card = await createRateCard(db(), org.id, {
        modelSlug: 'Claude-Sonnet-4',
        inputCostPerMillion: '0.000000000001',
        outputCostPerMillion: '15.000000000000000001',
        cacheCreationCostPerMillion: '3.75',
        cacheReadCostPerMillion: null,
        reasoningCostPerMillion: null,
        effectiveFrom: new Date('2025-01-01T00:00:00Z'),
      });
      expect(card).toMatchObject({
        modelSlug: 'claude-sonnet-4',
        inputCostPerMillion: '0.000000000001',
        outputCostPerMillion: '15.000000000000000001',
        cacheCreationCostPerMillion: '3.75',
        cacheReadCostPerMillion: null,
        effectiveFrom: new Date('2025-01-01T00:00:00Z'),
      });
      expect(await getRatesVersion(db(), org.id)).toBe(1);

      const unit = await createUnitRate(db(), org.id, { provider: 'ElevenLabs', metric: 'Characters', unit: 'Char', costPerUnit: '0.00003' });
      expect(unit).toMatchObject({ model: null, provider: 'elevenlabs', metric: 'characters', unit: 'Char', costPerUnit: '0.00003' });
      expect(unit.effectiveFrom.getTime()).toBe(0);
      expect(await getRatesVersion(db(), org.id)).toBe(2);
      expect((await listRatesVersions(db())).get(org.id)).toBe(2);
      expect((await getOrganization(db(), org.id))?.ratesVersion).toBe(2);

      expect((await listRateCards(db(), org.id)).map((c) => c.id)).toEqual([card.id]);
      expect((await listUnitRates(db(), org.id)).map((u) => u.id)).toEqual([unit.id]);
    });

    it('refuse a second card for the same slug and effective_from, and a failed write bumps nothing', async () => {
      const org = await createOrganization(db(), { name: 'Dup' });
      const input = {
        modelSlug: 'gpt-4o',
        inputCostPerMillion: '2.5',
        outputCostPerMillion: '10',
        cacheCreationCostPerMillion: null,
        cacheReadCostPerMillion: '1.25',
        reasoningCostPerMillion: null,
        effectiveFrom: new Date('2025-06-01T00:00:00Z'),
      };
      await createRateCard(db(), org.id, input);
      await expect(createRateCard(db(), org.id, { ...input, modelSlug: 'GPT-4o' })).rejects.toThrow(ConflictError);
      expect(await getRatesVersion(db(), org.id)).toBe(1);
      await createRateCard(db(), org.id, { ...input, effectiveFrom: new Date('2025-07-01T00:00:00Z') });
      expect(await getRatesVersion(db(), org.id)).toBe(2);
      await expect(createRateCard(db(), crypto.randomUUID(), input)).rejects.toThrow(NotFoundError);
    });

    it('a unit rate names exactly one of model and provider', async () => {
      const org = await createOrganization(db(), { name: 'Unit' });
      const base = { metric: 'images', unit: 'image', costPerUnit: '0.04' };
      expect(await sqlError(createUnitRate(db(), org.id, { ...base, model: 'dall-e-3', provider: 'openai' }))).toBe('23514');
      expect(await sqlError(createUnitRate(db(), org.id, base))).toBe('23514');
      await createUnitRate(db(), org.id, { ...base, model: 'dall-e-3' });
      await createUnitRate(db(), org.id, { ...base, provider: 'dall-e-3' });
      await expect(createUnitRate(db(), org.id, { ...base, model: 'DALL-E-3' })).rejects.toThrow(ConflictError);
    });
  });

  describe('dimensions', () => {
    it('are unique per key and listed by key', async () => {
      const org = await createOrganization(db(), { name: 'Dims' });
      const d = await createDimension(db(), org.id, { name: 'Team', key: 'team', valueType: 'string', isRequired: true });
      expect(d).toMatchObject({ key: 'team', description: null, valueType: 'string', isRequired: true });
      await createDimension(db(), org.id, { name: 'Latency', key: 'latency_ms', valueType: 'number', description: 'ms' });
      await expect(createDimension(db(), org.id, { name: 'Team 2', key: 'team', valueType: 'string' })).rejects.toThrow(ConflictError);
      expect((await listDimensions(db(), org.id)).map((x) => x.key)).toEqual(['latency_ms', 'team']);
      expect((await getDimension(db(), org.id, 'latency_ms'))?.isRequired).toBe(false);
      expect(await getDimension(db(), org.id, 'Team')).toBeNull();
    });
  });

  describe('subscriptions', () => {
    it('a new active subscription cancels the previous one; at most one is active', async () => {
      const org = await createOrganization(db(), { name: 'Subs' });
      const first = (await getActiveSubscription(db(), org.id))!;
      const pro = await createSubscription(db(), org.id, { plan: 'pro' });
      expect((await getActiveSubscription(db(), org.id))?.id).toBe(pro.id);
      const subs = await listSubscriptions(db(), org.id);
      expect(subs.map((s) => [s.plan, s.status])).toEqual([
        ['default', 'canceled'],
        ['pro', 'active'],
      ]);
      expect(subs[0]!.endedAt).toBeInstanceOf(Date);
      await expect(setSubscriptionStatus(db(), org.id, first.id, 'active')).rejects.toThrow(ConflictError);
      await setSubscriptionStatus(db(), org.id, pro.id, 'inactive');
      expect(await getActiveSubscription(db(), org.id)).toBeNull();
      const back = await setSubscriptionStatus(db(), org.id, first.id, 'active');
      expect(back.endedAt).toBeNull();
      await expect(setSubscriptionStatus(db(), org.id, crypto.randomUUID(), 'inactive')).rejects.toThrow(NotFoundError);
    });
  });

  describe('revenue', () => {
    it('an import upserts by id, keeps amounts exact and activates the import connection', async () => {
      const org = await createOrganization(db(), { name: 'Revenue' });
      expect(await hasActiveRevenueConnection(db(), org.id)).toBe(false);
      await upsertEndUsers(db(), org.id, ['cust-1']);
      const p = (s: string) => new Date(s);
      const result = await importRevenueRecords(db(), org.id, [
        { id: 'inv-1', userId: 'cust-1', customerName: 'Old Name', amount: '10', periodStart: p('2025-01-01T00:00:00Z'), periodEnd: p('2025-02-01T00:00:00Z') },
        { id: 'inv-2', userId: null, amount: '123456789012345678.123456789012', periodStart: p('2025-01-15T00:00:00Z'), periodEnd: p('2025-01-16T00:00:00Z') },
        { id: 'inv-3', userId: 'cust-2', customerName: 'Beta Corp', amount: '-0.000000000001', periodStart: p('2025-03-01T00:00:00Z'), periodEnd: p('2025-04-01T00:00:00Z') },
        // The same id again within one import: the last one wins.
        { id: 'inv-1', userId: 'cust-1', customerName: 'Acme Ltd', amount: '99.90', periodStart: p('2025-01-01T00:00:00Z'), periodEnd: p('2025-02-01T00:00:00Z') },
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
      const window = await listRevenueRecords(db(), org.id, { overlapping: { start: p('2025-01-20T00:00:00Z'), end: p('2025-03-01T00:00:00Z') } });
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

  describe('CHECK constraints refuse bad data', () => {
    it.each([
      ['negative rate', `INSERT INTO rate_cards (organization_id, model_slug, input_cost_per_million, output_cost_per_million, effective_from) VALUES ($1, 'm', -1, 1, now())`],
      ['NaN rate', `INSERT INTO rate_cards (organization_id, model_slug, input_cost_per_million, output_cost_per_million, effective_from) VALUES ($1, 'm', 'NaN', 1, now())`],
      ['uppercase slug', `INSERT INTO rate_cards (organization_id, model_slug, input_cost_per_million, output_cost_per_million, effective_from) VALUES ($1, 'GPT', 1, 1, now())`],
      ['unknown subscription status', `INSERT INTO subscriptions (organization_id, status, plan) VALUES ($1, 'paused', 'p')`],
      ['empty revenue period', `INSERT INTO revenue_records (organization_id, source, id, amount, period_start, period_end) VALUES ($1, 'import', 'r', 1, '2025-01-01', '2025-01-01')`],
      ['lowercase currency', `INSERT INTO revenue_records (organization_id, source, id, amount, currency, period_start, period_end) VALUES ($1, 'import', 'r', 1, 'usd', '2025-01-01', '2025-02-01')`],
      ['unknown revenue source', `INSERT INTO revenue_records (organization_id, source, id, amount, period_start, period_end) VALUES ($1, 'paypal', 'r', 1, '2025-01-01', '2025-02-01')`],
      ['unknown connection kind', `INSERT INTO revenue_connections (organization_id, kind, status) VALUES ($1, 'paypal', 'active')`],
      ['non-object connection config', `INSERT INTO revenue_connections (organization_id, kind, status, config) VALUES ($1, 'stripe', 'active', '[1]')`],
      ['dimension type', `INSERT INTO dimension_definitions (organization_id, name, key, value_type) VALUES ($1, 'n', 'k', 'boolean')`],
      ['dimension key with a space', `INSERT INTO dimension_definitions (organization_id, name, key, value_type) VALUES ($1, 'n', 'a key', 'string')`],
      ['ledger row in a group without a payload place', `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, group_id) VALUES ($1, 'k', gen_random_uuid(), 1)`],
      ['negative payload offset', `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, group_id, payload_offset, payload_length) VALUES ($1, 'k', gen_random_uuid(), 1, -1, 1)`],
      ['payload place without a group', `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, payload_offset, payload_length) VALUES ($1, 'k', gen_random_uuid(), 0, 1)`],
      ['empty idempotency key', `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id) VALUES ($1, '', gen_random_uuid())`],
      ['unpublished ingest group without payloads', `INSERT INTO ingest_groups (members) VALUES ($1::text)`],
      ['unpublished ingest group without members', `INSERT INTO ingest_groups (payloads) VALUES (convert_to($1::text, 'UTF8'))`],
      ['zero credit grant', `INSERT INTO credit_grants (organization_id, amount, balance_after) VALUES ($1, 0, 0)`],
      ['empty end-user external id', `INSERT INTO end_users (id, organization_id, external_id) VALUES (gen_random_uuid(), $1, '')`],
    ])('%s', async (_name, sql) => {
      const org = await createOrganization(db(), { name: 'Checks' });
      expect(await sqlError(db().query(sql, [org.id]))).toBe('23514');
    });

    it('a second active subscription violates the partial unique index', async () => {
      const org = await createOrganization(db(), { name: 'TwoActive' });
      expect(await sqlError(db().query(`INSERT INTO subscriptions (organization_id, status, plan) VALUES ($1, 'active', 'x')`, [org.id]))).toBe(
        '23505',
      );
    });
  });

  it(`returns the same JS types as pg [${kind}]`, async () => {
    const [row] = await db().query<Record<string, unknown>>(
      `SELECT 1.50::numeric AS n, 9007199254740993::int8 AS i8, 7::int4 AS i4, now() AS t,
              ARRAY['a','b']::text[] AS arr, '{"a":{"b":1}}'::jsonb AS j, '\\x0001ff'::bytea AS b, true AS bool`,
    );
    expect(row!.n).toBe('1.50');
    expect(row!.i8).toBe('9007199254740993');
    expect(row!.i4).toBe(7);
    expect(row!.t).toBeInstanceOf(Date);
    expect(row!.arr).toEqual(['a', 'b']);
    expect(row!.j).toEqual({ a: { b: 1 } });
    expect(Buffer.isBuffer(row!.b)).toBe(true);
    expect((row!.b as Buffer).toString('hex')).toBe('0001ff');
    expect(row!.bool).toBe(true);
  });
});
