import { describe, expect, it } from 'vitest';
import { repricingProgress, repricingView } from '../../../pricing/repricing-view.js';
import type { Repricing } from '../../../pricing/repricings.store.js';
import { progressLine } from '../../../scripts/cli/progress-bar.js';

const job = (over: Partial<Repricing>): Repricing => ({
  id: 'r1',
  organizationId: 'o1',
  start: new Date('2025-03-01T00:00:00Z'),
  end: new Date('2025-04-01T00:00:00Z'),
  ratesVersion: 7,
  partitions: [0, 3],
  eventsTotal: 800,
  inFlight: new Map(),
  status: 'running',
  createdAt: new Date('2025-05-01T00:00:00Z'),
  completedAt: null,
  done: [],
  ...over,
});

describe('re-pricing progress and result', () => {
  it('counts finished partitions and the ones under way, held below 100 until completed', () => {
    const view = repricingView(
      job({
        inFlight: new Map([
          [0, 120],
          [3, 250],
        ]),
        done: [
          {
            partition: 0,
            rowsExamined: 500,
            rowsChanged: 490,
            costBefore: '1.25',
            costAfter: '1.5',
            finishedAt: new Date('2025-05-01T00:01:00Z'),
          },
        ],
      }),
    );
    // 500 done on partition 0 (its in-flight 120 is stale) + 250 under way on 3 = 750 of 800 = 93.75%
    expect(view).toMatchObject({
      events_repriced: 750,
      events_changed: 490,
      progress_percent: 93.75,
      cost_before: '1.25',
      cost_after: '1.5',
      cost_change: '0.25',
      partitions_total: 2,
      partitions_done: 1,
    });
    expect(repricingProgress({ status: 'running', eventsTotal: 10 }, 12)).toBe(99.99);
    expect(repricingProgress({ status: 'completed', eventsTotal: 0 }, 0)).toBe(100);
    expect(repricingProgress({ status: 'running', eventsTotal: 3 }, 1)).toBe(33.33);
  });

  it('draws the CLI bar', () => {
    expect(progressLine(50, 4000, 8000)).toBe('[###############···············]  50.00%  4,000 / 8,000 events');
    expect(progressLine(100, 8000, 8000)).toBe(`[${'#'.repeat(30)}] 100.00%  8,000 / 8,000 events`);
  });
});
