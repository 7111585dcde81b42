// The shared control plane (core/control: migrations, organizations, API keys, credits, end users,
// dimensions, subscriptions, constraints) on both engines it runs on: PGlite (embedded) and real
// PostgreSQL. The ingest ledger, rate cards and revenue have their own files. Expected
// values are written out by hand or computed independently (node:crypto), never by the code
// under test.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretDecryptionError } from '../../core/auth/secrets.js';
import { findActiveApiKey, issueApiKey, listApiKeys, revokeApiKey } from '../../core/control/api-keys.js';
import { getCreditBalance, grantCredits, listCreditGrants, spendAvailableCredits, spendCredits } from '../../core/control/credits.js';
import { openControlDb, type ControlDb } from '../../core/control/db.js';
import { createDimension, getDimension, listDimensions } from '../../core/control/dimensions.js';
import { getEndUserByExternalId, listEndUsers, upsertEndUsers } from '../../core/control/end-users.js';
import {
  beginIngestGroup,
  listGroupRecords,
  listStrandedGroups,
  markGroupsPublished,
  reserveEvents,
  writeIngestGroup,
  type ReservationInput,
} from '../../ingest/ingest-ledger.store.js';
import { getLedgerDetails, getLedgerEntries } from '../support/ledger-reads.js';
import { loadMigrations, migrate } from '../../core/control/migrate.js';
import { createOrganization, getOrganization } from '../../core/control/organizations.js';
import { createSubscription, getActiveSubscription, listSubscriptions, setSubscriptionStatus } from '../../core/control/subscriptions.js';
import { ConflictError, NotFoundError, ValidationError } from '../../core/errors.js';
import { endUserIdFor, eventIdFor } from '../../core/ids.js';
import { CONTROL_DB_KINDS, TEST_MASTER_KEY, describeEachControlDb, openFreshControlDb, testPostgresUrl } from '../support/control-db.js';

