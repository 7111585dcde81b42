// Re-pricing: when an organization's rates change (its rates_version, seen through the RateBook
// within about a second), its pending_rate_card events in this processor's partitions are priced
// again, and those the new cards price are rewritten in the lake as completed. The partitions'
// manifests say (status_counts) which organizations have pending rows, so nothing is read when
// none do.
//
// Never counting an event twice: the rewrite replaces whole (organization, date) groups in one
// manifest swap (the lake's rewrite), and it runs under the partition's lock after flushing the
// partition's buffer, with the RateBook already at the new version. So every row priced with the
// old rates is in the lake before the rewrite reads it, and every row priced after uses the new
// rates; none can slip between the two as a stale pending row.
import type { Queryable } from '../core/control/db.js';
import { listRatesVersions } from '../pricing/rate-cards.store.js';
import type { Logger } from '../core/logger.js';
import { priceEvent, type PricingRates } from '../pricing/price-event.js';
import type { RateBook } from '../pricing/rate-book.js';
import { LakeFencedError, type ProcessorLake, type PartitionManifestView } from './lake/lake-writer.js';
import { repricedEvents, repricingDuration } from './metrics.js';
import type { PartitionWorker } from './partition-worker.js';
import { priceableFromRow, repricedLakeRow } from './to-lake-row.js';
import type { LakeEventRow } from '../core/lake/events-schema.js';
import { runRepricingJobs } from './repricing-jobs.js';
import { runDimensionBackfills } from './dimension-backfill-jobs.js';

export interface RepricerDeps {
  lake: ProcessorLake;
  rateBook: RateBook;
  /** The control plane, for every organization's rates_version in one query per tick, and re-pricing jobs. */
  db: Queryable;
  logger: Logger;
  clock: () => Date;
  intervalMs: number;
  /** The partitions this processor owns now. */
  workers(): PartitionWorker[];
}

/** Organizations with pending_rate_card rows in a partition, from its manifest alone. */
export function organizationsWithPendingRows(view: Pick<PartitionManifestView, 'files' | 'pendingOrganizations'>): string[] {
  if (view.pendingOrganizations) return [...view.pendingOrganizations].sort();
  const orgs = new Set<string>();
  for (const f of view.files) {
    if (f.table !== 'events') continue;
    // A file without status counts might hold pending rows; look.
    if (!f.status_counts || f.status_counts.pending_rate_card > 0) orgs.add(f.organization_id);
  }
  return [...orgs].sort();
}

/** The rewrite transform: the completed replacement of a pending row, or null to keep it. */
export function repriceTransform(rates: PricingRates, pricedAt: Date): (row: LakeEventRow) => LakeEventRow | null {
  return (row) => {
    if (row.status !== 'pending_rate_card') return null;
    try {
      return repricedLakeRow(row, priceEvent(priceableFromRow(row), rates), pricedAt);
    } catch {
      return null; // still cannot be priced; stays pending
    }
  };
}

export class Repricer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: RepricerDeps) {}

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick()
        .catch((err) => this.deps.logger.error({ err }, 're-pricing pass failed'))
        .finally(() => {
          this.running = null;
          if (!this.stopped) this.timer = setTimeout(loop, this.deps.intervalMs);
        });
    };
    this.timer = setTimeout(loop, this.deps.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /**
   * One look at every owned partition; re-prices where an organization with pending rows has
   * rates newer than its last pass (every organization once per assignment, then on change).
   */
  async tick(): Promise<void> {
    const workers = this.deps.workers().filter((w) => !w.revoked && w.loaded);
    if (workers.length === 0) return;
    const versions = await listRatesVersions(this.deps.db);
    for (const w of workers) {
      if (this.stopped) return;
      const generation = w.generation;
      const view = await this.deps.lake.readManifest(w.partition).catch(() => null);
      if (!view) continue;
      for (const org of organizationsWithPendingRows(view)) {
        if (this.stopped || w.revoked || w.generation !== generation) break;
        const wanted = versions.get(org) ?? 0;
        if ((w.repricedVersions.get(org) ?? -1) >= wanted) continue;
        // The RateBook re-reads an organization's version at most once a second; until it has
        // caught up with the control plane, wait for a later tick.
        const version = await this.deps.rateBook.versionFor(org);
        if (version < wanted) continue;
        const rates = await this.deps.rateBook.ratesFor(org);
        await this.reprice(w, org, rates, version);
      }
    }
    // Re-pricing history asked through the admin API (processor/repricing-jobs.ts).
    await runRepricingJobs(this.deps, workers, () => this.stopped);
    // Dimensions defined since days were written (processor/dimension-backfill-jobs.ts).
    await runDimensionBackfills(this.deps, workers, () => this.stopped);
  }

  private async reprice(w: PartitionWorker, org: string, rates: PricingRates, version: number): Promise<void> {
    await w.lock.runExclusive(async () => {
      const generation = w.generation;
      if (w.revoked || !w.loaded) return;
      const started = performance.now();
      // Rows priced before the RateBook reached `version` may still be in memory: land them first.
      await w.flushAll();
      if (w.revoked || w.generation !== generation) return;
      try {
        const result = await w.rewriteRows(
          { organizationId: org, statuses: ['pending_rate_card'] },
          repriceTransform(rates, this.deps.clock()),
        );
        w.repricedVersions.set(org, version);
        repricingDuration.observe((performance.now() - started) / 1000);
        if (result.rowsChanged > 0) {
          repricedEvents.inc(result.rowsChanged);
          this.deps.logger.info(
            { partition: w.partition, organizationId: org, ratesVersion: version, ...result },
            're-priced pending events',
          );
        }
      } catch (err) {
        // A fence means another processor owns the partition now; any other failure changed
        // nothing (the manifest swap is the last step) and the next tick tries again.
        if (err instanceof LakeFencedError) {
          if (w.generation === generation) w.reset(err);
        } else {
          this.deps.logger.error({ err, partition: w.partition, organizationId: org }, 're-pricing rewrite failed; will retry');
        }
      }
    });
  }
}
