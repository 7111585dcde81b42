// The api's view of the lake: which Parquet files to read for an organization and date range,
// taken from the partition manifests only (never by listing data directories), so a query sees
// each partition at one consistent manifest version. Manifests are cached and re-read when
// their stat changes; checks are throttled to refreshIntervalMs.
import fs from 'node:fs/promises';
import { utcDate } from '../time.js';
import { absolutePath, manifestDir, partitionOfManifestName, tableColumns, type LakeTable } from './layout.js';
import { decodeManifest, manifestStatKey, type Manifest, type ManifestFile } from './manifest.js';
import { parquetRelationSql } from './parquet-sql.js';

/** Instants: `from` inclusive, `to` exclusive. Files are chosen by UTC date, so the query must
 * still filter on event_timestamp for sub-day bounds. */
export interface LakeDateRange {
  from?: Date;
  to?: Date;
}

export interface LakeReaderOptions {
  /** Minimum time between two stat checks of the manifests. Default 250 ms. */
  refreshIntervalMs?: number;
}

interface CachedManifest {
  statKey: string;
  manifest: Manifest;
  /** table + '\0' + organization id → files */
  byOrg: Map<string, ManifestFile[]>;
}

function indexKey(table: LakeTable, organizationId: string): string {
  return `${table}\u0000${organizationId}`;
}

function indexManifest(manifest: Manifest): Map<string, ManifestFile[]> {
  const byOrg = new Map<string, ManifestFile[]>();
  for (const f of manifest.files) {
    const k = indexKey(f.table, f.organization_id);
    const list = byOrg.get(k);
    if (list) list.push(f);
    else byOrg.set(k, [f]);
  }
  return byOrg;
}

export class LakeReader {
  private readonly cache = new Map<number, CachedManifest>();
  private lastCheck = -Infinity;
  private refreshing: Promise<void> | null = null;
  /** Absolute path of each manifest entry, worked out once (entries are immutable; a re-read manifest has new ones). */
  private readonly absolutePaths = new WeakMap<ManifestFile, string>();

  private constructor(
    readonly lakeDir: string,
    private readonly refreshIntervalMs: number,
  ) {}

  static async open(lakeDir: string, options: LakeReaderOptions = {}): Promise<LakeReader> {
    const reader = new LakeReader(lakeDir, options.refreshIntervalMs ?? 250);
    await reader.refresh(true);
    return reader;
  }

  /** Absolute paths of the live files of one table for one organization, dates within range. */
  async files(table: LakeTable, organizationId: string, range: LakeDateRange = {}): Promise<string[]> {
    return (await this.entries(table, organizationId, range)).map((f) => this.absolute(f)).sort();
  }

  /** The absolute path of one of this reader's entries. */
  absolute(f: ManifestFile): string {
    let p = this.absolutePaths.get(f);
    if (p === undefined) this.absolutePaths.set(f, (p = absolutePath(this.lakeDir, f.path)));
    return p;
  }

  /** The manifest entries of those files (paths relative to the lake), every partition's. */
  async entries(table: LakeTable, organizationId: string, range: LakeDateRange = {}): Promise<ManifestFile[]> {
    await this.refresh(false);
    const fromDate = range.from ? utcDate(range.from) : null;
    const toDate = range.to ? utcDate(new Date(range.to.getTime() - 1)) : null;
    const out: ManifestFile[] = [];
    const key = indexKey(table, organizationId);
    for (const cached of this.cache.values()) {
      for (const f of cached.byOrg.get(key) ?? []) {
        if (fromDate !== null && f.date < fromDate) continue;
        if (toDate !== null && f.date > toDate) continue;
        out.push(f);
      }
    }
    return out;
  }

  /**
   * SQL relation (parenthesized, usable after FROM) over those files; an empty relation with the
   * table's columns when there are none. Filter on organization_id first in the query anyway.
   */
  async relation(table: LakeTable, organizationId: string, range: LakeDateRange = {}): Promise<string> {
    return parquetRelationSql(await this.files(table, organizationId, range), tableColumns(table));
  }

  /** The current manifest of every partition, by partition number. */
  async manifests(): Promise<Map<number, Manifest>> {
    await this.refresh(false);
    return new Map([...this.cache].map(([p, c]) => [p, c.manifest]));
  }

  /** Re-read manifests whose stat changed; `force` ignores the throttle. */
  async refresh(force = true): Promise<void> {
    if (!force && performance.now() - this.lastCheck < this.refreshIntervalMs) return;
    if (this.refreshing) return this.refreshing;
    this.refreshing = this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const dir = manifestDir(this.lakeDir);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      names = [];
    }
    const seen = new Set<number>();
    await Promise.all(
      names.map(async (name) => {
        const partition = partitionOfManifestName(name);
        if (partition === null) return;
        const file = `${dir}/${name}`;
        const statKey = await manifestStatKey(file);
        if (statKey === null) return;
        seen.add(partition);
        if (this.cache.get(partition)?.statKey === statKey) return;
        const manifest = decodeManifest(await fs.readFile(file, 'utf8'), partition);
        this.cache.set(partition, { statKey, manifest, byOrg: indexManifest(manifest) });
      }),
    );
    for (const p of [...this.cache.keys()]) if (!seen.has(p)) this.cache.delete(p);
    this.lastCheck = performance.now();
  }
}
