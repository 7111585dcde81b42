// What re-pricing's "which organizations have pending rows" costs on DuckLake (docs/decisions/0157):
// a partition of N events (default 200,000) over 90 days, 20 organizations of which 4 keep some
// pending_rate_card events, written by the processor's DuckLake writer (flushes of 10,000) on local
// disk with a PostgreSQL catalog (a throwaway cluster). Times, median of 15 on fresh transactions:
// the old answer (DISTINCT over the partition's events), the new one (DISTINCT over daily_costs),
// and readManifest as the processor calls it; checks both answers are equal. Then how long a flush
// waits when it arrives during readManifest (0 now: readManifest is out of the partition's queue).
// Run: npx tsx bench/lake/pending-organizations.ts [events]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config.js';
import { EventBatch } from '../../processor/lake/event-batch.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { startLocalPostgres } from '../../scripts/postgres/local-cluster.js';
import { lakeEvent } from '../../test/support/lake-event-builder.js';

const EVENTS = Number(process.argv[2] ?? 200_000);
const FLUSH = 10_000;
const DAY0 = Date.UTC(2026, 7, 1);
const org = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const row = (offset: number) => {
  const ts = new Date(DAY0 + (offset % 90) * 86_400_000 + (offset % 86_400) * 1000);
  const o = offset % 20;
  // Organizations 0–3: one event in 50 waits for a card.
  const pending = o < 4 && offset % 50 < 20;
  return lakeEvent({
    kafka_partition: 0,
    kafka_offset: offset,
    organization_id: org(o),
    idempotency_key: `p-${offset}`,
    event_timestamp: ts,
    received_at: ts,
    user_id: `u-${offset % 200}`,
    model: pending ? 'late-model' : 'gpt-4o',
    status: pending ? 'pending_rate_card' : 'completed',
    total_cost: pending ? '0' : '0.0012',
  });
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed<T>(runs: number, work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const times: number[] = [];
  let result!: T;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    result = await work();
    times.push(performance.now() - t);
  }
  return { ms: median(times), result };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-pending-bench-'));
const pg = await startLocalPostgres({ dir: `${tmp}/pg`, database: 'bench', throwaway: true });
try {
  const settings = loadConfig({ DATA_DIR: tmp, LAKE_URL: `${tmp}/dl`, LAKE_FORMAT: 'ducklake', LAKE_CATALOG_URL: pg.url }).lake;
  const writer = await DuckLakeWriter.open(settings);
  const t0 = performance.now();
  for (let offset = 0; offset < EVENTS; offset += FLUSH) {
    await writer.flush(0, EventBatch.of(Array.from({ length: FLUSH }, (_, i) => row(offset + i))), offset + FLUSH);
  }
  console.log(`${EVENTS} events written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const { openLake } = await import('../../core/lake/lake-catalog.js');
  const reader = await openLake(settings, { threads: 2 });
  const distinct = async (sql: string) => (await reader.conn.runAndReadAll(sql)).getRows().map((r) => r[0] as string);
  const old = await timed(15, () =>
    distinct(
      `SELECT DISTINCT organization_id FROM lake.events WHERE kafka_partition = 0 AND status = 'pending_rate_card' ORDER BY organization_id`,
    ),
  );
  const now = await timed(15, () =>
    distinct(
      `SELECT DISTINCT organization_id FROM lake.daily_costs WHERE kafka_partition = 0 AND status = 'pending_rate_card' ORDER BY organization_id`,
    ),
  );
  const resume = await timed(15, () => writer.readManifest(0));
  const equal = JSON.stringify(old.result) === JSON.stringify(now.result);
  const same = JSON.stringify(resume.result.pendingOrganizations) === JSON.stringify(old.result);
  console.log(`pending organizations: ${old.result.length} (${old.result.map((o) => o.slice(-2)).join(', ')}); equal: ${equal && same}`);
  console.log(`events query (the old answer): median ${old.ms.toFixed(1)} ms`);
  console.log(`daily_costs query (the new answer): median ${now.ms.toFixed(1)} ms`);
  console.log(`readManifest as the writer has it: median ${resume.ms.toFixed(1)} ms`);
  // A flush that arrives while readManifest runs: its own time, alone and alongside.
  let offset = EVENTS;
  const flushOne = async () => {
    const t = performance.now();
    await writer.flush(0, EventBatch.of(Array.from({ length: 1_000 }, (_, i) => row(offset + i))), offset + 1_000);
    offset += 1_000;
    return performance.now() - t;
  };
  const alone: number[] = [];
  const beside: number[] = [];
  for (let i = 0; i < 7; i++) {
    alone.push(await flushOne());
    const reading = writer.readManifest(0);
    beside.push(await flushOne());
    await reading;
  }
  console.log(
    `1,000-event flush: alone median ${median(alone).toFixed(0)} ms, started during readManifest ${median(beside).toFixed(0)} ms`,
  );
  reader.close();
  await writer.close();
  if (!equal || !same) process.exitCode = 1;
} finally {
  await pg.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
