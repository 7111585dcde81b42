// Budget spend follows a re-pricing on the open lake (LAKE_FORMAT=ducklake) exactly once, across a
// failure between the rewrite's DuckLake commit and the spend's apply (spend-revisions.ts): the
// commit records the revision's id in the lake (spend_revisions), and the partition's next load
// applies an unapplied revision exactly when its lake holds that id. A rewrite refused before its
// commit (fenced: another owner moved the offset) leaves a revision that is never applied.
// Real PostgreSQL (control plane and catalog), real DuckDB/DuckLake on local disk, real Kafka for
// the processor case; every figure is worked out here from hand-written rates.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AlertTally } from '../../alerts/evaluation/spend-tally.js';
import { loadConfig } from '../../core/config.js';
import { createOrganization } from '../../core/control/organizations.js';
import { createKafka, ensureTopics } from '../../core/kafka/client.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { createLogger } from '../../core/logger.js';
import { Big } from '../../core/money.js';
import { createUsageEventCodec } from '../../core/registry/usage-event-codec.js';
import { RateBook } from '../../pricing/rate-book.js';
import { Processor } from '../../processor/consumer.js';
import { DeadLetterQueue } from '../../processor/dlq.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { LakeFencedError } from '../../processor/lake/lake-writer.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { openFreshControlDb, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { lakeEvent } from '../support/lake-event-builder.js';
import {
  createInputOutputCard,
  createPrivateTopic,
  inputOutputCost,
  lakeTotals,
  tempLakeDir,
  UsageEventProducer,
  usageEvent,
  waitUntil,
} from '../support/processor-fixtures.js';
import { duckLakeEnv, markDuckLake } from '../support/test-lake.js';

const provisioned = await ensureDuckDBExtensions().catch(() => null);
const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'ducklake-repricing-spend');

