// Deleting files no reader can need any more: files compaction or re-pricing replaced, once their
// grace period has passed, and (optionally) stray files of this partition that no manifest ever
// named (written before a crash) once they are old enough that no writer can still be about to
// name them. Files are deleted before the manifest forgets them, so a crash in between only
// leaves entries whose files are already gone (ENOENT is ignored next time).
import fs from 'node:fs/promises';
import path from 'node:path';
import { LAKE_TABLES, MANIFEST_DIR, absolutePath, relativePath } from '../../core/lake/layout.js';
import type { LakeContext, PartitionState } from './partition-state.js';

export interface GarbageOptions {
  /** Also look for stray files of this partition (walks the lake directory). Default false. */
  strays?: boolean;
  /** A stray file is deleted only when older than this. Default 1 hour. */
  strayAgeMs?: number;
}

export interface GarbageResult {
  deleted: number;
  strays: number;
}

async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw e;
  }
}

export async function collectGarbage(state: PartitionState, ctx: LakeContext, options: GarbageOptions = {}): Promise<GarbageResult> {
  const now = ctx.clock().getTime();
  const manifest = state.manifest;
  const expired = manifest.garbage.filter((g) => Date.parse(g.deleted_after) <= now);
  for (const g of expired) await unlinkIfPresent(absolutePath(ctx.lakeDir, g.path));
  if (expired.length > 0) {
    const gone = new Set(expired.map((g) => g.path));
    await state.commit(ctx, {
      next_offset: manifest.next_offset,
      files: manifest.files,
      garbage: manifest.garbage.filter((g) => !gone.has(g.path)),
    });
  }
  const strays = options.strays ? await sweepStrays(state, ctx, now - (options.strayAgeMs ?? 3600_000)) : 0;
  return { deleted: expired.length, strays };
}

async function sweepStrays(state: PartitionState, ctx: LakeContext, olderThan: number): Promise<number> {
  const known = new Set([...state.manifest.files.map((f) => f.path), ...state.manifest.garbage.map((g) => g.path)]);
  const prefix = `p${state.partition}-`;
  let removed = 0;
  const consider = async (abs: string) => {
    const st = await fs.stat(abs).catch(() => null);
    if (!st?.isFile() || st.mtimeMs > olderThan) return;
    await unlinkIfPresent(abs);
    removed++;
  };
  for (const table of LAKE_TABLES) {
    const tableDir = path.join(ctx.lakeDir, table);
    for (const org of await listDir(tableDir)) {
      for (const date of await listDir(path.join(tableDir, org))) {
        const dir = path.join(tableDir, org, date);
        for (const name of await listDir(dir)) {
          if (!name.startsWith(prefix)) continue;
          const abs = path.join(dir, name);
          if (!known.has(relativePath(ctx.lakeDir, abs))) await consider(abs);
        }
      }
    }
  }
  // Temp files of manifest replaces that never reached their rename.
  const manifests = path.join(ctx.lakeDir, MANIFEST_DIR);
  for (const name of await listDir(manifests)) {
    if (name.startsWith(`partition-${state.partition}.json.tmp-`)) await consider(path.join(manifests, name));
  }
  return removed;
}
