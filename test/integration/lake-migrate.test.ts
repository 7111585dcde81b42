// `npm run cli -- lake migrate` (processor/lake/lake-migration.ts): a copy of the manifest lake of
// test/fixtures/legacy-lake (written by the files processor before that format was removed: three
// organizations over three days, one of them re-priced, so its manifest lists rewritten files and
// keeps the replaced ones as garbage) moves into a DuckLake (data in the same folder, or on an S3
// server: S3Proxy on loopback; catalog in PostgreSQL). The first run is SIGKILLed after its first
// commit, the second resumes and removes the old files. Then: every event once, the totals per
// organization, day and status equal the fixture's README (worked out by hand), the daily rollup
// equal too, each partition's offset where the old processor stopped, and a DuckLake processor
// started afterwards takes only the records produced after the old lake's offsets.
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
import type { ProcessorLake } from '../../processor/lake/lake-writer.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { type FreshControlDb, openFreshControlDb, testPostgresUrl } from '../support/control-db.js';
import {
  createInputOutputCard,
  createPrivateTopic,
  inputOutputCost,
  UsageEventProducer,
  usageEvent,
  waitUntil,
} from '../support/processor-fixtures.js';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.js';

const provisioned = await ensureDuckDBExtensions().catch((e: Error) => {
  console.warn(`[lake-migrate] SKIPPED: the lake's DuckDB extensions cannot be provisioned: ${e.message}`);
  return null;
});

const brokers = inject('kafkaBrokers');
const registryUrl = inject('schemaRegistryUrl');

const FIXTURE = fromRoot('test', 'fixtures', 'legacy-lake', 'lake');
const PARTITIONS = 4;
/** The fixture's organizations (partitions 0, 1, 2), its days, and each partition's next offset (README.md). */
const ORGS = [
  '3f1c8a52-0d6e-4b7a-9c21-5e8f7a6b4d01',
  '8a2d4e61-7b3c-4f9a-a1d5-2c6e9b8f7a02',
  'c5e7f293-4a1b-4d8c-b6e2-9f3a1d5c8b03',
] as const;
const DAYS = ['2026-11-10', '2026-11-11', '2026-11-12'] as const;
const OLD_NEXT_OFFSET = 12;
const KNOWN = { input: '2.5', output: '10' };

interface Expected {
  org: string;
  date: string;
  status: string;
  events: number;
  cost: Big;
}

/** The fixture's totals per (organization, day, status), from its README, in code-point order as DuckDB sorts. */
const FIXTURE_TOTALS: Expected[] = (
  [
    [0, 0, 'completed', 4, '0.5303'],
    [0, 1, 'completed', 4, '0.5433'],
    [0, 2, 'completed', 4, '0.5563'],
    [1, 0, 'completed', 3, '0.0603'],
    [1, 0, 'pending_rate_card', 1, '0'],
    [1, 1, 'completed', 3, '0.0633'],
    [1, 1, 'pending_rate_card', 1, '0'],
    [1, 2, 'completed', 3, '0.0663'],
    [1, 2, 'pending_rate_card', 1, '0'],
    [2, 0, 'completed', 3, '0.0903'],
    [2, 0, 'pending_rate_card', 1, '0'],
    [2, 1, 'completed', 3, '0.0933'],
    [2, 1, 'pending_rate_card', 1, '0'],
    [2, 2, 'completed', 3, '0.0963'],
    [2, 2, 'pending_rate_card', 1, '0'],
  ] as const
).map(([o, d, status, events, cost]) => ({ org: ORGS[o], date: DAYS[d], status, events, cost: new Big(cost) }));

