// The admin view of a re-pricing job: what was asked, progress, and the result (events examined
// and changed, cost before and after, per partition). Pure.
import { Big, formatMoney, sumMoney } from '../core/money.js';
import type { Repricing } from './repricings.store.js';

interface RepricingPartitionView {
  partition: number;
  events_repriced: number;
  events_changed: number;
  cost_before: string;
  cost_after: string;
  finished_at: string;
}

export interface RepricingView {
  repricing_id: string;
  organization_id: string;
  /** ISO 8601 UTC, inclusive. */
  start_date: string;
  /** ISO 8601 UTC, exclusive. */
  end_date: string;
  /** `running`, then `completed`. */
  status: string;
  /** The organization's rates_version when asked; processors re-price with rates at least this new. */
  rates_version: number;
  /** Events in the range when asked (events arriving later are priced with the new cards anyway). */
  events_total: number;
  /** Events re-priced so far (finished partitions plus those under way). */
  events_repriced: number;
  /** Events whose cost, status or card changed (finished partitions). */
  events_changed: number;
  /** 0–100, two decimals; 100 only once completed. */
  progress_percent: number;
  /** Sum of total_cost of the re-priced events before and after (finished partitions), USD. */
  cost_before: string;
  cost_after: string;
  /** cost_after − cost_before. */
  cost_change: string;
  partitions_total: number;
  partitions_done: number;
  partitions: RepricingPartitionView[];
  created_at: string;
  completed_at: string | null;
}

export interface RepricingList {
  repricings: RepricingView[];
  total: number;
}

/** Progress in percent: examined events over the total, held below 100 until the job is completed. */
export function repricingProgress(job: Pick<Repricing, 'status' | 'eventsTotal'>, examined: number): number {
  if (job.status === 'completed') return 100;
  if (job.eventsTotal === 0) return 0;
  const percent = new Big(examined).times(100).div(job.eventsTotal).round(2, Big.roundDown);
  return Math.min(Number(percent.toFixed(2)), 99.99);
}

export function repricingView(job: Repricing): RepricingView {
  const finished = new Set(job.done.map((d) => d.partition));
  const examinedDone = job.done.reduce((n, d) => n + d.rowsExamined, 0);
  const examinedRunning = [...job.inFlight].filter(([p]) => !finished.has(p)).reduce((n, [, v]) => n + v, 0);
  const before = sumMoney(job.done.map((d) => d.costBefore));
  const after = sumMoney(job.done.map((d) => d.costAfter));
  return {
    repricing_id: job.id,
    organization_id: job.organizationId,
    start_date: job.start.toISOString(),
    end_date: job.end.toISOString(),
    status: job.status,
    rates_version: job.ratesVersion,
    events_total: job.eventsTotal,
    events_repriced: examinedDone + examinedRunning,
    events_changed: job.done.reduce((n, d) => n + d.rowsChanged, 0),
    progress_percent: repricingProgress(job, examinedDone + examinedRunning),
    cost_before: formatMoney(before),
    cost_after: formatMoney(after),
    cost_change: formatMoney(after.minus(before)),
    partitions_total: job.partitions.length,
    partitions_done: job.done.length,
    partitions: job.done.map((d) => ({
      partition: d.partition,
      events_repriced: d.rowsExamined,
      events_changed: d.rowsChanged,
      cost_before: formatMoney(d.costBefore),
      cost_after: formatMoney(d.costAfter),
      finished_at: d.finishedAt.toISOString(),
    })),
    created_at: job.createdAt.toISOString(),
    completed_at: job.completedAt?.toISOString() ?? null,
  };
}
