// A partition's manifest: the only list of live lake files and the next Kafka offset to read.
// It is replaced atomically (temp file, fsync, rename, fsync dir), so a reader sees either the
// old or the new state, never a mix; a file not listed here does not exist for readers.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { EVENT_STATUSES, type EventStatus } from './events-schema.js';
import type { DimensionSet } from './dimension-rollups.js';
import { isLakeTable, manifestDir, manifestPath, type LakeTable } from './layout.js';

const MANIFEST_FORMAT = 1;

export interface ManifestFile {
  table: LakeTable;
  /** Relative to the lake directory, '/'-separated. */
  path: string;
  organization_id: string;
  /** UTC event date of every row, YYYY-MM-DD. */
  date: string;
  rows: number;
  bytes: number;
  /** Kafka offsets of the events the file holds (or was computed from, for rollups). */
  min_offset: number;
  max_offset: number;
  /** Latest received_at among those events (ISO); used to rebuild the de-duplication window. */
  max_received_at: string;
  /** Events files only: rows per status, so re-pricing finds pending rows without reading. */
  status_counts?: Record<EventStatus, number>;
  /** Events files only: the dimensions whose rollup rows cover all of the file's events (core/lake/dimension-rollups.ts). */
  dimensions?: DimensionSet;
  created_at: string;
}

/** A file taken out of the manifest; deleted once `deleted_after` has passed. */
export interface GarbageFile {
  path: string;
  deleted_after: string;
}

export interface Manifest {
  format: number;
  partition: number;
  /** Bumped on every replace. */
  version: number;
  next_offset: number;
  updated_at: string;
  files: ManifestFile[];
  garbage: GarbageFile[];
}

export class ManifestError extends Error {}

export function emptyManifest(partition: number): Manifest {
  return { format: MANIFEST_FORMAT, partition, version: 0, next_offset: 0, updated_at: new Date(0).toISOString(), files: [], garbage: [] };
}

export function encodeManifest(manifest: Manifest): string {
  return JSON.stringify(manifest);
}

function fail(where: string, what: string): never {
  throw new ManifestError(`${where}: ${what}`);
}

function nonNegInt(v: unknown, where: string, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(where, `${field} must be a non-negative integer`);
  return v;
}

function str(v: unknown, where: string, field: string): string {
  if (typeof v !== 'string' || v === '') fail(where, `${field} must be a non-empty string`);
  return v;
}

function isoTime(v: unknown, where: string, field: string): string {
  const s = str(v, where, field);
  if (Number.isNaN(Date.parse(s))) fail(where, `${field} must be an ISO timestamp`);
  return s;
}

function decodeFile(raw: unknown, where: string): ManifestFile {
  if (typeof raw !== 'object' || raw === null) fail(where, 'file entry must be an object');
  const r = raw as Record<string, unknown>;
  const table = str(r.table, where, 'table');
  if (!isLakeTable(table)) fail(where, `unknown table ${table}`);
  const file: ManifestFile = {
    table,
    path: str(r.path, where, 'path'),
    organization_id: str(r.organization_id, where, 'organization_id'),
    date: str(r.date, where, 'date'),
    rows: nonNegInt(r.rows, where, 'rows'),
    bytes: nonNegInt(r.bytes, where, 'bytes'),
    min_offset: nonNegInt(r.min_offset, where, 'min_offset'),
    max_offset: nonNegInt(r.max_offset, where, 'max_offset'),
    max_received_at: isoTime(r.max_received_at, where, 'max_received_at'),
    created_at: isoTime(r.created_at, where, 'created_at'),
  };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(file.date)) fail(where, `date ${file.date} is not YYYY-MM-DD`);
  if (file.path.startsWith('/') || file.path.split('/').includes('..')) fail(where, `path ${file.path} must stay inside the lake`);
  if (r.status_counts !== undefined) {
    if (typeof r.status_counts !== 'object' || r.status_counts === null) fail(where, 'status_counts must be an object');
    const sc = r.status_counts as Record<string, unknown>;
    const counts = {} as Record<EventStatus, number>;
    for (const s of EVENT_STATUSES) counts[s] = nonNegInt(sc[s] ?? 0, where, `status_counts.${s}`);
    file.status_counts = counts;
  }
  if (r.dimensions !== undefined) {
    if (typeof r.dimensions !== 'object' || r.dimensions === null || Array.isArray(r.dimensions))
      fail(where, 'dimensions must be an object');
    const set: DimensionSet = {};
    for (const [k, t] of Object.entries(r.dimensions as Record<string, unknown>)) {
      if (t !== 'string' && t !== 'number') fail(where, `dimensions.${k} must be string or number`);
      set[k] = t;
    }
    file.dimensions = set;
  }
  return file;
}

