import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LakeReader } from '../../../../core/lake/lake-reader.js';
import { emptyManifest, writeManifest, type ManifestFile } from '../../../../core/lake/manifest.js';

// The reader is pure bookkeeping over manifests: these tests write manifests by hand (the files
// they name need not exist) and check which paths come back.

function entry(table: ManifestFile['table'], org: string, date: string, name: string): ManifestFile {
  return {
    table,
    path: `${table}/org=${org}/date=${date}/${name}.parquet`,
    organization_id: org,
    date,
    rows: 1,
    bytes: 100,
    min_offset: 0,
    max_offset: 0,
    max_received_at: '2025-03-01T00:00:00.000Z',
    created_at: '2025-03-01T00:00:00.000Z',
  };
}

describe('LakeReader', () => {
  let lakeDir: string;
  beforeEach(async () => {
    lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lake-reader-'));
    await writeManifest(lakeDir, {
      ...emptyManifest(0),
      version: 1,
      next_offset: 10,
      files: [
        entry('events', 'orgA', '2025-03-01', 'a1'),
        entry('events', 'orgA', '2025-03-02', 'a2'),
        entry('events', 'orgB', '2025-03-01', 'b1'),
        entry('daily_costs', 'orgA', '2025-03-01', 'd1'),
      ],
      garbage: [{ path: 'events/org=orgA/date=2025-02-28/old.parquet', deleted_after: '2025-03-01T00:10:00.000Z' }],
    });
    await writeManifest(lakeDir, { ...emptyManifest(1), version: 1, next_offset: 4, files: [entry('events', 'orgA', '2025-03-03', 'a3')] });
  });
  afterEach(() => fs.rmSync(lakeDir, { recursive: true, force: true }));

  const abs = (rel: string) => path.join(lakeDir, rel);

  it('lists one organization and table across every partition, never garbage', async () => {
    const reader = await LakeReader.open(lakeDir);
    expect(await reader.files('events', 'orgA')).toEqual(
      [
        'events/org=orgA/date=2025-03-01/a1.parquet',
        'events/org=orgA/date=2025-03-02/a2.parquet',
        'events/org=orgA/date=2025-03-03/a3.parquet',
      ].map(abs),
    );
    expect(await reader.files('daily_costs', 'orgA')).toEqual([abs('daily_costs/org=orgA/date=2025-03-01/d1.parquet')]);
    expect(await reader.files('events', 'orgC')).toEqual([]);
  });

  it('chooses files by UTC date: from inclusive, to exclusive', async () => {
    const reader = await LakeReader.open(lakeDir);
    // [03-02T00:00, 03-03T00:00) covers only 03-02; a to of 03-03T00:00:00.001 reaches into 03-03.
    expect(await reader.files('events', 'orgA', { from: new Date('2025-03-02T00:00:00Z'), to: new Date('2025-03-03T00:00:00Z') })).toEqual([
      abs('events/org=orgA/date=2025-03-02/a2.parquet'),
    ]);
    expect(
      await reader.files('events', 'orgA', { from: new Date('2025-03-01T23:00:00Z'), to: new Date('2025-03-03T00:00:00.001Z') }),
    ).toHaveLength(3);
    expect(await reader.files('events', 'orgA', { from: new Date('2025-03-03T12:00:00Z') })).toEqual([
      abs('events/org=orgA/date=2025-03-03/a3.parquet'),
    ]);
  });

  it('sees a replaced manifest on the next call after the refresh interval', async () => {
    const reader = await LakeReader.open(lakeDir, { refreshIntervalMs: 0 });
    await writeManifest(lakeDir, { ...emptyManifest(1), version: 2, next_offset: 8, files: [entry('events', 'orgA', '2025-03-04', 'a4')] });
    expect(await reader.files('events', 'orgA', { from: new Date('2025-03-03T00:00:00Z') })).toEqual([
      abs('events/org=orgA/date=2025-03-04/a4.parquet'),
    ]);
    expect((await reader.manifests()).get(1)?.version).toBe(2);
  });

  it('reads nothing from an empty lake and gives a typed empty relation', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'lake-reader-empty-'));
    try {
      const reader = await LakeReader.open(empty);
      expect(await reader.files('events', 'orgA')).toEqual([]);
      expect(await reader.relation('session_spans', 'orgA')).toMatch(
        /^\(SELECT CAST\(NULL AS VARCHAR\) AS "organization_id", .* WHERE false\)$/,
      );
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
