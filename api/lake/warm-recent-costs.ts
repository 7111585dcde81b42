// Warms the api's per-day cost aggregates after a start: for every organization in the lake (most
// rows first, until the DerivedCache's row budget is used up), builds the merged daily_costs rows
// of its last `days` whole UTC days in the DerivedCache, one week at a time, most recent week
// first, by running a cheap query over {{costs}}. A dashboard opened after a restart then finds them built instead of building 60 days
// inside its first requests. Requests interleave between steps (the cache serializes builds per
// organization and builds each day once, so a request never repeats the warm-up's work). Runs in
// the background; stop() ends it after the current step.
import type { Logger } from '../../core/logger.js';
import type { LakeQuery } from './lake-query.js';
import { DAY_MS } from '../../core/time.js';

export interface CostWarmUp {
  /** Settles when every step ran (or the warm-up stopped). */
  done: Promise<void>;
  stop(): Promise<void>;
}

export function warmRecentCosts(lake: LakeQuery, now: () => Date, logger: Logger, days: number): CostWarmUp {
  let stopped = false;
  const run = async () => {
    const orgs = await lake.duckLakeOrganizations();
    const today = Math.floor(now().getTime() / DAY_MS) * DAY_MS;
    const started = performance.now();
    for (const organizationId of orgs) {
      // With the row budget used up, a quieter organization's days would push out a busier one's.
      // Days read from persisted files count once copied into memory, after their request.
      await lake.cache.settled();
      if (lake.cache.full) break;
      for (let end = today; end > today - days * DAY_MS && !stopped; end -= 7 * DAY_MS) {
        const range = { start: new Date(Math.max(end - 7 * DAY_MS, today - days * DAY_MS)), end: new Date(end) };
        await lake.row({ organizationId, range }, 'SELECT count(*) AS n FROM {{costs}} c WHERE c.organization_id = $org');
      }
      if (stopped) return;
    }
    if (orgs.length > 0)
      logger.info({ organizations: orgs.length, days, ms: Math.round(performance.now() - started) }, 'cost aggregates warmed');
  };
  const done = run().catch((err) => logger.warn({ err }, 'warming cost aggregates failed'));
  return {
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}