/** Parse and validate a manifest; a manifest that fails validation is never half-trusted. */
export function decodeManifest(text: string, expectedPartition?: number): Manifest {
  const where = expectedPartition === undefined ? 'manifest' : `manifest of partition ${expectedPartition}`;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    fail(where, `not JSON (${(e as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null) fail(where, 'must be an object');
  const r = raw as Record<string, unknown>;
  if (r.format !== MANIFEST_FORMAT) fail(where, `unsupported format ${String(r.format)}`);
  const partition = nonNegInt(r.partition, where, 'partition');
  if (expectedPartition !== undefined && partition !== expectedPartition) fail(where, `names partition ${partition}`);
  if (!Array.isArray(r.files)) fail(where, 'files must be an array');
  if (!Array.isArray(r.garbage)) fail(where, 'garbage must be an array');
  return {
    format: MANIFEST_FORMAT,
    partition,
    version: nonNegInt(r.version, where, 'version'),
    next_offset: nonNegInt(r.next_offset, where, 'next_offset'),
    updated_at: isoTime(r.updated_at, where, 'updated_at'),
    files: r.files.map((f) => decodeFile(f, where)),
    garbage: r.garbage.map((g) => {
      if (typeof g !== 'object' || g === null) fail(where, 'garbage entry must be an object');
      const e = g as Record<string, unknown>;
      return { path: str(e.path, where, 'garbage.path'), deleted_after: isoTime(e.deleted_after, where, 'garbage.deleted_after') };
    }),
  };
}

/** The partition's manifest, or an empty one (next offset 0) when the partition was never written. */
export async function readManifest(lakeDir: string, partition: number): Promise<Manifest> {
  let text: string;
  try {
    text = await fs.readFile(manifestPath(lakeDir, partition), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyManifest(partition);
    throw e;
  }
  return decodeManifest(text, partition);
}

export async function fsyncPath(p: string): Promise<void> {
  const handle = await fs.open(p, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replace the partition's manifest atomically and durably: when this resolves, a crash leaves
 * the new manifest; before the rename, it leaves the old one (plus a stray temp file).
 */
export async function writeManifest(lakeDir: string, manifest: Manifest): Promise<void> {
  const dir = manifestDir(lakeDir);
  const target = manifestPath(lakeDir, manifest.partition);
  try {
    await fs.access(dir);
  } catch {
    await fs.mkdir(dir, { recursive: true });
    await fsyncPath(lakeDir);
  }
  const temp = path.join(dir, `${path.basename(target)}.tmp-${process.pid}-${randomUUID()}`);
  const handle = await fs.open(temp, 'wx');
  try {
    await handle.writeFile(encodeManifest(manifest), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, target);
  } catch (e) {
    await fs.rm(temp, { force: true });
    throw e;
  }
  await fsyncPath(dir);
}

/**
 * One version of a manifest file, as a string that changes whenever the file is replaced (write +
 * rename gives a new inode; size and mtime catch the rest): readers and the owning processor
 * compare it to know whether a manifest changed without reading it. Null when the file is absent.
 */
export async function manifestStatKey(file: string): Promise<string | null> {
  try {
    const st = await fs.stat(file, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
