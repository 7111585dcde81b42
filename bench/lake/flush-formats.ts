// Flush cost of the two lake formats (LAKE_FORMAT, docs/decisions/0139) through the writers the processor uses: the
// median of 25 flushes of 1,000 events, then events/s over 10 flushes of 10,000 (one partition, one
// organization, three days), manifest lake vs DuckLake on local disk with a PostgreSQL catalog (a
// throwaway cluster, scripts/postgres/local-cluster.ts). Run: npx tsx bench/lake/flush-formats.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config.js';
import { startLocalPostgres } from '../../scripts/postgres/local-cluster.js';
import { LakeWriter, type ProcessorLake } from '../../processor/lake/lake-writer.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { lakeEvent } from '../../test/support/lake-event-builder.js';
import { EventBatch } from '../../processor/lake/event-batch.js';

const DAY0 = Date.UTC(2026, 10, 1);
const row = (offset: number) => {
  const ts = new Date(DAY0 + (offset % 3) * 86_400_000 + (offset % 86_400) * 1000);
  return lakeEvent({
    kafka_partition: 0,
    kafka_offset: offset,
    organization_id: '00000000-0000-4000-8000-000000000001',
    idempotency_key: `b-${offset}`,
    event_timestamp: ts,
    received_at: ts,
    user_id: `u-${offset % 50}`,
    model: 'gpt-4o',
    input_tokens: 1000 + (offset % 997),
    output_tokens: 200,
    input_cost: '0.001',
    output_cost: '0.0002',
    total_cost: '0.0012',
    metadata: '{"team":"t1"}',
  });
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(label: string, lake: ProcessorLake) {
  let offset = (await lake.readManifest(0)).nextOffset;
  const small: number[] = [];
  for (let b = 0; b < 25; b++) {
    const batch = EventBatch.of(Array.from({ length: 1000 }, (_, i) => row(offset + i)));
    const t = performance.now();
    await lake.flush(0, batch, offset + 1000);
    small.push(performance.now() - t);
    offset += 1000;
  }
  const t0 = performance.now();
  let n = 0;
  for (let b = 0; b < 10; b++) {
    const batch = EventBatch.of(Array.from({ length: 10_000 }, (_, i) => row(offset + i)));
    await lake.flush(0, batch, offset + 10_000);
    offset += 10_000;
    n += 10_000;
  }
  const secs = (performance.now() - t0) / 1000;
  console.log(
    `${label}: 1,000-event flush median ${median(small).toFixed(0)} ms (min ${Math.min(...small).toFixed(0)}, max ${Math.max(...small).toFixed(0)}); 10,000-event flushes ${(n / secs).toFixed(0)} events/s`,
  );
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-lake-bench-'));
const pg = await startLocalPostgres({ dir: `${tmp}/pg`, database: 'bench', throwaway: true });
try {
  const files = await LakeWriter.open(`${tmp}/files`);
  await run('files', files);
  await files.close();
  const dl = await DuckLakeWriter.open(
    loadConfig({ DATA_DIR: tmp, LAKE_DIR: `${tmp}/dl`, LAKE_FORMAT: 'ducklake', LAKE_CATALOG_URL: pg.url }).lake,
  );
  await run('ducklake (local, PostgreSQL catalog)', dl);
  await dl.close();
} finally {
  await pg.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}
