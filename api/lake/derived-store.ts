// Persisted derived days: the DerivedCache's per-day rows written once as Parquet beside the lake
// (`$LAKE_DIR/_derived` by default), so a fresh api process loads a day's rows from one small file
// instead of rebuilding them from the day's lake files. Invariant: a persisted day is used only for
// the exact file list it was built from — each day is stored with a fingerprint of its sorted file
// names (lake file names are unique and never reused), and a lookup names the current one. A flush,
// compaction or re-pricing gives the day new files, so a new fingerprint: the old rows can never
// answer again, and a batch file whose every day was superseded is deleted (after a grace period).
//
// Layout: <dir>/<derivation>/org=<organization>/<batch>.parquet + <batch>.json. One batch = the
// days one build wrote; the Parquet has the derivation's columns plus `_file_day` (the UTC date of
// the source files); the JSON sidecar (written after the Parquet, both by write + rename) lists
// day → fingerprint and is the index. Batch names are a hash of their content key, so two replicas
// persisting the same days write identical files. Any failure here only costs a rebuild from the
// lake: a write error turns persistence off for the process, a vanished file falls back to source.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { assertSafeOrganizationId } from '../../core/lake/layout.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';

/** What identifies a derivation's rows on disk: its id, parameters and SQL (a code change is a new key). */
export interface StoredDerivation {
  id: string;
  perDay: string;
  params?: Record<string, string>;
  hourly?: boolean;
}

/** A day to look up or persist: its UTC date and the sorted file paths its rows come from. */
export interface DayFiles {
  day: string;
  files: readonly string[];
}

export interface PersistedDay {
  day: string;
  /** The Parquet file holding the day's rows (filter `_file_day = day`). */
  file: string;
}

interface Batch {
  days: Map<string, string>;
  /** Days of this batch seen superseded by a newer file list. */
  superseded: Set<string>;
}

interface Folder {
  batches: Map<string, Batch>;
}

const SIDECAR_VERSION = 1;

/** Fingerprint of a day's file list: hash of the sorted file names (unique in the lake). */
export function dayFingerprint(files: readonly string[]): string {
  const names = files.map((f) => path.basename(f)).sort();
  return createHash('sha256').update(names.join('\n')).digest('hex').slice(0, 32);
}

function derivationFolder(d: StoredDerivation): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([d.id, d.params ?? {}, d.perDay, d.hourly ?? false]))
    .digest('hex')
    .slice(0, 16);
  return `${d.id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}-${digest}`;
}

export interface DerivedStoreOptions {
  /** How long a deleted batch's Parquet stays for readers that listed it a moment ago. Default 60 s. */
  graceMs?: number;
  /** Told once when persisting fails (persistence is then off for this process). */
  onError?: (err: unknown) => void;
}

export class DerivedStore {
  private readonly folders = new Map<string, Folder>();
  private disabled = false;
  private readonly graceMs: number;

  constructor(
    readonly dir: string,
    private readonly options: DerivedStoreOptions = {},
  ) {
    this.graceMs = options.graceMs ?? 60_000;
  }

  private folderPath(d: StoredDerivation, organizationId: string): string {
    assertSafeOrganizationId(organizationId);
    return path.join(this.dir, derivationFolder(d), `org=${organizationId}`);
  }

  /**
   * The persisted days among `wanted` whose stored fingerprint equals their current file list.
   * Batches holding an older list of a wanted day learn that it is superseded (and are deleted
   * when all their days are).
   */
  async find(d: StoredDerivation, organizationId: string, wanted: readonly DayFiles[]): Promise<PersistedDay[]> {
    if (wanted.length === 0) return [];
    const dir = this.folderPath(d, organizationId);
    const folder = await this.scan(dir);
    const found: PersistedDay[] = [];
    for (const w of wanted) {
      const fp = dayFingerprint(w.files);
      let hit: string | null = null;
      for (const [name, batch] of folder.batches) {
        const stored = batch.days.get(w.day);
        if (stored === undefined) continue;
        if (stored === fp) hit ??= name;
        else batch.superseded.add(w.day);
      }
      if (hit) found.push({ day: w.day, file: path.join(dir, `${hit}.parquet`) });
    }
    for (const [name, batch] of folder.batches) {
      if (batch.superseded.size === batch.days.size) {
        folder.batches.delete(name);
        void this.remove(dir, name);
      }
    }
    return found;
  }

