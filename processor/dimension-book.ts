// The processor's view of each organization's defined dimensions, for the lake's dimension
// rollups (core/lake/dimension-rollups.ts). Cached per organization and re-read at most every
// `refreshMs` (one query for every stale organization of a flush), like the RateBook's rates
// version, so a new dimension is rolled up by flushes within about a second. A failed read keeps
// the last answer (or none): a flush never fails for it; files written without a key are simply
// not covered for it, and the read path falls back to raw events there (until a backfill).
import type { Queryable } from '../core/control/db.js';
import { listDimensionKeys } from '../core/control/dimensions.js';
import type { DimensionSource, LakeDimension } from '../core/lake/dimension-rollups.js';
import type { Logger } from '../core/logger.js';

interface Entry {
  dimensions: LakeDimension[];
  checkedAt: number;
}

export class DimensionBook implements DimensionSource {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger | null = null,
    private readonly refreshMs = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  async dimensionsOf(organizationIds: readonly string[]): Promise<Map<string, readonly LakeDimension[]>> {
    const now = this.now();
    const stale = organizationIds.filter((id) => {
      const e = this.entries.get(id);
      return !e || now - e.checkedAt >= this.refreshMs;
    });
    if (stale.length > 0) await this.load(stale, now);
    return new Map(organizationIds.map((id) => [id, this.entries.get(id)?.dimensions ?? []]));
  }

  private async load(organizationIds: readonly string[], now: number): Promise<void> {
    try {
      const rows = await listDimensionKeys(this.db, organizationIds);
      const fresh = new Map<string, LakeDimension[]>(organizationIds.map((id) => [id, []]));
      for (const r of rows) fresh.get(r.organizationId)?.push({ key: r.key, type: r.valueType });
      for (const [id, dimensions] of fresh) this.entries.set(id, { dimensions, checkedAt: now });
    } catch (err) {
      this.logger?.warn({ err }, 'dimension definitions not read; flushing with the last known ones');
    }
  }
}
