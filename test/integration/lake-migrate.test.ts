// `npm run cli -- lake migrate` (processor/lake/lake-migration.ts): a manifest lake written by the
// real processor (files format, a real broker; three organizations over ten days, one of them
// re-priced, so the manifests list rewritten files and keep the replaced ones as garbage) moves
// into a DuckLake (data in the same folder, or on an S3 server: S3Proxy on loopback; catalog in
// PostgreSQL). The first run is SIGKILLed after
// its first commit, the second resumes and removes the old files. Then: every event once, the totals
// per organization, day and status equal the ones worked out here with big.js from the events
// sent, the daily rollup equal too, each partition's offset where the old processor stopped, and a
// DuckLake processor started afterwards takes only the events produced after the migration.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import { createOrganization } from '../../core/control/organizations.js';
import { createKafka, ensureTopics } from '../../core/kafka/client.js';
import { ensureLakeTables, type OpenLake, openLake } from '../../core/lake/lake-catalog.js';
import { readManifest } from '../../core/lake/manifest.js';
import { createLogger } from '../../core/logger.js';
import { Big } from '../../core/money.js';
import { fromRoot } from '../../core/paths.js';
import { createUsageEventCodec } from '../../core/registry/usage-event-codec.js';
import { RateBook } from '../../pricing/rate-book.js';
import { PROCESSOR_GROUP_ID, Processor } from '../../processor/consumer.js';
import { DeadLetterQueue } from '../../processor/dlq.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { LakeWriter, type ProcessorLake } from '../../processor/lake/lake-writer.js';
import type { UsageEvent } from '../../schemas/usage-event.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { type FreshControlDb, openFreshControlDb, testPostgresUrl } from '../support/control-db.js';
import {
  createInputOutputCard,
  createPrivateTopic,
  inputOutputCost,
  lakeTotals,
  UsageEventProducer,
  usageEvent,
  waitUntil,
} from '../support/processor-fixtures.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';
import { lakeEvent } from '../support/lake-event-builder.js';
import { testLakeFormat } from '../support/test-lake.js';

const provisioned = await ensureDuckDBExtensions().catch((e: Error) => {
  console.warn(`[lake-migrate] SKIPPED: the lake's DuckDB extensions cannot be provisioned: ${e.message}`);
  return null;
});

const brokers = inject('kafkaBrokers');
const registryUrl = inject('schemaRegistryUrl');

// USD per million tokens, by hand: "mg-known" priced from the start; "mg-late" only for the first
// organization, whose card comes after its events were stored pending (a re-pricing in the old lake).
const KNOWN = { input: '2.5', output: '10' };
const LATE = { input: '0.15', output: '0.6' };
const ORGS = 3;
const DAYS = 10;
const PARTITIONS = 4;