const MIGRATION_NAMES = [
  '001_organizations_keys_credits',
  '002_ingest_ledger',
  '003_pricing',
  '004_dimensions_end_users',
  '005_revenue',
  '006_ingest_groups',
  '007_ingest_group_member_names',
  '008_alerts_webhooks_budgets',
  '009_otlp',
  '010_rate_card_tiers',
  '011_repricings',
  '012_alert_spend_revisions',
  '013_otlp_structural_spans',
  '014_rate_card_corrections',
  '015_people_sessions_audit',
  '017_rate_card_time_windows',
  '018_reconciliation',
  '021_sso',
  '022_export_schedules',
  '023_reconciliation_connections',
  '024_what_if_scenarios',
  '026_password_resets',
  '027_invitation_revocation',
  '028_export_schedule_dimensions',
  '030_reconciliation_provider_usage',
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
        expect(rows.map((r) => r.version)).toEqual(MIGRATION_NAMES.map((name) => Number(name.slice(0, 3))));
        expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
        const tables = await fresh.db.query<{ table_name: string }>(
          `SELECT table_name FROM information_schema.tables
            WHERE table_schema = current_schema() ORDER BY table_name`,
        );
        expect(tables.map((t) => t.table_name)).toEqual([
          'alert_daily_spend',
          'alert_firings',
          'alert_partition_marks',
          'alert_settings',
          'alert_spend_revisions',
          'api_keys',
          'audit_events',
          'budgets',
          'credit_balances',
          'credit_grants',
          'dimension_definitions',
          'end_users',
          'export_runs',
          'export_schedules',
          'ingest_groups',
          'ingest_ledger',
          'ingest_ledger_states',
          'invitations',
          'memberships',
          'organizations',
          'otlp_attribute_mappings',
          'otlp_structural_spans',
          'password_resets',
          'people',
          'person_sessions',
          'rate_cards',
          'reconciliation_connections',
          'reconciliation_provider_costs',
          'reconciliation_provider_usage',
          'reconciliation_settings',
          'repricing_partitions',
          'repricings',
          'revenue_connections',
          'revenue_records',
          'schema_migrations',
          'sign_in_failures',
          'sso_attempts',
          'sso_configurations',
          'subscriptions',
          'unit_rates',
          'webhook_attempts',
          'webhook_deliveries',
          'webhook_endpoints',
          'webhook_events',
          'what_if_scenarios',
        ]);
      } finally {
        await fresh.dispose();
      }
    });

    it('refuse to run when an applied migration file was edited', async () => {
      const fresh = await openFreshControlDb(kind);
      try {
        const edited = loadMigrations().map((m) => (m.version === 2 ? { ...m, sql: `${m.sql}\n-- x`, checksum: 'f'.repeat(64) } : m));
        await expect(migrate(fresh.db, edited)).rejects.toThrow(/002_ingest_ledger\.sql was edited/);
      } finally {
        await fresh.dispose();
      }
    });

    it('006 keeps the ledger rows of 002: published ones stay published, reserved ones are swept from their own group', async () => {
      const fresh = await openFreshControlDb(kind, { migrate: false });
      try {
        await migrate(
          fresh.db,
          loadMigrations().filter((m) => m.version <= 5),
        );
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
        expect(await migrate(fresh.db)).toEqual(MIGRATION_NAMES.slice(5));

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
        const records = await listGroupRecords(
          fresh.db,
          stranded.map((g) => g.id),
        );
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
        expect(
          keysOf(
            await listGroupRecords(
              fresh.db,
              stranded.map((g) => g.id),
            ),
          ),
        ).toEqual(['old-res-1']);

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
        expect(count!.n).toBe(String(MIGRATION_NAMES.length));
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
      expect(await findActiveApiKey(db(), TEST_MASTER_KEY, `${issued.apiKey}x`)).toBeNull();
      expect(await findActiveApiKey(db(), TEST_MASTER_KEY, 'Bearer nonsense')).toBeNull();
      await expect(findActiveApiKey(db(), Buffer.alloc(32, 9), issued.apiKey)).rejects.toThrow(SecretDecryptionError);

      const listed = await listApiKeys(db(), org.id);
      expect(listed.map((k) => k.id)).toEqual([issued.id]);
      expect(JSON.stringify(listed)).not.toContain(issued.apiKey);

      const revoked = await revokeApiKey(db(), org.id, issued.id);
      expect(revoked.revokedAt).toBeInstanceOf(Date);
      expect(await findActiveApiKey(db(), TEST_MASTER_KEY, issued.apiKey)).toBeNull();
    });

    it('bind each ciphertext to its own row: a secret copied onto another key does not decrypt', async () => {
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
      await expect(issueApiKey(db(), TEST_MASTER_KEY, crypto.randomUUID(), { scopes: ['usage:read'] })).rejects.toThrow(NotFoundError);
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
      expect(await sqlError(db().query('UPDATE credit_balances SET balance = -1 WHERE organization_id = $1', [org.id]))).toBe('23514');
    });

    it('20 concurrent spends of 1 against a balance of 5: exactly 5 succeed', async () => {
      const org = await createOrganization(db(), { name: 'Race' });
      await grantCredits(db(), org.id, 5);
      const results = await Promise.all(Array.from({ length: 20 }, () => db().transaction((tx) => spendCredits(tx, org.id, 1))));
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(await getCreditBalance(db(), org.id)).toBe(0);
    });

    it('concurrent partial spends never hand out more than the balance', async () => {
      const org = await createOrganization(db(), { name: 'Partial' });
      await grantCredits(db(), org.id, 10);
      const results = await Promise.all(Array.from({ length: 6 }, () => db().transaction((tx) => spendAvailableCredits(tx, org.id, 3))));
      // 6 × 3 = 18 asked, 10 available: spends are 3, 3, 3, 1, 0, 0 in some order.
      expect(results.map((r) => r.spent).sort()).toEqual([0, 0, 1, 3, 3, 3]);
      expect(await getCreditBalance(db(), org.id)).toBe(0);
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
      const batches = [
        ['u1', 'u2', 'u3'],
        ['u3', 'u2', 'u4'],
        ['u4', 'u1', 'u5'],
        ['u5', 'u6'],
      ];
      const created = await Promise.all(batches.map((b) => db().transaction((tx) => upsertEndUsers(tx, org.id, b))));
      expect(created.reduce((a, b) => a + b, 0)).toBe(6);
      expect((await listEndUsers(db(), org.id)).map((u) => u.externalId)).toEqual(['u1', 'u2', 'u3', 'u4', 'u5', 'u6']);
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

  describe('CHECK constraints refuse bad data', () => {
    it.each([
      [
        'negative rate',
        `INSERT INTO rate_cards (organization_id, model_slug, input_cost_per_million, output_cost_per_million, effective_from) VALUES ($1, 'm', -1, 1, now())`,
      ],
      [
        'NaN rate',
        `INSERT INTO rate_cards (organization_id, model_slug, input_cost_per_million, output_cost_per_million, effective_from) VALUES ($1, 'm', 'NaN', 1, now())`,
      ],
      [
        'uppercase slug',
        `INSERT INTO rate_cards (organization_id, model_slug, input_cost_per_million, output_cost_per_million, effective_from) VALUES ($1, 'GPT', 1, 1, now())`,
      ],
      ['unknown subscription status', `INSERT INTO subscriptions (organization_id, status, plan) VALUES ($1, 'paused', 'p')`],
      [
        'empty revenue period',
        `INSERT INTO revenue_records (organization_id, source, id, amount, period_start, period_end) VALUES ($1, 'import', 'r', 1, '2025-01-01', '2025-01-01')`,
      ],
      [
        'lowercase currency',
        `INSERT INTO revenue_records (organization_id, source, id, amount, currency, period_start, period_end) VALUES ($1, 'import', 'r', 1, 'usd', '2025-01-01', '2025-02-01')`,
      ],
      [
        'unknown revenue source',
        `INSERT INTO revenue_records (organization_id, source, id, amount, period_start, period_end) VALUES ($1, 'paypal', 'r', 1, '2025-01-01', '2025-02-01')`,
      ],
      ['unknown connection kind', `INSERT INTO revenue_connections (organization_id, kind, status) VALUES ($1, 'paypal', 'active')`],
      [
        'non-object connection config',
        `INSERT INTO revenue_connections (organization_id, kind, status, config) VALUES ($1, 'stripe', 'active', '[1]')`,
      ],
      ['dimension type', `INSERT INTO dimension_definitions (organization_id, name, key, value_type) VALUES ($1, 'n', 'k', 'boolean')`],
      [
        'dimension key with a space',
        `INSERT INTO dimension_definitions (organization_id, name, key, value_type) VALUES ($1, 'n', 'a key', 'string')`,
      ],
      [
        'ledger row in a group without a payload place',
        `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, group_id) VALUES ($1, 'k', gen_random_uuid(), 1)`,
      ],
      [
        'negative payload offset',
        `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, group_id, payload_offset, payload_length) VALUES ($1, 'k', gen_random_uuid(), 1, -1, 1)`,
      ],
      [
        'payload place without a group',
        `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id, payload_offset, payload_length) VALUES ($1, 'k', gen_random_uuid(), 0, 1)`,
      ],
      [
        'empty idempotency key',
        `INSERT INTO ingest_ledger (organization_id, idempotency_key, event_id) VALUES ($1, '', gen_random_uuid())`,
      ],
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
      expect(
        await sqlError(db().query(`INSERT INTO subscriptions (organization_id, status, plan) VALUES ($1, 'active', 'x')`, [org.id])),
      ).toBe('23505');
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
