// Which organizations of a partition have pending_rate_card events, as the DuckLake writer tells
// re-pricing (readManifest): answered from daily_costs (a row per status with events, by its
// invariant) and equal to the answer over the events themselves, through flushes and re-pricings;
// and given while the partition's queue is busy (a flush never waits behind it, nor it behind one).
// Real DuckDB/DuckLake on local disk, catalog in a fresh PostgreSQL database.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { openLake, type OpenLake } from '../../core/lake/lake-catalog.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { ensureDuckDBExtensions } from '../../scripts/duckdb-extensions/provision.js';
import { openFreshControlDb, testPostgresUrl, type FreshControlDb } from '../support/control-db.js';
import { lakeEvent } from '../support/lake-event-builder.js';
import { tempLakeDir } from '../support/processor-fixtures.js';
import { duckLakeEnv } from '../support/test-lake.js';

const provisioned = await ensureDuckDBExtensions().catch(() => null);

const ORG = {
  a: '0a000000-0000-4000-8000-000000000001',
  b: '0b000000-0000-4000-8000-000000000002',
  c: '0c000000-0000-4000-8000-000000000003',
  d: '0d000000-0000-4000-8000-000000000004',
  e: '0e000000-0000-4000-8000-000000000005',
};
const day = (d: number) => new Date(Date.UTC(2026, 2, d, 12));

describe.skipIf(!provisioned || !testPostgresUrl())('DuckLake pending organizations', () => {
  let catalog: FreshControlDb;
  let dir: string;
  let settings: LakeSettings;
  let writer: DuckLakeWriter;
  let reader: OpenLake;

  beforeAll(async () => {
    catalog = await openFreshControlDb('postgres', { migrate: false });
    dir = tempLakeDir('ducklake-pending');
    settings = loadConfig({ DATA_DIR: dir, ...duckLakeEnv(dir, catalog.url!) }).lake;
    writer = await DuckLakeWriter.open(settings);
    reader = await openLake(settings, { threads: 1 });
  }, 60_000);
  afterAll(async () => {
    reader?.close();
    await writer?.close();
    await catalog?.dispose();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const event = (partition: number, offset: number, organization_id: string, status: 'completed' | 'pending_rate_card', d: number) =>
    lakeEvent({
      kafka_partition: partition,
      kafka_offset: offset,
      organization_id,
      status,
      event_timestamp: day(d),
      total_cost: status === 'completed' ? '0.5' : '0',
    });
  /** The answer over the events, as readManifest gave it before. */
  const fromEvents = async (partition: number) =>
    (
      await reader.conn.runAndReadAll(
        `SELECT DISTINCT organization_id FROM lake.events WHERE kafka_partition = ${partition} AND status = 'pending_rate_card' ORDER BY 1`,
      )
    )
      .getRows()
      .map((r) => r[0] as string);
  const pendingOf = async (partition: number) => (await writer.readManifest(partition)).pendingOrganizations;
  const completeOffsets =
    (offsets: number[]) =>
    (row: LakeEventRow): LakeEventRow | null =>
      offsets.includes(row.kafka_offset) ? { ...row, status: 'completed', total_cost: '1' } : null;

  it('equals the events-based answer through flushes and re-pricings', async () => {
    // Partition 0: a pending on day 1; c pending on days 1 and 2; d completed only; e pending on days 2 and 3.
    await writer.flush(
      0,
      [
        event(0, 0, ORG.a, 'pending_rate_card', 1),
        event(0, 1, ORG.a, 'completed', 1),
        event(0, 2, ORG.c, 'pending_rate_card', 1),
        event(0, 3, ORG.c, 'pending_rate_card', 2),
        event(0, 4, ORG.d, 'completed', 2),
        event(0, 5, ORG.e, 'pending_rate_card', 2),
        event(0, 6, ORG.e, 'pending_rate_card', 3),
      ],
      7,
    );
    // Partition 1: b pending; a completed only.
    await writer.flush(1, [event(1, 0, ORG.b, 'pending_rate_card', 4), event(1, 1, ORG.a, 'completed', 4)], 2);
    expect(await pendingOf(0)).toEqual([ORG.a, ORG.c, ORG.e]);
    expect(await pendingOf(1)).toEqual([ORG.b]);
    for (const p of [0, 1]) expect(await pendingOf(p)).toEqual(await fromEvents(p));

    // c re-priced entirely, e partly (day 2 only): c leaves the list, e stays.
    await writer.rewriteRows(0, { organizationId: ORG.c, statuses: ['pending_rate_card'] }, completeOffsets([2, 3]));
    await writer.rewriteRows(0, { organizationId: ORG.e, statuses: ['pending_rate_card'] }, completeOffsets([5]));
    expect(await pendingOf(0)).toEqual([ORG.a, ORG.e]);
    expect(await pendingOf(0)).toEqual(await fromEvents(0));
    // A later flush adds d's first pending event on a day it had none.
    await writer.flush(0, [event(0, 7, ORG.d, 'pending_rate_card', 5)], 8);
    expect(await pendingOf(0)).toEqual([ORG.a, ORG.d, ORG.e]);
    expect(await pendingOf(0)).toEqual(await fromEvents(0));
    expect(await pendingOf(2)).toEqual([]);
  }, 60_000);

  it("answers while the partition's queue is held by a re-pricing", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    // The rewrite's transform waits at the gate: the partition's exclusive section is held meanwhile.
    const held = writer.rewriteRows(0, { organizationId: ORG.a, statuses: ['pending_rate_card'] }, async (row) => {
      entered();
      await gate;
      return { ...row, status: 'completed', total_cost: '1' };
    });
    await inside;
    const answer = await Promise.race([
      writer.readManifest(0),
      new Promise<'queued'>((resolve) => setTimeout(() => resolve('queued'), 5_000)),
    ]);
    open();
    await held;
    expect(answer).not.toBe('queued');
    expect(answer === 'queued' ? null : answer.pendingOrganizations).toEqual([ORG.a, ORG.d, ORG.e]);
    // Once the rewrite committed, a is gone from the list.
    expect(await pendingOf(0)).toEqual([ORG.d, ORG.e]);
    expect(await pendingOf(0)).toEqual(await fromEvents(0));
  }, 60_000);
});
