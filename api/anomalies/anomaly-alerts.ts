// The cost.anomaly webhook: a periodic tick in the api process (not the processor's flush, whose
// hot path keeps only budget tallies and has no per-day history per end user, agent, model and
// feature: the baseline needs 28 days of the lake that the api already reads; docs/decisions/0126).
// Each tick, for every organization with an endpoint subscribed to cost.anomaly (or '*'), it runs
// the GET's own evaluation (costAnomalies) for yesterday and today (UTC) and writes each spike to
// the outbox with fireOnce under the key cost.anomaly:<date>:<dimension>:<value>, so a spike fires
// exactly once per (organization, date, dimension, value) however many ticks or api replicas see it.
// Today's completed hours are judged too (the GET's hourly items); an hourly spike is keyed
// cost.anomaly:<hour>:<dimension>:<value> ('2026-11-27T14:00:00Z'), so it fires once per flagged
// hour, apart from the day's own firing.
// Today's spike fires as soon as today's cost so far crosses the rule (a day's cost only grows);
// yesterday is looked at again for events that arrived late.
import type { Queryable } from '../../core/control/db.js';
import type { Logger } from '../../core/logger.js';
import { DAY_MS, utcDate } from '../../core/time.js';
import { fireOnce } from '../../alerts/webhooks/outbox.js';
import type { LakeQuery } from '../lake/lake-query.js';
import { costAnomalies } from './anomalies.service.js';
import { organizationsWatchingAnomalies } from './anomalies.queries.js';

export interface AnomalyAlertOptions {
  /** Time between ticks; default 5 minutes; 0 = no tick. */
  intervalMs?: number;
}

/** One tick: returns the number of cost.anomaly events written now. */
async function evaluateAnomalyAlerts(db: Queryable, lake: LakeQuery, now: Date): Promise<number> {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const dates = [utcDate(new Date(today - DAY_MS)), utcDate(new Date(today))];
  let fired = 0;
  for (const organizationId of await organizationsWatchingAnomalies(db)) {
    for (const a of await costAnomalies(lake, organizationId, dates, now)) {
      const key = `cost.anomaly:${a.hour ?? a.date}:${a.dimension}:${a.value}`;
      if (await fireOnce(db, organizationId, key, 'cost.anomaly', a)) fired++;
    }
  }
  return fired;
}

/** Runs evaluateAnomalyAlerts every intervalMs (never two at once) until stop(). */
export function startAnomalyAlerts(db: Queryable, lake: LakeQuery, now: () => Date, logger: Logger, options: AnomalyAlertOptions = {}) {
  const intervalMs = options.intervalMs ?? 5 * 60_000;
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (running) return; // a slow tick is not stacked on
    running = evaluateAnomalyAlerts(db, lake, now())
      .catch((err) => logger.warn({ err }, 'evaluating cost anomalies failed; next tick retries'))
      .finally(() => (running = null));
  };
  const timer = intervalMs > 0 ? setInterval(tick, intervalMs) : null;
  timer?.unref();
  return {
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
