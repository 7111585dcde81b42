// Lake benchmark: flush throughput of LakeWriter (batches of 10k priced events; one organization
// on one day, and 20 organizations over 30 days), compaction of the result, and the api-side
// query time over ~1M rows through LakeReader. Run: npx tsx bench/processor-lake.ts [totalRows]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { LakeReader } from '../core/lake/lake-reader.js';
import type { LakeEventRow } from '../core/lake/events-schema.js';
import { LakeWriter } from '../processor/lake/lake-writer.js';
import { lakeEvent } from '../test/support/lake-event-builder.js';

const BATCH = 10_000;
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'claude-haiku-3.5', 'gemini-2.0-flash'];
const ORGS = Array.from({ length: 20 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
/** The read-side organization, written only to partition 3. */
const READ_ORG = '11111111-0000-4000-8000-000000000000';
const DAY0 = Date.UTC(2025, 0, 1);

function row(partition: number, offset: number, orgs: number, days: number): LakeEventRow {
  const org = partition === 3 ? READ_ORG : ORGS[offset % orgs]!;
  const ts = new Date(DAY0 + (Math.floor(offset / orgs) % days) * 86_400_000 + (offset % 86_400) * 1000);
  const micro = (offset * 7919) % 1_000_000;
  return lakeEvent({
    kafka_partition: partition,
    kafka_offset: offset,
    organization_id: org,
    idempotency_key: `bench-${offset}`,
    event_timestamp: ts,
    received_at: ts,
    user_id: `user-${offset % 500}`,
    model: MODELS[offset % MODELS.length]!,
    input_tokens: 1000 + (offset % 997),
    output_tokens: 200 + (offset % 101),
    input_cost: `0.000${String(micro).padStart(6, '0')}123`,
    output_cost: '0.0002',
    total_cost: `0.000${String(micro).padStart(6, '0')}123`,
    session_id: offset % 3 === 0 ? `sess-${Math.floor(offset / 30)}` : null,
    span_id: offset % 3 === 0 ? `span-${offset % 10}` : null,
    started_at: offset % 3 === 0 ? ts : null,
    agent_id: `agent-${offset % 7}`,
    metadata: `{"team":"t${offset % 5}","env":"prod"}`,
  });
}

async function flushRun(
  label: string,
  writer: LakeWriter,
  partition: number,
  batches: number,
  orgs: number,
  days: number,
  batchSize = BATCH,
) {
  const times: number[] = [];
  const phases = { stage: 0, write: 0, sync: 0, manifest: 0 };
  let offset = (await writer.readManifest(partition)).nextOffset;
  let files = 0;
  for (let b = 0; b < batches; b++) {
    const rows = Array.from({ length: batchSize }, (_, i) => row(partition, offset + i, orgs, days));
    const t = performance.now();
    const r = await writer.flush(partition, rows, offset + batchSize);
    times.push(performance.now() - t);
    files += r.files;
    for (const k of Object.keys(phases) as (keyof typeof phases)[]) phases[k] += r.timings[k] / batches;
    offset += batchSize;
  }
  const total = times.reduce((a, b) => a + b, 0);
  const sorted = [...times].sort((a, b) => a - b);
  const line =
    `${label}: ${batches} x ${batchSize} rows, ${files / batches} files per flush: ${Math.round((batches * batchSize) / (total / 1000))} rows/s ` +
    `(per flush median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms; ` +
    `mean ms: ${Object.entries(phases)
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(', ')})`;
  console.log(line);
}

async function timeQuery(conn: DuckDBConnection, label: string, sql: string) {
  const runs: number[] = [];
  let rows = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const res = await conn.runAndReadAll(sql);
    runs.push(performance.now() - t0);
    rows = res.currentRowCount;
  }
  runs.sort((a, b) => a - b);
  console.log(`  ${label}: median ${runs[2]!.toFixed(0)} ms (min ${runs[0]!.toFixed(0)}, max ${runs[4]!.toFixed(0)}), ${rows} result rows`);
}

async function readQueries(reader: LakeReader, conn: DuckDBConnection, org: string) {
  const events = await reader.relation('events', org);
  const daily = await reader.relation('daily_costs', org);
  const files = (await reader.files('events', org)).length;
  const [[n]] = (await conn.runAndReadAll(`SELECT count(*) FROM ${events} WHERE organization_id = '${org}'`)).getRowsJS() as bigint[][];
  console.log(` ${n} events rows in ${files} events files, ${(await reader.files('daily_costs', org)).length} daily_costs files`);
  await timeQuery(
    conn,
    'events: SUM(total_cost) GROUP BY end_user_id',
    `SELECT end_user_id, sum(total_cost) FROM ${events} WHERE organization_id = '${org}' GROUP BY end_user_id`,
  );
  await timeQuery(
    conn,
    'events, 7 days: SUM(total_cost), count GROUP BY day',
    `SELECT event_date, sum(total_cost), count(*) FROM ${await reader.relation('events', org, { from: new Date('2025-01-10'), to: new Date('2025-01-17') })} WHERE organization_id = '${org}' AND event_timestamp >= TIMESTAMP '2025-01-10' AND event_timestamp < TIMESTAMP '2025-01-17' GROUP BY 1`,
  );
  await timeQuery(
    conn,
    'daily_costs rollup: SUM(total_cost) GROUP BY end_user_id',
    `SELECT end_user_id, sum(total_cost) FROM ${daily} WHERE organization_id = '${org}' GROUP BY end_user_id`,
  );
}

async function main() {
  const readRows = Number(process.argv[2] ?? 1_000_000);
  const lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-lake-bench-'));
  console.log(
    `lake ${lakeDir}; ${os.cpus().length} cpus; node ${process.version}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  try {
    const writer = await LakeWriter.open(lakeDir);
    await flushRun('warm-up', writer, 0, 2, 1, 1);
    console.log('Flush throughput:');
    await flushRun(' 1 org, 1 day', writer, 1, 10, 1, 1);
    await flushRun(' 20 orgs x 30 days', writer, 2, 10, 20, 30);
    await flushRun(' 20 orgs x 30 days', writer, 4, 4, 20, 30, 50_000);
    await flushRun(' 1 org x 30 days', writer, 5, 4, 1, 30, 50_000);

    console.log(`Read side: one organization with ${readRows} events over 30 days (partition 3, batches of 50k):`);
    await flushRun(' load', writer, 3, Math.ceil(readRows / 50_000), 1, 30, 50_000);
    const reader = await LakeReader.open(lakeDir, { refreshIntervalMs: 0 });
    const db = await DuckDBInstance.create(':memory:', { threads: '2' });
    const conn = await db.connect();
    const org = READ_ORG;
    console.log(' before compaction:');
    await readQueries(reader, conn, org);
    const t = performance.now();
    const c = await writer.compactPartition(3, { minFiles: 2, graceMs: 0 });
    console.log(
      ` compaction of partition 3: ${c.groups} groups, ${c.filesMerged} files -> ${c.filesWritten} in ${(performance.now() - t).toFixed(0)} ms`,
    );
    console.log(' after compaction:');
    await readQueries(reader, conn, org);
    const t1 = performance.now();
    for (let i = 0; i < 100; i++) await reader.files('events', org, { from: new Date('2025-01-10'), to: new Date('2025-01-17') });
    console.log(` LakeReader.files (cached manifests): ${((performance.now() - t1) / 100).toFixed(3)} ms per call`);
    await writer.close();
    conn.closeSync();
    db.closeSync();
  } finally {
    fs.rmSync(lakeDir, { recursive: true, force: true });
  }
}

await main();