  /** Forgets a batch that could not be read (deleted by another process); the day is rebuilt from source. */
  forget(file: string): void {
    const name = path.basename(file, '.parquet');
    for (const folder of this.folders.values()) folder.batches.delete(name);
  }

  /**
   * Writes the rows of `days` (selected from `relation`, whose `_day` column holds each day's id)
   * as one batch. Never throws: a failure turns persistence off and is reported once.
   */
  async write(
    conn: DuckDBConnection,
    d: StoredDerivation,
    organizationId: string,
    relation: string,
    days: ReadonlyArray<DayFiles & { id: number }>,
  ): Promise<void> {
    if (this.disabled || days.length === 0) return;
    try {
      const dir = this.folderPath(d, organizationId);
      const index = Object.fromEntries(days.map((x) => [x.day, dayFingerprint(x.files)]).sort((a, b) => a[0]!.localeCompare(b[0]!)));
      const name = createHash('sha256').update(JSON.stringify(index)).digest('hex').slice(0, 32);
      await fs.mkdir(dir, { recursive: true });
      const parquet = path.join(dir, `${name}.parquet`);
      const tmp = path.join(dir, `.${name}-${randomUUID()}.tmp`);
      const map = `(VALUES ${days.map((x) => `(${x.id}, ${sqlStringLiteral(x.day)})`).join(', ')}) AS m(day_id, file_day)`;
      await conn.run(
        `COPY (SELECT m.file_day AS _file_day, t.* EXCLUDE (_day) FROM ${relation} t JOIN ${map} ON t._day = m.day_id ORDER BY 1)
           TO ${sqlStringLiteral(tmp)} (FORMAT parquet, COMPRESSION zstd)`,
      );
      await fs.rename(tmp, parquet);
      const sidecarTmp = `${tmp}.json`;
      await fs.writeFile(
        sidecarTmp,
        JSON.stringify({ version: SIDECAR_VERSION, derivation: d.id, organization_id: organizationId, days: index }),
      );
      await fs.rename(sidecarTmp, path.join(dir, `${name}.json`));
      const folder = await this.scan(dir);
      folder.batches.set(name, { days: new Map(Object.entries(index)), superseded: new Set() });
    } catch (err) {
      this.disabled = true;
      this.options.onError?.(err);
    }
  }

  /** The folder's batches, reading sidecars not seen before (other processes may have added some). */
  private async scan(dir: string): Promise<Folder> {
    let folder = this.folders.get(dir);
    if (!folder) {
      folder = { batches: new Map() };
      this.folders.set(dir, folder);
    }
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return folder;
      throw e;
    }
    const present = new Set<string>();
    for (const file of names) {
      if (!file.endsWith('.json') || file.startsWith('.')) continue;
      const name = file.slice(0, -'.json'.length);
      present.add(name);
      if (folder.batches.has(name)) continue;
      try {
        const sidecar = JSON.parse(await fs.readFile(path.join(dir, file), 'utf8')) as { version: number; days: Record<string, string> };
        if (sidecar.version !== SIDECAR_VERSION) continue;
        folder.batches.set(name, { days: new Map(Object.entries(sidecar.days)), superseded: new Set() });
      } catch {
        // Deleted or replaced meanwhile: skip it; its days are rebuilt from source if needed.
      }
    }
    for (const name of [...folder.batches.keys()]) if (!present.has(name)) folder.batches.delete(name);
    return folder;
  }

  /** Deletes a superseded batch: the sidecar now (no new reader finds it), the Parquet after the grace period. */
  private async remove(dir: string, name: string): Promise<void> {
    const unlink = (f: string) => fs.unlink(path.join(dir, f)).catch(() => undefined);
    await unlink(`${name}.json`);
    setTimeout(() => void unlink(`${name}.parquet`), this.graceMs).unref();
  }
}
