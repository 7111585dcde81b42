// Dimension backfill on the re-pricer's tick: a dimension defined through the admin API (POST
// /v1/admin/organizations/{id}/dimensions) reaches the lake writer's DimensionBook within about a
// second; from then on flushes roll it up, and this pass rewrites, in each partition this
// processor owns, the dimension rollups of the days written before (ProcessorLake.backfillDimensions,
// a bounded number of days per call, one manifest swap or fenced DuckLake commit each). Progress
// needs no record of its own: the manifests, or the open lake's dimension_coverage table, say which
// days are covered (GET .../dimensions/{key}/rollup reads them).
import type { Logger } from '../core/logger.js';
import { LakeFencedError, type ProcessorLake } from './lake/lake-writer.js';
import type { PartitionWorker } from './partition-worker.js';

export async function runDimensionBackfills(
  deps: { lake: ProcessorLake; logger: Logger },
  workers: readonly PartitionWorker[],
  stopped: () => boolean,
): Promise<void> {
  for (const w of workers) {
    if (stopped() || w.revoked || !w.loaded) continue;
    const generation = w.generation;
    try {
      const result = await deps.lake.backfillDimensions(w.partition);
      if (result.groups > 0) deps.logger.info({ partition: w.partition, ...result }, 'dimension rollups backfilled');
    } catch (err) {
      if (err instanceof LakeFencedError) {
        if (w.generation === generation) w.reset(err);
      } else {
        deps.logger.error({ err, partition: w.partition }, 'dimension backfill failed; will retry');
      }
    }
  }
}
