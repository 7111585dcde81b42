// The partition loop's exactly-once rule when a flush fails (processor/partition-worker.ts), over a
// real DuckLake in a temp folder (catalog in a fresh database of the test PostgreSQL): the worker
// drops its buffer and reloads from the lake's offset, and nothing it starts meanwhile may move
// that offset over the dropped records. The flush fails for real: a file stands where DuckLake must
// write its data files, as a store that refuses writes would (the S3 outage test lost one
// partition's outage batch this way: flushAll, waiting on the failing flush, then flushed the empty
// buffer up to the old position, and the lake's offset passed records it never wrote).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { ProcessorLake } from '../../processor/lake/lake-writer.js';
import { PartitionWorker } from '../../processor/partition-worker.js';
import { testPostgresUrl } from '../support/control-db.js';
import { lakeEvent, ORG_A } from '../support/lake-event-builder.js';
import { lakeEventIdCounts, openTestProcessorLake } from '../support/processor-fixtures.js';
import { duckLakeSettingsOf } from '../support/test-lake.js';

const DAY = '2025-03-10';

describe.skipIf(!testPostgresUrl())('a partition worker whose flush fails', () => {
  let tmp: string;
  let lake: ProcessorLake;
  const seeks: number[] = [];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-partition-worker-'));
    lake = await openTestProcessorLake(tmp);
  });

  afterAll(async () => {
    await lake?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('reloads at the offset before the dropped records, and lands them once when they are read again', async () => {
    // The store comes back the moment the worker reports the failed flush: before the fix, the flush
    // flushAll started next (the emptied buffer up to the old position) then landed, moving the
    // lake's offset over records it never wrote, as in the S3 outage.
    let storeBack = (): void => undefined;
    const logger = pino({ level: 'error' }, { write: (line: string) => (line.includes('lake write failed') ? storeBack() : undefined) });
    const worker = new PartitionWorker(0, {
      lake,
      logger,
      commit: async () => undefined,
      seek: (_partition, offset) => seeks.push(offset),
      compactEveryMs: 3_600_000,
    });
    await worker.ready;
    const rows = [0, 1, 2].map((offset) => lakeEvent({ kafka_offset: offset, event_timestamp: new Date(`${DAY}T12:00:0${offset}Z`) }));
    // No data file is written yet; the schema's folder (empty tables' folders) goes aside for a file.
    const blocker = path.join(duckLakeSettingsOf(tmp)!.dataPath, 'main');
    const aside = `${blocker}.aside`;
    if (fs.existsSync(blocker)) fs.renameSync(blocker, aside);
    fs.writeFileSync(blocker, 'not a directory');
    storeBack = () => {
      fs.rmSync(blocker, { force: true });
      if (fs.existsSync(aside)) fs.renameSync(aside, blocker);
    };

    for (const row of rows) worker.accept(row, row.kafka_offset);
    // As the consumer does when the buffer is full while a flush runs: start one, then wait for all.
    void worker.startFlush();
    await worker.flushAll();
    expect(worker.loaded).toBe(false);

    expect(fs.statSync(blocker).isDirectory()).toBe(true);
    await worker.ready;
    // Offsets 0-2 are not in the lake: its offset still starts at 0 and the fetch goes back there.
    expect((await lake.readManifest(0)).nextOffset).toBe(0);
    expect(worker.position).toBe(0);
    expect(seeks.at(-1)).toBe(0);

    for (const row of rows) worker.accept(row, row.kafka_offset);
    await worker.flushAll();
    expect((await lake.readManifest(0)).nextOffset).toBe(3);
    expect(worker.durable).toBe(3);
    // The three events once each.
    expect([...(await lakeEventIdCounts(tmp, ORG_A)).values()]).toEqual([1, 1, 1]);
  });
});