// The old lake must be the manifest lake whatever MARGINAL_TEST_LAKE says (this file makes its own lakes).
describe.skipIf(!provisioned || !testPostgresUrl() || testLakeFormat() !== 'files').each(['local', 's3'] as const)(
  'lake migrate (%s)',
  (store) => {
    let tmp: string;
    let lakeDir: string;
    let control: FreshControlDb;
    let producer: UsageEventProducer;
    let kafka: ReturnType<typeof createKafka>;
    let topic: string;
    let env: Record<string, string>;
    let target: OpenLake | null = null;
    let s3: TestS3Server | null = null;
    const orgs: string[] = [];
    const sent: UsageEvent[] = [];
    const stops: (() => Promise<void>)[] = [];

    /** Events of one round: per organization and day, known and late models, some in sessions. */
    const round = (r: number, days = DAYS): UsageEvent[] =>
      Array.from({ length: ORGS * days * 4 }, (_, j) => {
        const n = r * 1_000 + j;
        return usageEvent(orgs[j % ORGS]!, `mg-${n}`, {
          model: j % 5 === 0 ? 'mg-late' : 'mg-known',
          input_tokens: 100 + (n % 997),
          output_tokens: 10 + (n % 89),
          timestamp: new Date(Date.UTC(2026, 10, 10 + (Math.floor(j / ORGS) % days), 9, 0, n % 60)),
          session_id: n % 4 === 0 ? `s-${n % 7}` : null,
        });
      });
    /** The cost an event must have: its model's rates, 0 while pending (no card: every org but the first for mg-late). */
    const cost = (e: UsageEvent) =>
      e.model === 'mg-known' ? inputOutputCost(e, KNOWN) : e.organization_id === orgs[0] ? inputOutputCost(e, LATE) : new Big(0);
    const status = (e: UsageEvent) => (e.model === 'mg-late' && e.organization_id !== orgs[0] ? 'pending_rate_card' : 'completed');

    async function startProcessor(lake: ProcessorLake): Promise<void> {
      const dlq = await DeadLetterQueue.open(kafka);
      const processor = await Processor.start({
        kafka,
        codec: await createUsageEventCodec(registryUrl),
        rateBook: new RateBook(control.db, 200),
        db: control.db,
        lake,
        dlq,
        logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'warn', 'lake-migrate-test'),
        topic,
        groupId: `lake-migrate-${randomUUID()}`,
        flushMaxRows: 40,
        flushMaxDelayMs: 100,
        compactEveryMs: 500,
        repricingIntervalMs: 200,
        sessionTimeoutMs: 6_000,
      });
      stops.push(async () => {
        await processor.stop();
        await dlq.close();
        await lake.close();
      });
    }
    const stopProcessor = async () => stops.pop()!();

    /** `npm run cli -- lake migrate …` as its own process, output kept. */
    function migrate(
      args: string[] = [],
      envOverride: Record<string, string> = {},
    ): {
      child: ChildProcess;
      stdout: () => string;
      stderr: () => string;
      exited: Promise<number | null>;
    } {
      const child = spawn(process.execPath, ['--import', 'tsx', fromRoot('scripts', 'cli.ts'), 'lake', 'migrate', ...args], {
        cwd: fromRoot(),
        env: { ...process.env, ...env, ...envOverride },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { child, stdout: () => out, stderr: () => err, exited };
    }

    const rows = async <T>(sql: string): Promise<T[]> => (await target!.conn.runAndReadAll(sql)).getRowObjectsJson() as T[];
    const ours = () => orgs.map((o) => `'${o}'`).join(', ');

    beforeAll(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-lake-migrate-'));
      lakeDir = path.join(tmp, 'lake');
      control = await openFreshControlDb('postgres');
      for (let i = 0; i < ORGS; i++) {
        const org = (await createOrganization(control.db, { name: `lake-migrate-${i}` })).id;
        await createInputOutputCard(control.db, org, 'mg-known', KNOWN);
        orgs.push(org);
      }
      kafka = createKafka(brokers.split(','), 'lake-migrate-producer', { logLevel: 'error' });
      await ensureTopics(kafka, { partitions: PARTITIONS }); // the dead-letter topic
      topic = await createPrivateTopic(kafka, PARTITIONS);
      producer = await UsageEventProducer.open(kafka, registryUrl, topic);
      // Local: LAKE_URL unset, the open lake's data goes in the same folder as the old lake's, as by default.
      env = {
        LAKE_FORMAT: 'ducklake',
        LAKE_DIR: lakeDir,
        LAKE_CATALOG_URL: control.url!,
        LAKE_EXTENSION_DIR: provisioned!.extensionDirectory,
        DATA_DIR: path.join(tmp, 'data'),
        KAFKA_BROKERS: '', // no group check: earlier files' killed processors may linger in the default group
      };
      if (store === 's3') {
        s3 = await startTestS3Server(tmp);
        Object.assign(env, {
          LAKE_URL: `s3://${s3.bucket}/lake`,
          AWS_ACCESS_KEY_ID: s3.accessKeyId,
          AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
          AWS_REGION: s3.region,
          AWS_ENDPOINT_URL: s3.endpoint,
        });
      }
    });

    afterAll(async () => {
      while (stops.length > 0) await stopProcessor().catch(() => undefined);
      target?.close();
      await producer?.close();
      await s3?.stop();
      await control?.dispose();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('moves a re-priced manifest lake after a SIGKILL, with equal totals, then a DuckLake processor resumes where the old one stopped', async () => {
      // 1. The old lake, by the files-format processor: 3 rounds of 120 events, then the re-pricing.
      await startProcessor(await LakeWriter.open(lakeDir));
      for (let r = 0; r < 3; r++) {
        const batch = round(r);
        await producer.send(batch);
        sent.push(...batch);
      }
      const inOldLake = async () => {
        for (const org of orgs)
          if ((await lakeTotals(lakeDir, org)).rows !== sent.filter((e) => e.organization_id === org).length) return false;
        return true;
      };
      await waitUntil('every event in the old lake', inOldLake, 90_000);
      await createInputOutputCard(control.db, orgs[0]!, 'mg-late', LATE);
      await waitUntil(
        'the first organization re-priced',
        async () => !(await lakeTotals(lakeDir, orgs[0]!)).byStatus.pending_rate_card,
        60_000,
      );
      await stopProcessor();
      // The partitions the processor wrote (keys are organizations: not every partition has records).
      const manifests = (await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => readManifest(lakeDir, p)))).filter(
        (m) => m.version > 0,
      );
      expect(manifests.some((m) => m.garbage.length > 0)).toBe(true); // replaced files still on disk, not live
      const admin = kafka.admin();
      await admin.connect();
      const ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)]));
      await admin.disconnect();
      for (const m of manifests) expect(m.next_offset, `partition ${m.partition}`).toBe(ends.get(m.partition));

      // 2. The migration, killed after its first commit (the bar prints a line per unit off a terminal).
      const first = migrate();
      await waitUntil('a unit committed', async () => /\(p\d+\//.test(first.stderr()), 60_000, 20).catch((e) => {
        throw new Error(`${(e as Error).message}\n${first.stderr()}`);
      });
      first.child.kill('SIGKILL');
      await first.exited;
      target = await openLake(loadConfig({ ...env }).lake, { threads: 1 });
      const [{ n: unitsAfterKill }] = await rows<{ n: string }>('SELECT CAST(count(*) AS VARCHAR) AS n FROM lake.lake_migration_units');
      // 3 organizations (keyed to at most 3 partitions) × 10 days + one offset unit per manifest.
      const partitionsWithEvents = new Set(manifests.filter((m) => m.files.length > 0).map((m) => m.partition)).size;
      const unitsTotal = partitionsWithEvents * DAYS + manifests.length;
      expect(Number(unitsAfterKill)).toBeGreaterThanOrEqual(1);
      expect(Number(unitsAfterKill), first.stderr()).toBeLessThan(unitsTotal);

      // 3. Again, to the end, removing the old files.
      const resumedAt = performance.now();
      const second = migrate(['--remove-old']);
      expect(await second.exited, second.stderr()).toBe(0);
      const resumedMs = Math.round(performance.now() - resumedAt);
      const report = JSON.parse(second.stdout()) as {
        units: number;
        unitsResumed: number;
        events: number;
        offsets: Record<string, number>;
        verified: { organization_id: string; date: string; status: string; events: number; total_cost: string }[];
        removed: { directories: string[] };
      };
      console.log(
        `[lake-migrate figure] ${store}: resumed run (process start, ${report.units - report.unitsResumed} of ${report.units} units, verification, removal) ${resumedMs} ms for ${report.events} events`,
      );
      expect(report.units).toBe(unitsTotal);
      expect(report.unitsResumed).toBe(Number(unitsAfterKill));
      expect(report.events).toBe(sent.length);
      expect(report.removed.directories).toEqual(expect.arrayContaining(['events', 'daily_costs', '_manifests.migrated']));
      expect(fs.existsSync(path.join(lakeDir, '_manifests'))).toBe(false);
      expect(fs.existsSync(path.join(lakeDir, 'events'))).toBe(false);

      // 4. Totals per (organization, day, status), worked out from the events sent.
      const expected = expectedTotals(sent);
      expect(
        report.verified.filter((t) => orgs.includes(t.organization_id)).map((t) => [t.organization_id, t.date, t.status, t.events]),
      ).toEqual(expected.map((t) => [t.org, t.date, t.status, t.events]));
      await expectLakeTotals(expected);
      for (const m of manifests) {
        const [{ next_offset }] = await rows<{ next_offset: string }>(`SELECT next_offset FROM lake.partition_offsets_p${m.partition}`);
        expect(Number(next_offset), `partition ${m.partition}`).toBe(m.next_offset);
      }

      // 5. A DuckLake processor takes only what comes after: everything once, nothing re-read.
      await startProcessor(await DuckLakeWriter.open(loadConfig({ ...env }).lake));
      const later = round(7, 2);
      await producer.send(later);
      sent.push(...later);
      await waitUntil(
        'the new events in the open lake',
        async () => {
          const [{ n }] = await rows<{ n: string }>(
            `SELECT CAST(count(*) AS VARCHAR) AS n FROM lake.events WHERE organization_id IN (${ours()})`,
          );
          return Number(n) >= sent.length;
        },
        90_000,
      );
      await stopProcessor();
      const [{ n, ids }] = await rows<{ n: string; ids: string }>(
        `SELECT CAST(count(*) AS VARCHAR) AS n, CAST(count(DISTINCT event_id) AS VARCHAR) AS ids FROM lake.events WHERE organization_id IN (${ours()})`,
      );
      expect([Number(n), Number(ids)]).toEqual([sent.length, sent.length]);
      // The new records are the only ones the processor read: each partition's first new offset is the old end.
      const firstNew = await rows<{ p: number; first: string }>(
        `SELECT kafka_partition AS p, CAST(min(kafka_offset) AS VARCHAR) AS first FROM lake.events
       WHERE event_id IN (${later.map((e) => `'${e.event_id}'`).join(', ')}) GROUP BY 1`,
      );
      for (const f of firstNew) expect(Number(f.first), `partition ${f.p}`).toBe(ends.get(f.p));
      await expectLakeTotals(expectedTotals(sent));
    }, 420_000);

    it.runIf(store === 'local')(
      'refuses while a processor is in its consumer group, an open lake with offsets or another lake no migration of this one wrote, and an old lake written since it began',
      async () => {
        const oldLake = async (name: string, flushes: number) => {
          const dir = path.join(tmp, name);
          const writer = await LakeWriter.open(dir);
          for (let f = 0; f < flushes; f++) await writer.flush(0, [lakeEvent({ organization_id: orgs[0]!, kafka_offset: f })], f + 1);
          await writer.close();
          return dir;
        };
        const catalog = async () => {
          const fresh = await openFreshControlDb('postgres', { migrate: false });
          stops.push(() => fresh.dispose());
          return fresh.url!;
        };
        const a = await oldLake('refuse-a', 1);

        // A processor in the processors' consumer group (a member of its own, on this test's topic).
        const member = kafka.consumer({ groupId: PROCESSOR_GROUP_ID });
        const joined = new Promise((resolve) => member.on(member.events.GROUP_JOIN, resolve));
        await member.connect();
        await member.subscribe({ topics: [topic] });
        await member.run({ eachMessage: async () => undefined });
        await joined;
        const running = migrate([], { LAKE_DIR: a, KAFKA_BROKERS: brokers });
        const refusedWhileRunning = { code: await running.exited, stderr: running.stderr() };
        await member.disconnect();
        expect([refusedWhileRunning.code, refusedWhileRunning.stderr]).toEqual([
          1,
          expect.stringContaining(`are members of the consumer group ${PROCESSOR_GROUP_ID}`),
        ]);
        // The open lake's data where the first old lake's folder is (DuckLake refuses another data path).
        const run = async (lake: string, catalogUrl: string) => {
          const m = migrate([], { LAKE_DIR: lake, LAKE_URL: a, LAKE_CATALOG_URL: catalogUrl });
          return { code: await m.exited, stderr: m.stderr() };
        };

        // A processor already moved partition 0 of the open lake.
        const written = await catalog();
        const lake = await openLake(loadConfig({ ...env, LAKE_DIR: a, LAKE_URL: a, LAKE_CATALOG_URL: written }).lake, { threads: 1 });
        await ensureLakeTables(lake, [0]);
        await lake.conn.run('UPDATE lake.partition_offsets_p0 SET next_offset = 5');
        lake.close();
        const foreign = await run(a, written);
        expect([foreign.code, foreign.stderr]).toEqual([1, expect.stringContaining('is at offset 5, not written by a migration')]);

        // Migrated; then the old lake gets another flush (a processor still running), or another lake comes.
        const into = await catalog();
        expect((await run(a, into)).code).toBe(0);
        const b = await oldLake('refuse-b', 1);
        const other = await run(b, into);
        expect([other.code, other.stderr]).toEqual([1, expect.stringContaining(`holds a migration of another lake (${a})`)]);
        const writer = await LakeWriter.open(a);
        await writer.flush(0, [lakeEvent({ organization_id: orgs[0]!, kafka_offset: 1 })], 2);
        await writer.close();
        const moved = await run(a, into);
        expect([moved.code, moved.stderr]).toEqual([1, expect.stringContaining('a processor wrote the old lake meanwhile')]);
      },
      120_000,
    );

    interface Expected {
      org: string;
      date: string;
      status: string;
      events: number;
      cost: Big;
    }

    /** Per (organization, day, status) in that order: events and the sum of each event's hand-priced cost. */
    function expectedTotals(events: readonly UsageEvent[]): Expected[] {
      const by = new Map<string, Expected>();
      for (const e of events) {
        const t = { org: e.organization_id, date: e.timestamp.toISOString().slice(0, 10), status: status(e) };
        const key = `${t.org} ${t.date} ${t.status}`;
        const have = by.get(key) ?? { ...t, events: 0, cost: new Big(0) };
        by.set(key, { ...have, events: have.events + 1, cost: have.cost.plus(cost(e)) });
      }
      // Code-point order, as DuckDB's ORDER BY.
      const key = (t: Expected) => `${t.org} ${t.date} ${t.status}`;
      return [...by.values()].sort((a, b) => (key(a) < key(b) ? -1 : 1));
    }

    /** The open lake's events and its daily rollup, per (organization, day, status), equal `expected`. */
    async function expectLakeTotals(expected: readonly Expected[]): Promise<void> {
      for (const [source, count] of [
        ['events', 'count(*)'],
        ['daily_costs', 'sum(event_count)'],
      ] as const) {
        const got = await rows<{ org: string; date: string; status: string; events: string; cost: string }>(
          `SELECT organization_id AS org, CAST(event_date AS VARCHAR) AS date, status, CAST(${count} AS VARCHAR) AS events,
                CAST(sum(total_cost) AS VARCHAR) AS cost
         FROM lake.${source} WHERE organization_id IN (${ours()}) GROUP BY ALL ORDER BY 1, 2, 3`,
        );
        expect(
          got.map((g) => [g.org, g.date, g.status, Number(g.events)]),
          source,
        ).toEqual(expected.map((e) => [e.org, e.date, e.status, e.events]));
        for (const [i, e] of expected.entries())
          expect(new Big(got[i]!.cost).eq(e.cost), `${source} ${e.org} ${e.date} ${e.status}`).toBe(true);
      }
    }
  },
);