/** A copy of the fixture lake at `dir` (the migration removes what it moved). */
function copyFixture(dir: string): string {
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe.skipIf(!provisioned || !testPostgresUrl()).each(['local', 's3'] as const)('lake migrate (%s)', (store) => {
  let tmp: string;
  let lakeDir: string;
  let control: FreshControlDb;
  let producer: UsageEventProducer;
  let kafka: ReturnType<typeof createKafka>;
  let topic: string;
  let env: Record<string, string>;
  let target: OpenLake | null = null;
  let s3: TestS3Server | null = null;
  /** An organization of this run: the records produced after the migration are its. */
  let newOrg: string;
  const stops: (() => Promise<void>)[] = [];

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
  const ours = () => [...ORGS, newOrg].map((o) => `'${o}'`).join(', ');

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-lake-migrate-'));
    lakeDir = copyFixture(path.join(tmp, 'lake'));
    control = await openFreshControlDb('postgres');
    newOrg = (await createOrganization(control.db, { name: 'lake-migrate-new' })).id;
    await createInputOutputCard(control.db, newOrg, 'mg-known', KNOWN);
    kafka = createKafka(brokers.split(','), 'lake-migrate-producer', { logLevel: 'error' });
    await ensureTopics(kafka, { partitions: PARTITIONS }); // the dead-letter topic
    topic = await createPrivateTopic(kafka, PARTITIONS);
    producer = await UsageEventProducer.open(kafka, registryUrl, topic);
    // Local: LAKE_URL unset, the open lake's data goes in the same folder as the old lake's, as by default.
    env = {
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

  it('moves a re-priced manifest lake after a SIGKILL, with the hand-worked totals, then a DuckLake processor resumes where the old one stopped', async () => {
    // 1. The old lake: three partitions at offset 12, the first with the re-pricing's garbage.
    const manifests = (await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => readManifest(lakeDir, p)))).filter(
      (m) => m.version > 0,
    );
    expect(manifests.map((m) => [m.partition, m.next_offset, m.garbage.length > 0])).toEqual([
      [0, OLD_NEXT_OFFSET, true],
      [1, OLD_NEXT_OFFSET, false],
      [2, OLD_NEXT_OFFSET, false],
    ]);

    // 2. The migration, killed after its first commit (the bar prints a line per unit off a terminal).
    const first = migrate();
    await waitUntil('a unit committed', async () => /\(p\d+\//.test(first.stderr()), 60_000, 5).catch((e) => {
      throw new Error(`${(e as Error).message}\n${first.stderr()}`);
    });
    first.child.kill('SIGKILL');
    await first.exited;
    target = await openLake(loadConfig({ ...env }).lake, { threads: 1 });
    const [{ n: unitsAfterKill }] = await rows<{ n: string }>('SELECT CAST(count(*) AS VARCHAR) AS n FROM lake.lake_migration_units');
    // 3 partitions × 3 days + one offset unit per manifest.
    const unitsTotal = ORGS.length * DAYS.length + manifests.length;
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
    expect(report.events).toBe(36);
    expect(report.removed.directories).toEqual(expect.arrayContaining(['events', 'daily_costs', '_manifests.migrated']));
    expect(fs.existsSync(path.join(lakeDir, '_manifests'))).toBe(false);
    expect(fs.existsSync(path.join(lakeDir, 'events'))).toBe(false);

    // 4. Totals per (organization, day, status), as the fixture's README works them out.
    expect(report.verified.map((t) => [t.organization_id, t.date, t.status, t.events])).toEqual(
      FIXTURE_TOTALS.map((t) => [t.org, t.date, t.status, t.events]),
    );
    await expectLakeTotals(FIXTURE_TOTALS);
    for (const m of manifests) {
      const [{ next_offset }] = await rows<{ next_offset: string }>(`SELECT next_offset FROM lake.partition_offsets_p${m.partition}`);
      expect(Number(next_offset), `partition ${m.partition}`).toBe(OLD_NEXT_OFFSET);
    }

    // 5. The topic as the old processor left it: 12 records in each of the fixture's partitions
    // (events of this run's organization: read again, they would be counted). A DuckLake processor
    // then takes only what comes after, in every partition.
    const event = (n: number, partition: number) => ({
      partition,
      event: usageEvent(newOrg, `mg-new-${n}`, { model: 'mg-known', input_tokens: 100 + n, output_tokens: 10 + n }),
    });
    const before = ORGS.flatMap((_, p) => Array.from({ length: OLD_NEXT_OFFSET }, (_, i) => event(1_000 + p * 100 + i, p)));
    await producer.sendToPartitions(before);
    await startProcessor(await DuckLakeWriter.open(loadConfig({ ...env }).lake));
    const later = Array.from({ length: 4 * PARTITIONS }, (_, i) => event(i, i % PARTITIONS));
    await producer.sendToPartitions(later);
    const total = 36 + later.length;
    await waitUntil(
      'the new events in the open lake',
      async () => {
        const [{ n }] = await rows<{ n: string }>(
          `SELECT CAST(count(*) AS VARCHAR) AS n FROM lake.events WHERE organization_id IN (${ours()})`,
        );
        return Number(n) >= total;
      },
      90_000,
    );
    await stopProcessor();
    const [{ n, ids }] = await rows<{ n: string; ids: string }>(
      `SELECT CAST(count(*) AS VARCHAR) AS n, CAST(count(DISTINCT event_id) AS VARCHAR) AS ids FROM lake.events WHERE organization_id IN (${ours()})`,
    );
    expect([Number(n), Number(ids)]).toEqual([total, total]);
    // Each partition's first record read is the old lake's end (12), or 0 where it had none.
    const firstNew = await rows<{ p: number; first: string }>(
      `SELECT kafka_partition AS p, CAST(min(kafka_offset) AS VARCHAR) AS first FROM lake.events
       WHERE organization_id = '${newOrg}' GROUP BY 1 ORDER BY 1`,
    );
    expect(firstNew.map((f) => [f.p, Number(f.first)])).toEqual([
      [0, OLD_NEXT_OFFSET],
      [1, OLD_NEXT_OFFSET],
      [2, OLD_NEXT_OFFSET],
      [3, 0],
    ]);
    const newCost = later.reduce((sum, { event: e }) => sum.plus(inputOutputCost(e, KNOWN)), new Big(0));
    const newDay = later[0]!.event.timestamp.toISOString().slice(0, 10);
    await expectLakeTotals(
      [...FIXTURE_TOTALS, { org: newOrg, date: newDay, status: 'completed', events: later.length, cost: newCost }].sort((a, b) =>
        `${a.org} ${a.date} ${a.status}` < `${b.org} ${b.date} ${b.status}` ? -1 : 1,
      ),
    );
  }, 300_000);

  it.runIf(store === 'local')(
    'refuses while a processor is in its consumer group, an open lake with offsets or another lake no migration of this one wrote, and an old lake written since it began',
    async () => {
      const catalog = async () => {
        const fresh = await openFreshControlDb('postgres', { migrate: false });
        stops.push(() => fresh.dispose());
        return fresh.url!;
      };
      const a = copyFixture(path.join(tmp, 'refuse-a'));

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

      // Migrated; then another lake comes, or the old lake's manifest moves (a processor still running swapped it).
      const into = await catalog();
      expect((await run(a, into)).code).toBe(0);
      const b = copyFixture(path.join(tmp, 'refuse-b'));
      const other = await run(b, into);
      expect([other.code, other.stderr]).toEqual([1, expect.stringContaining(`holds a migration of another lake (${a})`)]);
      const manifestFile = path.join(a, '_manifests', 'partition-0.json');
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { version: number };
      fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, version: manifest.version + 1 }));
      const moved = await run(a, into);
      expect([moved.code, moved.stderr]).toEqual([1, expect.stringContaining('a processor wrote the old lake meanwhile')]);
    },
    120_000,
  );

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
});
