import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ManifestError,
  decodeManifest,
  emptyManifest,
  encodeManifest,
  manifestStatKey,
  readManifest,
  writeManifest,
  type Manifest,
} from '../../../../core/lake/manifest.js';
import { manifestPath } from '../../../../core/lake/layout.js';

const ORG = '0b9a5c1e-6f3d-4a8e-9c2b-1d7e5f4a3b21';

function sample(partition = 3): Manifest {
  return {
    format: 1,
    partition,
    version: 7,
    next_offset: 1200,
    updated_at: '2025-03-10T12:00:00.000Z',
    files: [
      {
        table: 'events',
        path: `events/org=${ORG}/date=2025-03-10/p3-flush-a.parquet`,
        organization_id: ORG,
        date: '2025-03-10',
        rows: 10,
        bytes: 4096,
        min_offset: 1000,
        max_offset: 1199,
        max_received_at: '2025-03-10T11:59:59.000Z',
        status_counts: { completed: 8, pending_rate_card: 2, failed: 0 },
        created_at: '2025-03-10T12:00:00.000Z',
      },
      {
        table: 'daily_costs',
        path: `daily_costs/org=${ORG}/date=2025-03-10/p3-flush-b.parquet`,
        organization_id: ORG,
        date: '2025-03-10',
        rows: 2,
        bytes: 1024,
        min_offset: 1000,
        max_offset: 1199,
        max_received_at: '2025-03-10T11:59:59.000Z',
        created_at: '2025-03-10T12:00:00.000Z',
      },
    ],
    garbage: [{ path: `events/org=${ORG}/date=2025-03-09/p3-flush-old.parquet`, deleted_after: '2025-03-10T12:10:00.000Z' }],
  };
}

describe('manifest encoding', () => {
  it('decodes exactly what it encodes', () => {
    const m = sample();
    expect(decodeManifest(encodeManifest(m), 3)).toEqual(m);
  });

  it('starts an unseen partition at offset 0 with no files', () => {
    expect(emptyManifest(5)).toMatchObject({ partition: 5, version: 0, next_offset: 0, files: [], garbage: [] });
  });

  it.each([
    ['not JSON', '{"format":1,', /not JSON/],
    ['another partition', JSON.stringify(sample(4)), /names partition 4/],
    ['an unknown format', JSON.stringify({ ...sample(), format: 2 }), /unsupported format/],
    ['a negative offset', JSON.stringify({ ...sample(), next_offset: -1 }), /next_offset/],
    ['a fractional row count', JSON.stringify({ ...sample(), files: [{ ...sample().files[0], rows: 1.5 }] }), /rows/],
    ['an unknown table', JSON.stringify({ ...sample(), files: [{ ...sample().files[0], table: 'users' }] }), /unknown table/],
    [
      'a path leaving the lake',
      JSON.stringify({ ...sample(), files: [{ ...sample().files[0], path: '../etc/passwd' }] }),
      /inside the lake/,
    ],
    ['a bad date', JSON.stringify({ ...sample(), files: [{ ...sample().files[0], date: '2025-3-1' }] }), /YYYY-MM-DD/],
    ['missing garbage', JSON.stringify({ ...sample(), garbage: undefined }), /garbage/],
  ])('rejects %s', (_what, text, message) => {
    expect(() => decodeManifest(text, 3)).toThrow(ManifestError);
    expect(() => decodeManifest(text, 3)).toThrow(message);
  });
});

describe('manifest files', () => {
  let lakeDir: string;
  beforeEach(() => {
    lakeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lake-manifest-'));
  });
  afterEach(() => fs.rmSync(lakeDir, { recursive: true, force: true }));

  it('reads a partition that was never written as empty', async () => {
    expect(await readManifest(lakeDir, 2)).toEqual(emptyManifest(2));
  });

  it('replaces the manifest and leaves no temp file behind', async () => {
    await writeManifest(lakeDir, sample());
    await writeManifest(lakeDir, { ...sample(), version: 8, next_offset: 1500 });
    expect(await readManifest(lakeDir, 3)).toMatchObject({ version: 8, next_offset: 1500 });
    expect(fs.readdirSync(path.join(lakeDir, '_manifests'))).toEqual(['partition-3.json']);
  });

  it('keeps the old manifest readable when a replace dies before its rename', async () => {
    await writeManifest(lakeDir, sample());
    // What a crash after writing the temp file but before rename leaves on disk.
    const temp = `${manifestPath(lakeDir, 3)}.tmp-999-dead`;
    fs.writeFileSync(temp, '{"format":1,"partition":3,"vers');
    expect(await readManifest(lakeDir, 3)).toEqual(sample());
  });

  it('fails loudly on a corrupt manifest instead of reading it as empty', async () => {
    fs.mkdirSync(path.join(lakeDir, '_manifests'));
    fs.writeFileSync(manifestPath(lakeDir, 3), '{"format":1');
    await expect(readManifest(lakeDir, 3)).rejects.toThrow(ManifestError);
  });
});

describe('manifestStatKey', () => {
  it('changes when the file is replaced by rename, even with the same size, and is null when absent', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statkey-'));
    const file = path.join(dir, 'm.json');
    expect(await manifestStatKey(file)).toBeNull();
    fs.writeFileSync(file, '{"a":1}');
    const first = await manifestStatKey(file);
    expect(first).not.toBeNull();
    expect(await manifestStatKey(file)).toBe(first);
    fs.writeFileSync(`${file}.tmp`, '{"a":2}');
    fs.renameSync(`${file}.tmp`, file);
    expect(await manifestStatKey(file)).not.toBe(first);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
