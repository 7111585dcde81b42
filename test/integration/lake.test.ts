// The Parquet lake end to end with real DuckDB and real files: what LakeWriter writes is exactly
// what LakeReader serves, across crashes, duplicates, compaction and re-pricing. Expected numbers
// are computed from the input rows with big.js, never by the code under test.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { LakeReader } from '../../core/lake/lake-reader.js';
import { absolutePath, type LakeTable } from '../../core/lake/layout.js';

/** The tables every write has (dimension rollups only exist for organizations with dimensions: dimension-rollups.test.ts). */
const LAKE_TABLES: readonly LakeTable[] = ['events', 'daily_costs', 'session_spans'];
import { readManifest } from '../../core/lake/manifest.js';
import { stageEvents } from '../../processor/lake/event-staging.js';
import { copyPartitioned } from '../../processor/lake/lake-files.js';
import { LakeFencedError, LakeWriter } from '../../processor/lake/lake-writer.js';
import { ORG_A, ORG_B, lakeEvent, numberedEvent } from '../support/lake-event-builder.js';
import { projectRoot } from '../../core/paths.js';

let db: DuckDBInstance;
let conn: DuckDBConnection;
let lakeDir: string;
const writers: LakeWriter[] = [];

beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:', { threads: '2' });
  conn = await db.connect();
});
afterAll(() => {
  conn.closeSync();
  db.closeSync();
});
beforeEach(() => {
  lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lake-it-'));
});
afterEach(async () => {
  for (const w of writers.splice(0)) await w.close();
  fs.rmSync(lakeDir, { recursive: true, force: true });
});

async function openWriter(options: Parameters<typeof LakeWriter.open>[1] = {}): Promise<LakeWriter> {
  const w = await LakeWriter.open(lakeDir, options);
  writers.push(w);
  return w;
}

type Row = Record<string, string | number | boolean | null>;
async function query(sql: string): Promise<Row[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
}

async function relation(table: LakeTable, org: string): Promise<string> {
  const reader = await LakeReader.open(lakeDir, { refreshIntervalMs: 0 });
  return reader.relation(table, org);
}

function sumBy(rows: LakeEventRow[], key: (r: LakeEventRow) => string | null, value: (r: LakeEventRow) => string | null) {
  const out = new Map<string | null, Big>();
  for (const r of rows) {
    const v = value(r);
    if (v === null) continue;
    out.set(key(r), (out.get(key(r)) ?? new Big(0)).plus(v));
  }
  return out;
}

function expectMoney(actual: unknown, expected: Big | string) {
  expect(typeof actual).toBe('string');
  expect(new Big(actual as string).eq(expected), `${String(actual)} = ${expected.toString()}`).toBe(true);
}

/** A varied batch: two organizations, three days, end users incl. none, optional token classes. */
function variedRows(from: number, count: number): LakeEventRow[] {
  return Array.from({ length: count }, (_, i) => {
    const offset = from + i;
    const ts = new Date(Date.UTC(2025, 2, 10 + (offset % 3), 8, offset % 60, offset % 60, offset % 1000));
    const inputCost = new Big(offset).times('0.000000123457').plus('0.000000000001');
    const cacheCost = offset % 6 === 0 ? new Big('0.000000000333') : null; // only the first day of ORG_A
    return lakeEvent({
      kafka_offset: offset,
      organization_id: offset % 2 === 0 ? ORG_A : ORG_B,
      idempotency_key: `v-${offset}`,
      event_timestamp: ts,
      received_at: new Date(ts.getTime() + 250),
      user_id: offset % 7 === 0 ? null : `user-${offset % 3}`,
      input_tokens: 10 + offset,
      output_tokens: offset % 4,
      cache_creation_input_tokens: cacheCost ? 3 : null,
      input_cost: inputCost.toFixed(12),
      output_cost: '0.000000000002',
      cache_creation_cost: cacheCost?.toFixed(12) ?? null,
      total_cost: inputCost
        .plus('0.000000000002')
        .plus(cacheCost ?? 0)
        .toFixed(12),
      agent_id: offset % 3 === 0 ? 'planner' : null,
      session_id: offset % 4 < 2 ? `sess-${offset % 3}` : null,
      span_id: offset % 4 === 0 ? `span-${offset % 5}` : null,
      metadata: JSON.stringify({ team: `t${offset % 2}`, n: offset }),
    });
  });
}

