// Re-pricing history on request: the admin API records a job (organization, range, the
// rates_version then, the lake partitions holding the range's events); every processor, on the
// re-pricer's tick, re-prices each listed partition it owns with the organization's rates now and
// records the partition done. Path: admin POST → control plane `repricings` → this tick (reads the
// job, waits for its RateBook to reach the job's rates_version) → partition lock → flush the
// buffer → lake rewrite (one manifest swap per partition; budget spend follows it through
// PartitionWorker.rewriteRows, alerts/evaluation/rewrite-spend.ts) → control plane `repricing_partitions`.
//
// Exactly once: each event's cost is replaced by priceEvent's result for the current cards, never
// added to, and the rewrite swaps whole (organization, date) groups — events and rollups — in one
// manifest commit, so readers see every event's old cost or its new one, never both. A processor
// killed after the swap but before recording re-runs the partition: the same rates give the same
// costs, so nothing changes twice.
import { Big } from '../core/money.js';
import type { LakeEventRow } from '../core/lake/events-schema.js';
import type { Queryable } from '../core/control/db.js';
import type { Logger } from '../core/logger.js';
import { priceEvent, type PricedCost, type PricingRates } from '../pricing/price-event.js';
import type { RateBook } from '../pricing/rate-book.js';
import { listRunningRepricings, recordRepricedPartition, reportRepricingProgress, type Repricing } from '../pricing/repricings.store.js';
import { LakeFencedError, type ProcessorLake } from './lake/lake-writer.js';
import type { PartitionWorker } from './partition-worker.js';
import { costFits, priceableFromRow, rowWithCost } from './to-lake-row.js';
import { utcDate } from '../core/time.js';

/** What one partition's re-pricing saw: events in range, those whose cost changed, totals before and after. */
export interface RepricingTally {
  examined: number;
  changed: number;
  before: Big;
  after: Big;
}

export function emptyTally(): RepricingTally {
  return { examined: 0, changed: 0, before: new Big(0), after: new Big(0) };
}

const COST_COLUMNS = [
  'input_cost',
  'output_cost',
  'cache_creation_cost',
  'cache_creation_1h_cost',
  'cache_read_cost',
  'reasoning_cost',
  'unit_cost',
  'total_cost',
] as const;

function sameMoney(a: string | null, b: string | null): boolean {
  return a === null || b === null ? a === b : new Big(a).eq(b);
}

/** Whether re-pricing left the row as it was (cost, status and the card that priced it). */
function unchanged(a: LakeEventRow, b: LakeEventRow): boolean {
  return (
    a.status === b.status &&
    COST_COLUMNS.every((c) => sameMoney(a[c], b[c])) &&
    a.rate_card_id === b.rate_card_id &&
    a.context_tier_above_prompt_tokens === b.context_tier_above_prompt_tokens &&
    (a.time_of_day_window ?? null) === b.time_of_day_window &&
    a.pricing_note === b.pricing_note
  );
}

/**
 * The rewrite transform of a history re-pricing: every completed or pending event with
 * event_timestamp in [start, end) priced again with `rates`; the replacement when anything about
 * its price changed, else null. Counts into `tally`.
 */
export function repriceHistoryTransform(
  rates: PricingRates,
  range: { start: Date; end: Date },
  pricedAt: Date,
  tally: RepricingTally,
): (row: LakeEventRow) => LakeEventRow | null {
  const start = range.start.getTime();
  const end = range.end.getTime();
  return (row) => {
    const at = row.event_timestamp.getTime();
    if (row.status === 'failed' || at < start || at >= end) return null;
    tally.examined++;
    tally.before = tally.before.plus(row.total_cost);
    let cost: PricedCost;
    try {
      cost = priceEvent(priceableFromRow(row), rates);
    } catch {
      tally.after = tally.after.plus(row.total_cost); // cannot be priced now either: kept as it is
      return null;
    }
    const next = costFits(cost) ? rowWithCost(row, cost, pricedAt) : row;
    tally.after = tally.after.plus(next.total_cost);
    if (next === row || unchanged(row, next)) return null;
    tally.changed++;
    return next;
  };
}

export interface RepricingJobDeps {
  lake: ProcessorLake;
  rateBook: RateBook;
  db: Queryable;
  logger: Logger;
  clock: () => Date;
}

/** One pass: every running job's partitions that this processor owns and has not finished. */
export async function runRepricingJobs(deps: RepricingJobDeps, workers: readonly PartitionWorker[], stopped: () => boolean): Promise<void> {
  const owned = workers.filter((w) => !w.revoked && w.loaded);
  if (owned.length === 0) return;
  for (const job of await listRunningRepricings(deps.db)) {
    const finished = new Set(job.done.map((d) => d.partition));
    for (const w of owned) {
      if (stopped()) return;
      if (!job.partitions.includes(w.partition) || finished.has(w.partition)) continue;
      // The RateBook re-reads an organization's version at most once a second; until it has the
      // cards the job was asked with, wait for a later tick.
      if ((await deps.rateBook.versionFor(job.organizationId)) < job.ratesVersion) continue;
      await repricePartition(deps, w, job, await deps.rateBook.ratesFor(job.organizationId));
    }
  }
}

const PROGRESS_EVERY_MS = 500;

/** The transform, reporting progress at most every PROGRESS_EVERY_MS (the rewrite awaits it). */
function withProgress(
  transform: (row: LakeEventRow) => LakeEventRow | null,
  report: () => Promise<void>,
): (row: LakeEventRow) => LakeEventRow | null | Promise<LakeEventRow | null> {
  let last = Date.now();
  return (row) => {
    const out = transform(row);
    if (Date.now() - last < PROGRESS_EVERY_MS) return out;
    last = Date.now();
    return report().then(() => out);
  };
}

async function repricePartition(deps: RepricingJobDeps, w: PartitionWorker, job: Repricing, rates: PricingRates): Promise<void> {
  await w.lock.runExclusive(async () => {
    const generation = w.generation;
    if (w.revoked || !w.loaded) return;
    // Rows priced before the RateBook reached the job's version may still be in memory: land them first.
    await w.flushAll();
    if (w.revoked || w.generation !== generation) return;
    const tally = emptyTally();
    try {
      const result = await w.rewriteRows(
        {
          organizationId: job.organizationId,
          statuses: ['completed', 'pending_rate_card'],
          fromDate: utcDate(job.start),
          toDate: utcDate(new Date(job.end.getTime() - 1)),
        },
        withProgress(repriceHistoryTransform(rates, job, deps.clock(), tally), () =>
          reportRepricingProgress(deps.db, job.id, w.partition, tally.examined).catch((err: unknown) =>
            deps.logger.warn({ err, repricingId: job.id }, 're-pricing progress not recorded'),
          ),
        ),
      );
      await recordRepricedPartition(deps.db, job.id, {
        partition: w.partition,
        rowsExamined: tally.examined,
        rowsChanged: tally.changed,
        costBefore: tally.before.toFixed(),
        costAfter: tally.after.toFixed(),
      });
      deps.logger.info(
        {
          repricingId: job.id,
          organizationId: job.organizationId,
          partition: w.partition,
          examined: tally.examined,
          changed: tally.changed,
          groups: result.groups,
        },
        're-priced history',
      );
    } catch (err) {
      if (err instanceof LakeFencedError) {
        if (w.generation === generation) w.reset(err);
      } else {
        deps.logger.error({ err, repricingId: job.id, partition: w.partition }, 're-pricing history failed; will retry');
      }
    }
  });
}