describe.skipIf(!provisioned || !testPostgresUrl())('budget spend follows re-pricing on DuckLake, once', () => {
  let control: FreshControlDb;
  const catalogs: FreshControlDb[] = [];
  const lakes: string[] = [];

  beforeAll(async () => {
    control = await openFreshControlDb('postgres');
  }, 60_000);
  afterAll(async () => {
    await control?.dispose();
    for (const c of catalogs) await c.dispose();
    for (const dir of lakes) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A DuckLake on local disk, its catalog in a fresh PostgreSQL database (marked for lakeTotals). */
  const newLake = async (label: string): Promise<{ dir: string; settings: LakeSettings }> => {
    const dir = tempLakeDir(label);
    lakes.push(dir);
    const catalog = await openFreshControlDb('postgres', { migrate: false });
    catalogs.push(catalog);
    const env = duckLakeEnv(dir, catalog.url!);
    markDuckLake(dir, env);
    return { dir, settings: loadConfig({ DATA_DIR: dir, ...env }).lake };
  };
  const spend = async (organizationId: string, kind: string, value: string) => {
    const [r] = await control.db.query<{ cost: string | null }>(
      `SELECT sum(cost)::text AS cost FROM alert_daily_spend WHERE organization_id = $1 AND key_kind = $2 AND key_value = $3`,
      [organizationId, kind, value],
    );
    return new Big(r?.cost ?? '0').toFixed();
  };
  const revisions = async (organizationId: string) =>
    control.db.query<{ id: string; applied: boolean }>(
      `SELECT id, applied_at IS NOT NULL AS applied FROM alert_spend_revisions WHERE organization_id = $1 ORDER BY created_at`,
      [organizationId],
    );

  it('a rewrite fenced before its commit is never applied; one committed and not applied is applied once by the next load', async () => {
    const P = 2;
    const org = (await createOrganization(control.db, { name: 'ducklake-spend-writer' })).id;
    const { dir, settings } = await newLake('ducklake-spend-writer');
    // Three events stored pending (cost 0), counted, then written; gina's.
    const pending = [0, 1, 2].map((o) =>
      lakeEvent({
        kafka_offset: o,
        kafka_partition: P,
        organization_id: org,
        user_id: 'gina',
        status: 'pending_rate_card',
        total_cost: '0',
        input_cost: '0',
        output_cost: '0',
      }),
    );
    // The card that prices them: 2, 1 and 0.2 (worked out by hand), 3.2 in all.
    const priced: Record<number, string> = { 0: '2', 1: '1', 2: '0.2' };
    const price = (row: LakeEventRow): LakeEventRow | null =>
      row.status === 'pending_rate_card' ? { ...row, status: 'completed', total_cost: priced[row.kafka_offset]! } : null;
    const first = await DuckLakeWriter.open(settings);
    const tally = new AlertTally(control.db, logger);
    for (const r of pending) tally.note(P, r);
    await tally.recordFlush(P, 3);
    await first.flush(P, pending, 3);
    tally.written(P, 3);
    expect(await spend(org, 'organization', '')).toBe('0');

    // Another owner takes the partition and flushes one more event (0.25), moving the offset to 4.
    const second = await DuckLakeWriter.open(settings);
    const secondTally = new AlertTally(control.db, logger);
    await second.readManifest(P);
    const extra = lakeEvent({ kafka_offset: 3, kafka_partition: P, organization_id: org, user_id: 'gina', total_cost: '0.25' });
    secondTally.note(P, extra);
    await secondTally.recordFlush(P, 4);
    await second.flush(P, [extra], 4);
    secondTally.written(P, 4);
    expect(await spend(org, 'organization', '')).toBe('0.25');

    // The first owner, a zombie now, re-prices: its revision is written, its commit is fenced.
    const zombie = await tally.beginRevision(P, org, 3);
    await expect(
      first.rewriteRows(P, { organizationId: org, statuses: ['pending_rate_card'] }, zombie.follow(price), {
        beforeCommit: (files) => zombie.prepare(files),
      }),
    ).rejects.toBeInstanceOf(LakeFencedError);
    await first.close();
    expect(await revisions(org)).toEqual([{ id: expect.any(String), applied: false }]);
    // Its load sees no such commit: nothing applied.
    const loaded = await second.readManifest(P);
    await secondTally.reconcile(P, [], loaded.revisionIds);
    expect(await spend(org, 'organization', '')).toBe('0.25');
    expect((await lakeTotals(dir, org)).byStatus).toEqual({ pending_rate_card: 3, completed: 1 });

    // The owner re-prices; the commit lands and the process dies before the apply (commit() never runs).
    const follower = await secondTally.beginRevision(P, org, 4);
    const result = await second.rewriteRows(P, { organizationId: org, statuses: ['pending_rate_card'] }, follower.follow(price), {
      beforeCommit: (files) => follower.prepare(files),
    });
    expect(result.rowsChanged).toBe(3);
    await second.close();
    expect(await spend(org, 'organization', '')).toBe('0.25');

    // The next owner loads the partition: the lake holds the revision's id, so it is applied, once.
    const third = await DuckLakeWriter.open(settings);
    try {
      const view = await third.readManifest(P);
      const thirdTally = new AlertTally(control.db, logger);
      await thirdTally.reconcile(P, [], view.revisionIds);
      // 0.25 + 2 + 1 + 0.2 = 3.45, under the organization and gina alike.
      expect(await spend(org, 'organization', '')).toBe('3.45');
      expect(await spend(org, 'end_user', 'gina')).toBe('3.45');
      await thirdTally.reconcile(P, [], view.revisionIds);
      await new AlertTally(control.db, logger).reconcile(P, [], (await third.readManifest(P)).revisionIds);
      expect(await spend(org, 'organization', '')).toBe('3.45');
      expect((await revisions(org)).map((r) => r.applied)).toEqual([false, true]);
      const lake = await lakeTotals(dir, org);
      expect(lake.byStatus).toEqual({ completed: 4 });
      expect(new Big(lake.totalCost).toFixed()).toBe('3.45');
    } finally {
      await third.close();
    }
  }, 120_000);

  it('a processor whose spend apply the control plane refuses after the commit: the restarted processor applies it once', async () => {
    const brokers = inject('kafkaBrokers').split(',');
    const registryUrl = inject('schemaRegistryUrl');
    const org = (await createOrganization(control.db, { name: 'ducklake-spend-processor' })).id;
    const { dir, settings } = await newLake('ducklake-spend-processor');
    // Hand-written rates, USD per million tokens. Known: 1 / 2; late (created mid-test): 10 / 20.
    const KNOWN = { input: '1', output: '2' };
    const LATE = { input: '10', output: '20' };
    await createInputOutputCard(control.db, org, 'spend-known', KNOWN);
    const kafka = createKafka(brokers, 'ducklake-spend-producer', { logLevel: 'error' });
    const topic = await createPrivateTopic(kafka, 2);
    const producer = await UsageEventProducer.open(kafka, registryUrl, topic);
    const groupId = `ducklake-spend-${randomUUID()}`;
    const start = async () => {
      const processorKafka = createKafka(brokers, 'ducklake-spend-processor', { logLevel: 'error' });
      await ensureTopics(processorKafka, { partitions: 2 });
      const lake = await DuckLakeWriter.open(settings);
      const dlq = await DeadLetterQueue.open(processorKafka);
      const processor = await Processor.start({
        kafka: processorKafka,
        codec: await createUsageEventCodec(registryUrl),
        rateBook: new RateBook(control.db, 200),
        db: control.db,
        lake,
        dlq,
        logger,
        sessionTimeoutMs: 6_000,
        topic,
        groupId,
        flushMaxDelayMs: 200,
        repricingIntervalMs: 250,
        alerts: new AlertTally(control.db, logger),
      });
      return async () => {
        await processor.stop();
        await dlq.close();
        await lake.close();
      };
    };
    let stop: (() => Promise<void>) | null = await start();
    try {
      const known = usageEvent(org, 'spend-known-1', { model: 'spend-known', input_tokens: 1_000_000, output_tokens: 500_000 });
      const late = [
        [100_000, 50_000],
        [50_000, 25_000],
        [10_000, 5_000],
      ].map(([input, output], i) =>
        usageEvent(org, `spend-late-${i}`, { model: 'spend-late', input_tokens: input, output_tokens: output }),
      );
      // Known: 1,000,000 × 1 / 1e6 + 500,000 × 2 / 1e6 = 2. Late at 10 / 20: 1 + 1, 0.5 + 0.5, 0.1 + 0.1 = 3.2.
      expect(inputOutputCost(known, KNOWN).toFixed()).toBe('2');
      expect(late.map((e) => inputOutputCost(e, LATE).toFixed())).toEqual(['2', '1', '0.2']);
      await producer.send([known, ...late]);
      await waitUntil('4 events in the lake, 3 pending', async () => {
        const t = await lakeTotals(dir, org);
        return t.rows === 4 && t.byStatus.pending_rate_card === 3;
      });
      await waitUntil('the known event counted', async () => (await spend(org, 'organization', '')) === '2');

      // The control plane refuses the apply statement (applied_at set), as a failing database would.
      await control.db.query(
        `CREATE FUNCTION refuse_spend_apply() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'spend apply refused (test)'; END $$`,
      );
      await control.db.query(
        `CREATE TRIGGER refuse_spend_apply BEFORE UPDATE OF applied_at ON alert_spend_revisions FOR EACH ROW EXECUTE FUNCTION refuse_spend_apply()`,
      );
      await createInputOutputCard(control.db, org, 'spend-late', LATE);
      await waitUntil('the late events re-priced in the lake', async () => (await lakeTotals(dir, org)).byStatus.completed === 4, 30_000);
      expect(new Big((await lakeTotals(dir, org)).totalCost).toFixed()).toBe('5.2');
      expect((await revisions(org)).map((r) => r.applied)).toEqual([false]);
      await new Promise((r) => setTimeout(r, 500)); // flushes meanwhile retry the apply; still refused
      expect(await spend(org, 'organization', '')).toBe('2');

      // The processor goes away with the revision committed in the lake and not applied.
      await stop();
      stop = null;
      await control.db.query(`DROP TRIGGER refuse_spend_apply ON alert_spend_revisions`);
      stop = await start();
      // Its partition's load applies it: 2 + 3.2 = 5.2, once.
      await waitUntil('the revision applied after the restart', async () => (await spend(org, 'organization', '')) === '5.2', 30_000);
      // One more known event (200,000 × 1 / 1e6 + 100,000 × 2 / 1e6 = 0.4) and a flush: 5.6, nothing added twice.
      await producer.send([usageEvent(org, 'spend-known-2', { model: 'spend-known', input_tokens: 200_000, output_tokens: 100_000 })]);
      await waitUntil('the last event counted', async () => (await spend(org, 'organization', '')) !== '5.2', 30_000);
      await stop();
      stop = await start();
      await waitUntil('5 events in the lake', async () => (await lakeTotals(dir, org)).rows === 5);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await spend(org, 'organization', '')).toBe('5.6');
      expect(await spend(org, 'end_user', 'user-1')).toBe('5.6');
      expect((await revisions(org)).map((r) => r.applied)).toEqual([true]);
      expect(new Big((await lakeTotals(dir, org)).totalCost).toFixed()).toBe('5.6');
    } finally {
      await stop?.();
      await producer.close();
    }
  }, 180_000);
});