describe('flush and read', () => {
  it('serves exactly the flushed rows, with exact decimal sums in events and rollups', async () => {
    const writer = await openWriter();
    expect(await writer.readManifest(0)).toMatchObject({ nextOffset: 0, files: [] });
    const rows = variedRows(0, 60);
    expect(await writer.flush(0, rows.slice(0, 25), 25)).toMatchObject({ written: 25, duplicates: 0, alreadyFlushed: 0 });
    expect(await writer.flush(0, rows.slice(25), 60)).toMatchObject({ written: 35, nextOffset: 60 });

    for (const org of [ORG_A, ORG_B]) {
      const mine = rows.filter((r) => r.organization_id === org);
      const events = await relation('events', org);
      const ids = (await query(`SELECT event_id FROM ${events} WHERE organization_id = '${org}'`)).map((r) => r.event_id);
      expect(ids.sort()).toEqual(mine.map((r) => r.event_id).sort());

      const expected = sumBy(
        mine,
        (r) => r.end_user_id,
        (r) => r.total_cost,
      );
      const fromEvents = await query(`SELECT end_user_id, sum(total_cost) AS total FROM ${events} GROUP BY end_user_id`);
      const daily = await relation('daily_costs', org);
      const fromRollup = await query(
        `SELECT end_user_id, sum(total_cost) AS total, sum(event_count) AS n FROM ${daily} GROUP BY end_user_id`,
      );
      expect(fromEvents).toHaveLength(expected.size);
      expect(fromRollup).toHaveLength(expected.size);
      for (const r of [...fromEvents, ...fromRollup]) expectMoney(r.total, expected.get(r.end_user_id as string | null)!);
      for (const r of fromRollup) {
        expect(Number(r.n)).toBe(mine.filter((e) => e.end_user_id === r.end_user_id).length);
      }
    }
  });

  it('describes each new file in the manifest by its group: rows, offsets, newest receipt, statuses', async () => {
    const writer = await openWriter();
    const at = (iso: string) => new Date(iso); // lakeEvent receives each event 1 s after its timestamp
    const o0 = lakeEvent({ kafka_offset: 0, event_timestamp: at('2025-03-10T10:00:00.000Z') });
    const o1 = lakeEvent({ kafka_offset: 1, organization_id: ORG_B, event_timestamp: at('2025-03-10T11:00:00.000Z') });
    await writer.flush(0, [o0, o1], 2);
    const before = new Set((await readManifest(lakeDir, 0)).files.map((f) => f.path));
    const batch = [
      o1, // below the manifest's next offset
      lakeEvent({ kafka_offset: 2, event_timestamp: at('2025-03-10T23:59:59.999Z'), status: 'pending_rate_card' }),
      { ...o0, kafka_offset: 3 }, // o0's event id again
      lakeEvent({ kafka_offset: 4, event_timestamp: at('2025-03-11T00:00:00.000Z'), status: 'failed', session_id: 's1' }),
      lakeEvent({ kafka_offset: 5, event_timestamp: at('2025-03-10T12:00:00.000Z') }),
    ];
    expect(await writer.flush(0, batch, 6)).toMatchObject({ written: 3, duplicates: 1, alreadyFlushed: 1, files: 5 });
    const added = (await readManifest(lakeDir, 0)).files.filter((f) => !before.has(f.path));
    const describe = (f: (typeof added)[number]) =>
      `${f.table} ${f.organization_id === ORG_A ? 'A' : 'B'} ${f.date}: ${f.rows} rows, offsets ${f.min_offset}-${f.max_offset}, received ${f.max_received_at}` +
      (f.status_counts ? `, ${f.status_counts.completed}/${f.status_counts.pending_rate_card}/${f.status_counts.failed}` : '');
    expect(added.map(describe).sort()).toEqual([
      // offsets 2 (pending) and 5 (completed) differ only in status: two daily_costs rows
      'daily_costs A 2025-03-10: 2 rows, offsets 2-5, received 2025-03-11T00:00:00.999Z',
      'daily_costs A 2025-03-11: 1 rows, offsets 4-4, received 2025-03-11T00:00:01.000Z',
      'events A 2025-03-10: 2 rows, offsets 2-5, received 2025-03-11T00:00:00.999Z, 1/1/0',
      'events A 2025-03-11: 1 rows, offsets 4-4, received 2025-03-11T00:00:01.000Z, 0/0/1',
      'session_spans A 2025-03-11: 1 rows, offsets 4-4, received 2025-03-11T00:00:01.000Z',
    ]);
    for (const f of added) expect(f.bytes).toBe(fs.statSync(absolutePath(lakeDir, f.path)).size);
  });

  it('keeps token sums NULL where no event reported the class, and sums them where some did', async () => {
    const writer = await openWriter();
    const rows = variedRows(0, 30);
    await writer.flush(0, rows, 30);
    const daily = await relation('daily_costs', ORG_A);
    const got = await query(
      `SELECT event_date::VARCHAR AS d, sum(cache_creation_input_tokens) AS cache, sum(reasoning_tokens) AS reasoning,
              sum(cache_creation_cost) AS cache_cost, sum(input_tokens) AS input
       FROM ${daily} WHERE organization_id = '${ORG_A}' GROUP BY 1 ORDER BY 1`,
    );
    const orgA = rows.filter((r) => r.organization_id === ORG_A);
    for (const g of got) {
      const day = orgA.filter((r) => r.event_timestamp.toISOString().startsWith(g.d as string));
      const cache = day.filter((r) => r.cache_creation_input_tokens !== null);
      expect(g.reasoning).toBeNull();
      expect(g.input).toBe(String(day.reduce((n, r) => n + r.input_tokens!, 0)));
      if (cache.length === 0) {
        expect(g.cache).toBeNull();
        expect(g.cache_cost).toBeNull();
      } else {
        expect(g.cache).toBe(String(cache.length * 3));
        expectMoney(g.cache_cost, new Big('0.000000000333').times(cache.length));
      }
    }
    expect(got.some((g) => g.cache === null)).toBe(true);
    expect(got.some((g) => g.cache !== null)).toBe(true);
  });

  it('round-trips every field of an event', async () => {
    const writer = await openWriter();
    const row = lakeEvent({
      kafka_offset: 0,
      event_timestamp: new Date('2025-03-10T23:59:59.999Z'),
      received_at: new Date('2025-03-11T00:00:00.123Z'),
      subscription_id: 'sub_1',
      metric: 'image_generation',
      unit: 'image',
      quantity: 2.5,
      reasoning_tokens: 9_007_199_254_740_991,
      unit_cost: '123456789012345678901234.123456789012',
      total_cost: '123456789012345678901234.123456789012',
      cost_override: '0.000000000001',
      status: 'failed',
      session_id: 's',
      span_id: 'p',
      parent_span_id: 'root',
      span_name: 'plan',
      span_kind: 'agent',
      started_at: new Date('2025-03-10T23:59:58.001Z'),
      timestamp_provided: false,
      feature: 'chat',
      workflow_id: 'wf',
      metadata: '{"a":"ü","b":[1,2]}',
      flag_reason: "it's flagged",
    });
    await writer.flush(0, [row], 1);
    const [got] = await query(
      `SELECT *, epoch_ms(event_timestamp) AS ts_ms, epoch_ms(started_at) AS st_ms FROM ${await relation('events', ORG_A)}`,
    );
    expect(got).toMatchObject({
      event_id: row.event_id,
      event_date: '2025-03-10',
      subscription_id: 'sub_1',
      quantity: 2.5,
      reasoning_tokens: '9007199254740991',
      unit_cost: '123456789012345678901234.123456789012',
      cost_override: '0.000000000001',
      status: 'failed',
      timestamp_provided: false,
      metadata: '{"a":"ü","b":[1,2]}',
      flag_reason: "it's flagged",
      kafka_partition: 0,
      kafka_offset: '0',
      ts_ms: String(row.event_timestamp.getTime()),
      st_ms: String(row.started_at!.getTime()),
    });
  });

  it('never mixes two organizations or two dates in one file', async () => {
    const writer = await openWriter();
    await writer.flush(0, variedRows(0, 40), 40);
    const manifest = await readManifest(lakeDir, 0);
    expect(new Set(manifest.files.map((f) => f.table))).toEqual(new Set(LAKE_TABLES));
    for (const f of manifest.files) {
      const [got] = await query(
        `SELECT list(DISTINCT organization_id) AS orgs, list(DISTINCT event_date::VARCHAR) AS dates, count(*) AS n
         FROM read_parquet('${absolutePath(lakeDir, f.path)}', hive_partitioning = false)`,
      );
      expect(got!.orgs).toEqual([f.organization_id]);
      expect(got!.dates).toEqual([f.date]);
      expect(Number(got!.n)).toBe(f.rows);
      expect(f.path).toBe(`${f.table}/org=${f.organization_id}/date=${f.date}/${path.basename(f.path)}`);
    }
  });

  it('gives a reader that is already open the new files of the next flush', async () => {
    const writer = await openWriter();
    const reader = await LakeReader.open(lakeDir, { refreshIntervalMs: 0 });
    const count = async () => (await query(`SELECT count(*) AS n FROM ${await reader.relation('events', ORG_A)}`))[0]!.n;
    expect(await count()).toBe('0');
    await writer.flush(0, variedRows(0, 10), 10);
    expect(await count()).toBe('5');
  });

  it('records the session rollup: own cost, counts and timing per span, untraced under a null span', async () => {
    const writer = await openWriter();
    const t = (s: number) => new Date(Date.UTC(2025, 2, 10, 9, 0, s));
    const rows = [
      lakeEvent({
        kafka_offset: 0,
        session_id: 'S',
        span_id: 'root',
        span_kind: 'agent',
        started_at: t(0),
        event_timestamp: t(5),
        total_cost: '0.1',
      }),
      lakeEvent({
        kafka_offset: 1,
        session_id: 'S',
        span_id: 'tool',
        parent_span_id: 'root',
        started_at: t(1),
        event_timestamp: t(2),
        total_cost: '0.02',
      }),
      lakeEvent({ kafka_offset: 2, session_id: 'S', span_id: 'root', event_timestamp: t(9), total_cost: '0.3' }),
      lakeEvent({ kafka_offset: 3, session_id: 'S', span_id: null, event_timestamp: t(3), total_cost: '0.004' }),
      lakeEvent({ kafka_offset: 4, session_id: null, span_id: 'x', event_timestamp: t(3), total_cost: '5' }),
    ];
    await writer.flush(0, rows.slice(0, 2), 2);
    await writer.flush(0, rows.slice(2), 5);
    const spans = await query(
      `SELECT span_id, min(parent_span_id) AS parent, min(span_kind) AS kind, sum(own_cost) AS cost, sum(event_count) AS n,
              strftime(min(started_at), '%S') AS started, strftime(max(ended_at), '%S') AS ended, strftime(min(first_event_at), '%S') AS first
       FROM ${await relation('session_spans', ORG_A)} WHERE session_id = 'S' GROUP BY span_id ORDER BY span_id NULLS FIRST`,
    );
    expect(spans).toEqual([
      { span_id: null, parent: null, kind: null, cost: '0.004000000000', n: '1', started: null, ended: null, first: '03' },
      { span_id: 'root', parent: null, kind: 'agent', cost: '0.400000000000', n: '2', started: '00', ended: '05', first: '05' },
      { span_id: 'tool', parent: 'root', kind: null, cost: '0.020000000000', n: '1', started: '01', ended: '02', first: '02' },
    ]);
  });
});

