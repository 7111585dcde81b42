// Read API, GET /v1/cost-data/summary and /v1/cost-data/by-end-user, status_counts: end to end over
// the shared data set (test/support/read-dataset.ts); every figure is worked out there from the
// data set and its rates, never by calling the api code.
import { describe, expect, it } from 'vitest';
import { apiGet, createTenant, ingest, lakeEventCount, llmEvent, startPipeline } from '../support/pipeline.js';
import {
  A,
  ALL_A,
  B,
  B_EVENTS,
  breakdown,
  completed,
  endUserId,
  expectValidation,
  get,
  iso,
  money,
  NOW,
  OCT,
  p,
  pct,
  priceA,
  sumOf,
  useReadDataset,
} from '../support/read-dataset.js';

useReadDataset();

describe('the lake holds the data set', () => {
  it('every event of A (plus the failed stand-in) and of B, nothing else', async () => {
    expect(await lakeEventCount(p, A.organizationId)).toBe(ALL_A.length + 1);
    expect(await lakeEventCount(p, B.organizationId)).toBe(B_EVENTS.length);
  });
});

describe('GET /v1/cost-data/summary', () => {
  const lakeCompleted = ALL_A.filter((e) => priceA(e).status === 'completed').length;

  function expectedSummary(cur: [string, string], prev: [string, string]) {
    const c = sumOf(completed(ALL_A, ...cur));
    const pv = sumOf(completed(ALL_A, ...prev));
    return {
      current_period_cost: money(c),
      previous_period_cost: money(pv),
      change_amount: money(c.minus(pv)),
      change_percent: pv.eq(0) ? null : pct(c.minus(pv), pv),
      period_start: new Date(cur[0]).toISOString(),
      period_end: new Date(cur[1]).toISOString(),
      event_count: completed(ALL_A, ...cur).length,
      status_counts: { completed: lakeCompleted, pending: 0, pending_rate_card: 2, failed: 1 },
    };
  }

  it('current-period (default): month to date against the same span of last month', async () => {
    const res = await get(A.readKey, '/cost-data/summary');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expectedSummary(['2026-10-01', '2026-10-20T12:00:00Z'], ['2026-09-01', '2026-09-20T12:00:00Z']));
    expect(res.body.change_percent).not.toBeNull();
  });

  it('last-period: last calendar month against the one before', async () => {
    const res = await get(A.readKey, '/cost-data/summary', { time_window: 'last-period' });
    expect(res.body).toEqual(expectedSummary(['2026-09-01', '2026-10-01'], ['2026-08-01', '2026-09-01']));
  });

  it('last-7-days: a rolling window with sub-day bounds against the 7 days before', async () => {
    const res = await get(A.readKey, '/cost-data/summary', { time_window: 'last-7-days' });
    expect(res.body).toEqual(
      expectedSummary(['2026-10-13T12:00:00Z', '2026-10-20T12:00:00Z'], ['2026-10-06T12:00:00Z', '2026-10-13T12:00:00Z']),
    );
  });

  it('ytd: change_percent is null when the previous period cost nothing', async () => {
    const res = await get(A.readKey, '/cost-data/summary', { time_window: 'ytd' });
    expect(res.body).toEqual(expectedSummary(['2026-01-01', '2026-10-20T12:00:00Z'], ['2025-01-01', '2025-10-20T12:00:00Z']));
    expect(res.body.change_percent).toBeNull();
  });

  it('400 naming time_window for an unknown window', async () => {
    expectValidation(await get(A.readKey, '/cost-data/summary', { time_window: 'last-week' }), 'time_window');
  });
});

describe('GET /v1/cost-data/by-end-user', () => {
  it('every end user and the unassigned bucket, summing to total_cost', async () => {
    const evs = completed(ALL_A, OCT.start_date, OCT.end_date);
    const { items, total_cost } = breakdown(evs, (e) => (e.user === null ? undefined : endUserId(A.organizationId, e.user)));
    const res = await get(A.readKey, '/cost-data/by-end-user', OCT);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      end_users: items.map(({ attribution_value, ...m }) => {
        const user = ALL_A.find((e) => e.user !== null && endUserId(A.organizationId, e.user) === attribution_value)?.user;
        return attribution_value === 'Unassigned'
          ? { end_user_id: 'unassigned', end_user_name: 'Unassigned', ...m }
          : { end_user_id: attribution_value, end_user_name: user, ...m };
      }),
      total_cost,
    });
    expect(res.body.end_users.map((u: any) => u.end_user_name).sort()).toEqual(['Unassigned', 'alice', 'bob', 'carol']);
  });

  it('400 when start is not before end', async () => {
    expectValidation(await get(A.readKey, '/cost-data/by-end-user', { start_date: '2026-10-02', end_date: '2026-10-01' }), 'start_date');
  });
});

describe('status_counts.pending: accepted but not yet in the lake', () => {
  it('counts ledger events the processor has not stored', async () => {
    const q = await startPipeline({ processor: false, now: () => NOW });
    try {
      const t = await createTenant(q);
      await ingest(q, t, [
        llmEvent('p-1', { timestamp: iso(10, 2) }),
        llmEvent('p-2', { timestamp: iso(10, 3) }),
        llmEvent('p-3', { timestamp: iso(10, 4) }),
      ]);
      const res = await apiGet(q, t.readKey, '/cost-data/summary');
      expect(res.body.status_counts).toEqual({ completed: 0, pending: 3, pending_rate_card: 0, failed: 0 });
      expect(res.body.current_period_cost).toBe('0');
      expect(res.body.event_count).toBe(0);
    } finally {
      await q.stop();
    }
  });
});
