// The partition loop's exactly-once rule when a flush fails (processor/partition-worker.ts), over a
// real manifest lake in a temp folder: the worker drops its buffer and reloads from the manifest,
// and nothing it starts meanwhile may move the lake's offset over the dropped records. The flush
// fails for real: a file stands where the lake must create the events' directory, as a store that
// refuses writes would (the S3 outage test lost one partition's outage batch this way: flushAll,
// waiting on the failing flush, then flushed the empty buffer up to the old position).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupDir } from '../../core/lake/layout.js';
import { createLogger } from '../../core/logger.js';
import { LakeWriter } from '../../processor/lake/lake-writer.js';
import { PartitionWorker } from '../../processor/partition-worker.js';
import { ORG_A, lakeEvent } from '../support/lake-event-builder.js';

const DAY = '2025-03-10';

describe('a partition worker whose flush fails', () => {
  let tmp: string;
  let lake: LakeWriter;
  const seeks: number[] = [];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-partition-worker-'));
    lake = await LakeWriter.open(tmp);
  });

  afterAll(async () => {
    await lake?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('reloads at the offset before the dropped records, and lands them once when they are read again', async () => {
    const worker = new PartitionWorker(0, {
      lake,
      logger: createLogger('silent', 'partition-worker-test'),
      commit: async () => undefined,
      seek: (_partition, offset) => seeks.push(offset),
      compactEveryMs: 3_600_000,
    });
    await worker.ready;
    const rows = [0, 1, 2].map((offset) => lakeEvent({ kafka_offset: offset, event_timestamp: new Date(`${DAY}T12:00:0${offset}Z`) }));
    const blocker = path.join(tmp, groupDir('events', ORG_A, DAY));
    fs.mkdirSync(path.dirname(blocker), { recursive: true });
    fs.writeFileSync(blocker, 'not a directory');

    for (const row of rows) worker.accept(row, row.kafka_offset);
    // As the consumer does when the buffer is full while a flush runs: start one, then wait for all.
    void worker.startFlush();
    await worker.flushAll();
    expect(worker.loaded).toBe(false);

    fs.rmSync(blocker);
    await worker.ready;
    // Offsets 0-2 are not in the lake: the manifest still starts at 0 and the fetch goes back there.
    expect((await lake.readManifest(0)).nextOffset).toBe(0);
    expect(worker.position).toBe(0);
    expect(seeks.at(-1)).toBe(0);

    for (const row of rows) worker.accept(row, row.kafka_offset);
    await worker.flushAll();
    const manifest = await lake.readManifest(0);
    expect(manifest.nextOffset).toBe(3);
    expect(worker.durable).toBe(3);
    // One events file holding the three rows once (its row count is the manifest's).
    const events = manifest.files.filter((f) => f.table === 'events');
    expect(events.map((f) => f.rows)).toEqual([3]);
  });
});