describe('exactly once', () => {
  it('ignores files a crashed flush wrote but never named, and resumes from the manifest offset', async () => {
    const writer = await openWriter();
    const all = Array.from({ length: 300 }, (_, i) => numberedEvent(i));
    await writer.flush(0, all.slice(0, 100), 100);

    // The crash: batch 100..199 reaches Parquet files, the manifest is never replaced.
    const crashConn = await db.connect();
    await stageEvents(crashConn, 'crashed', all.slice(100, 200));
    const orphans = await copyPartitioned(crashConn, lakeDir, 'events', 0, 'flush', 'SELECT * FROM crashed');
    crashConn.closeSync();
    expect(orphans.length).toBeGreaterThan(0);

    const total = async () => {
      const [a, b] = await Promise.all([relation('events', ORG_A), relation('events', ORG_B)]);
      return (
        await query(
          `SELECT count(*) AS n, count(DISTINCT event_id) AS ids, count(DISTINCT kafka_offset) AS offsets, max(kafka_offset) AS last FROM (SELECT * FROM ${a} UNION ALL SELECT * FROM ${b})`,
        )
      )[0];
    };
    expect(await total()).toEqual({ n: '100', ids: '100', offsets: '100', last: '99' });

    // The restarted processor: new writer, window rebuilt from files, resume at next_offset.
    await writer.close();
    writers.splice(writers.indexOf(writer), 1);
    let now = new Date();
    const restarted = await openWriter({ clock: () => now });
    const { nextOffset } = await restarted.readManifest(0);
    expect(nextOffset).toBe(100);
    expect(await restarted.flush(0, all.slice(nextOffset, 300), 300)).toMatchObject({ written: 200, duplicates: 0 });
    expect(await total()).toEqual({ n: '300', ids: '300', offsets: '300', last: '299' });

    // Orphans stay until they are older than the stray age, then only they go.
    const onDisk = (f: { path: string }) => fs.existsSync(absolutePath(lakeDir, f.path));
    expect(await restarted.collectGarbage(0, { strays: true, strayAgeMs: 3600_000 })).toEqual({ deleted: 0, strays: 0 });
    expect(orphans.every(onDisk)).toBe(true);
    now = new Date(Date.now() + 2 * 3600_000);
    expect(await restarted.collectGarbage(0, { strays: true, strayAgeMs: 3600_000 })).toEqual({ deleted: 0, strays: orphans.length });
    expect(orphans.some(onDisk)).toBe(false);
    expect((await readManifest(lakeDir, 0)).files.every(onDisk)).toBe(true);
  });

  it('counts every offset exactly once after processes are killed mid-flush', async () => {
    const child = path.join(projectRoot, 'test/support/lake-flush-child.ts');
    const killedAt: number[] = [];
    for (let round = 0; round < 3; round++) {
      const proc = spawn(process.execPath, ['--import', 'tsx', child, lakeDir, '300'], {
        cwd: projectRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let flushed = 0;
      let stderr = '';
      proc.stderr.on('data', (d) => (stderr += String(d)));
      await new Promise<void>((resolve, reject) => {
        proc.stdout.on('data', (d: Buffer) => {
          flushed += (String(d).match(/flushed/g) ?? []).length;
          // Let a couple of flushes land, then kill at an arbitrary point of the next one.
          if (flushed >= 2 + round) setTimeout(() => proc.kill('SIGKILL'), (round * 37) % 90);
        });
        proc.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`))));
      });
      killedAt.push((await readManifest(lakeDir, 0)).next_offset);
    }
    const writer = await openWriter();
    const { nextOffset } = await writer.readManifest(0);
    expect(nextOffset).toBe(killedAt[2]);
    expect(nextOffset % 300).toBe(0);
    const target = nextOffset + 600;
    await writer.flush(
      0,
      Array.from({ length: 600 }, (_, i) => numberedEvent(nextOffset + i)),
      target,
    );

    const events = (await Promise.all([relation('events', ORG_A), relation('events', ORG_B)]))
      .map((r) => `SELECT * FROM ${r}`)
      .join(' UNION ALL ');
    const [got] = await query(
      `SELECT count(*) AS n, count(DISTINCT kafka_offset) AS offsets, min(kafka_offset) AS first, max(kafka_offset) AS last, sum(total_cost) AS total FROM (${events})`,
    );
    const expected = Array.from({ length: target }, (_, i) => numberedEvent(i)).reduce((s, r) => s.plus(r.total_cost), new Big(0));
    expect(got).toMatchObject({ n: String(target), offsets: String(target), first: '0', last: String(target - 1) });
    expectMoney(got!.total, expected);
  });
});

describe('duplicates', () => {
  // The rows span three days; a 7-day window keeps them all (the default 24 h would let the
  // first day's ids go once the third day's arrive).
  const week = { dedup: { retentionMs: 7 * 86_400_000 } };

  it('drops an event id already written, in the same batch, in a later batch and after a restart', async () => {
    const writer = await openWriter(week);
    const first = variedRows(0, 10);
    const again = (r: LakeEventRow, offset: number): LakeEventRow => ({ ...r, kafka_offset: offset });
    expect(await writer.flush(0, [...first, again(first[3]!, 10)], 11)).toMatchObject({ written: 10, duplicates: 1 });
    expect(await writer.flush(0, [again(first[0]!, 11), ...variedRows(12, 3), again(first[9]!, 15)], 16)).toMatchObject({
      written: 3,
      duplicates: 2,
    });

    await writer.close();
    writers.splice(writers.indexOf(writer), 1);
    const restarted = await openWriter(week);
    expect((await restarted.readManifest(0)).nextOffset).toBe(16);
    expect(await restarted.flush(0, [again(first[5]!, 16), again(variedRows(13, 1)[0]!, 17)], 18)).toMatchObject({
      written: 0,
      duplicates: 2,
      nextOffset: 18,
    });
    expect((await readManifest(lakeDir, 0)).next_offset).toBe(18);

    const [a, b] = await Promise.all([relation('events', ORG_A), relation('events', ORG_B)]);
    const [got] = await query(
      `SELECT count(*) AS n, count(DISTINCT event_id) AS ids FROM (SELECT * FROM ${a} UNION ALL SELECT * FROM ${b})`,
    );
    expect(got).toEqual({ n: '13', ids: '13' });
  });

  it('drops exactly the duplicate rows of a batch that spans several DuckDB chunks (2,048 rows each)', async () => {
    const writer = await openWriter(week);
    const first = variedRows(0, 3);
    await writer.flush(0, first, 3);
    // 5,000 rows at offsets 3..5002; those at batch positions 0, 2047, 2048 and 4999 repeat an id.
    const rows = variedRows(3, 5000);
    const repeats = new Map([
      [0, first[0]!],
      [2047, first[1]!],
      [2048, rows[5]!],
      [4999, first[2]!],
    ]);
    const batch = rows.map((r, i) => (repeats.has(i) ? { ...repeats.get(i)!, kafka_offset: r.kafka_offset } : r));
    expect(await writer.flush(0, batch, 5003)).toMatchObject({ written: 4996, duplicates: 4 });
    const [a, b] = await Promise.all([relation('events', ORG_A), relation('events', ORG_B)]);
    const [got] = await query(
      `SELECT count(*) AS n, count(DISTINCT event_id) AS ids, sum(kafka_offset) AS offsets FROM (SELECT * FROM ${a} UNION ALL SELECT * FROM ${b})`,
    );
    // Offsets 0..5002 less those of the four repeats (3, 2050, 2051, 5002).
    const expectedOffsets = (5002 * 5003) / 2 - (3 + 2050 + 2051 + 5002);
    expect(got).toEqual({ n: '4999', ids: '4999', offsets: String(expectedOffsets) });
  });

  it('forgets the ids of a flush that failed, so the same rows can be flushed again', async () => {
    const writer = await openWriter(week);
    const rows = variedRows(0, 10);
    // A write that cannot create the events directory fails after the ids were checked.
    fs.writeFileSync(path.join(lakeDir, 'events'), 'not a directory');
    await expect(writer.flush(0, rows, 10)).rejects.toThrow();
    fs.rmSync(path.join(lakeDir, 'events'));
    // A batch refused part-way (a row from another partition) must not keep the ids before it.
    await expect(writer.flush(0, [...rows.slice(0, 4), { ...rows[4]!, kafka_partition: 1 }], 10)).rejects.toThrow(RangeError);
    expect(await writer.flush(0, rows, 10)).toMatchObject({ written: 10, duplicates: 0 });
    expect(await writer.flush(0, [{ ...rows[2]!, kafka_offset: 10 }], 11)).toMatchObject({ written: 0, duplicates: 1 });
  });

  it('skips rows below the manifest offset (a redelivered batch)', async () => {
    const writer = await openWriter();
    const rows = variedRows(0, 10);
    await writer.flush(0, rows, 10);
    expect(await writer.flush(0, rows, 10)).toMatchObject({ written: 0, alreadyFlushed: 10, files: 0 });
    await expect(writer.flush(0, rows, 5)).rejects.toThrow(/next offset 5 is behind the lake's 10/);
  });
});

describe('compaction', () => {
  it('merges many small files into one per group with the same rows and sums, deleting old files after the grace period', async () => {
    let now = new Date('2025-03-12T00:00:00Z');
    const writer = await openWriter({ clock: () => now, dedup: { retentionMs: 7 * 86_400_000 } });
    const rows: LakeEventRow[] = [];
    for (let b = 0; b < 6; b++) {
      const batch = variedRows(b * 12, 12).map((r) => ({
        ...r,
        organization_id: ORG_A,
        end_user_id: r.end_user_id,
        session_id: 's1',
        span_id: `sp${r.kafka_offset % 4}`,
      }));
      rows.push(...batch);
      await writer.flush(0, batch, (b + 1) * 12);
    }
    const before = await readManifest(lakeDir, 0);
    const filesOf = (m: typeof before, table: LakeTable) => m.files.filter((f) => f.table === table);
    expect(filesOf(before, 'events')).toHaveLength(18); // 6 flushes x 3 dates

    const snapshot = async () => ({
      events: await query(`SELECT event_id, total_cost, status FROM ${await relation('events', ORG_A)} ORDER BY event_id`),
      daily: await query(
        `SELECT event_date::VARCHAR AS d, end_user_id, sum(total_cost) AS c, sum(event_count) AS n, sum(cache_creation_input_tokens) AS cache FROM ${await relation('daily_costs', ORG_A)} GROUP BY ALL ORDER BY ALL`,
      ),
      spans: await query(
        `SELECT span_id, sum(own_cost) AS c, sum(event_count) AS n FROM ${await relation('session_spans', ORG_A)} GROUP BY ALL ORDER BY ALL`,
      ),
    });
    const expectedBefore = await snapshot();
    expect(expectedBefore.events).toHaveLength(72);
    const total = rows.reduce((s, r) => s.plus(r.total_cost), new Big(0));
    expectMoney(String(expectedBefore.daily.reduce((s, r) => s.plus(r.c as string), new Big(0)).toFixed(12)), total);

    const result = await writer.compactPartition(0, { minFiles: 4, graceMs: 60_000 });
    expect(result).toMatchObject({ groups: 9, filesMerged: 54, filesWritten: 9, deleted: 0 });
    const after = await readManifest(lakeDir, 0);
    for (const table of LAKE_TABLES) expect(filesOf(after, table)).toHaveLength(3);
    expect(after.garbage).toHaveLength(54);
    expect(filesOf(after, 'events').reduce((n, f) => n + f.rows, 0)).toBe(72);
    expect(await snapshot()).toEqual(expectedBefore);

    // Replaced files survive the grace period, then go; live files stay.
    const old = before.files.map((f) => absolutePath(lakeDir, f.path));
    expect(old.every((p) => fs.existsSync(p))).toBe(true);
    now = new Date(now.getTime() + 59_000);
    expect(await writer.collectGarbage(0)).toEqual({ deleted: 0, strays: 0 });
    expect(old.every((p) => fs.existsSync(p))).toBe(true);
    now = new Date(now.getTime() + 2_000);
    expect(await writer.collectGarbage(0)).toEqual({ deleted: 54, strays: 0 });
    expect(old.some((p) => fs.existsSync(p))).toBe(false);
    expect((await readManifest(lakeDir, 0)).garbage).toEqual([]);
    expect(await snapshot()).toEqual(expectedBefore);

    // A flush after compaction adds to the compacted state; the rebuilt window still knows the ids.
    expect(await writer.flush(0, [{ ...rows[0]!, kafka_offset: 72 }], 73)).toMatchObject({ duplicates: 1, written: 0 });
  });
});

describe('re-pricing', () => {
  it('rewrites pending rows with new costs and keeps events and rollups consistent', async () => {
    const writer = await openWriter();
    const day = (d: number, o: number) => new Date(Date.UTC(2025, 2, d, 10, 0, o));
    const pending = (o: number, d: number, user: string) =>
      lakeEvent({
        kafka_offset: o,
        event_timestamp: day(d, o),
        user_id: user,
        model: 'new-model',
        status: 'pending_rate_card',
        input_cost: null,
        output_cost: null,
        total_cost: '0',
        rate_card_slug: null,
        input_tokens: 1000 + o,
        output_tokens: 10,
      });
    const done = (o: number, d: number, user: string) =>
      lakeEvent({ kafka_offset: o, event_timestamp: day(d, o), user_id: user, total_cost: '0.5' });
    const rows = [
      pending(0, 10, 'u1'),
      done(1, 10, 'u1'),
      pending(2, 10, 'u2'),
      done(3, 11, 'u1'),
      pending(4, 12, 'u2'),
      lakeEvent({ kafka_offset: 5, organization_id: ORG_B, status: 'pending_rate_card', total_cost: '0' }),
    ];
    await writer.flush(0, rows.slice(0, 3), 3);
    await writer.flush(0, rows.slice(3), 6);
    const untouched = (await readManifest(lakeDir, 0)).files.filter((f) => f.date === '2025-03-11' || f.organization_id === ORG_B);

    // The card: $1 per million input tokens, $2 per million output tokens.
    const price = (r: LakeEventRow): LakeEventRow => {
      const input = new Big(r.input_tokens!).times(1).div(1e6);
      const output = new Big(r.output_tokens!).times(2).div(1e6);
      return {
        ...r,
        status: 'completed',
        rate_card_slug: 'new-model',
        input_cost: input.toFixed(12),
        output_cost: output.toFixed(12),
        total_cost: input.plus(output).toFixed(12),
        priced_at: new Date('2025-03-13T00:00:00Z'),
      };
    };
    const seen: number[] = [];
    const result = await writer.rewriteRows(0, { organizationId: ORG_A, statuses: ['pending_rate_card'] }, (r) => {
      seen.push(r.kafka_offset);
      return r.model === 'new-model' ? price(r) : null;
    });
    expect(seen.sort()).toEqual([0, 2, 4]);
    expect(result).toMatchObject({ groups: 2, rowsExamined: 3, rowsChanged: 3, filesReplaced: 4 }); // events + daily_costs of two days (no sessions)

    const manifest = await readManifest(lakeDir, 0);
    for (const f of untouched) expect(manifest.files).toContainEqual(f); // groups without pending rows are not rewritten
    expect(manifest.files.filter((f) => f.table === 'events' && f.organization_id === ORG_A).map((f) => f.status_counts)).toEqual(
      expect.arrayContaining([
        { completed: 3, pending_rate_card: 0, failed: 0 },
        { completed: 1, pending_rate_card: 0, failed: 0 },
      ]),
    );

    const expected = rows.filter((r) => r.organization_id === ORG_A).map((r) => (r.status === 'pending_rate_card' ? price(r) : r));
    const events = await query(
      `SELECT kafka_offset, status, total_cost, input_cost, rate_card_slug FROM ${await relation('events', ORG_A)} ORDER BY kafka_offset`,
    );
    expect(events).toHaveLength(5);
    for (const [i, e] of events.entries()) {
      expect(e.status).toBe('completed');
      expectMoney(e.total_cost, expected[i]!.total_cost);
    }
    expect(events[0]).toMatchObject({ input_cost: '0.001000000000', rate_card_slug: 'new-model' });

    const daily = await query(
      `SELECT end_user_id, status, sum(total_cost) AS c, sum(event_count) AS n FROM ${await relation('daily_costs', ORG_A)} GROUP BY ALL`,
    );
    const byUser = sumBy(
      expected,
      (r) => r.end_user_id,
      (r) => r.total_cost,
    );
    expect(daily.map((d) => d.status)).toEqual(['completed', 'completed']);
    for (const d of daily) expectMoney(d.c, byUser.get(d.end_user_id as string)!);
    expect(daily.reduce((n, d) => n + Number(d.n), 0)).toBe(5);

    // The other organization's pending event was not touched; a second run finds nothing to do.
    expect((await query(`SELECT status FROM ${await relation('events', ORG_B)}`))[0]!.status).toBe('pending_rate_card');
    expect(await writer.rewriteRows(0, { organizationId: ORG_A, statuses: ['pending_rate_card'] }, price)).toMatchObject({
      groups: 0,
      rowsExamined: 0,
    });
  });

  it('refuses a transform that changes an event identity', async () => {
    const writer = await openWriter();
    await writer.flush(0, [lakeEvent({ kafka_offset: 0 })], 1);
    await expect(writer.rewriteRows(0, { organizationId: ORG_A }, (r) => ({ ...r, event_timestamp: new Date(0) }))).rejects.toThrow(
      /identity/,
    );
    expect((await readManifest(lakeDir, 0)).version).toBe(1);
  });
});

describe('ownership', () => {
  it('fences a writer whose partition manifest was replaced by another writer', async () => {
    const first = await openWriter();
    await first.flush(0, variedRows(0, 5), 5);
    const second = await openWriter();
    expect((await second.readManifest(0)).nextOffset).toBe(5);
    await second.flush(0, variedRows(5, 5), 10);
    await expect(first.flush(0, variedRows(5, 5), 10)).rejects.toThrow(LakeFencedError);
    await expect(first.flush(0, variedRows(10, 5), 15)).rejects.toThrow(LakeFencedError);
    expect((await readManifest(lakeDir, 0)).next_offset).toBe(10);
  });
});
