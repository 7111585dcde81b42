// Read API, GET /v1/end-user-costs/{externalId}/…: end to end over the shared data set
// (test/support/read-dataset.ts); every figure is worked out there from the data set and its rates,
// never by calling the api code.
import { describe, expect, it } from 'vitest';
import {
  A,
  ALL_A,
  breakdown,
  completed,
  dayOf,
  endUserId,
  expectNotFound,
  expectValidation,
  featureOf,
  get,
  measures,
  metaString,
  mondayOf,
  OCT,
  points,
  useReadDataset,
} from '../support/read-dataset.js';

useReadDataset();

describe('GET /v1/end-user-costs/{externalId}/…', () => {
  const alice = () => completed(ALL_A, OCT.start_date, OCT.end_date).filter((e) => e.user === 'alice');
  const aliceId = () => endUserId(A.organizationId, 'alice');

  it('summary: totals of the end user', async () => {
    const res = await get(A.readKey, '/end-user-costs/alice/summary', OCT);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      end_user_id: aliceId(),
      external_id: 'alice',
      end_user_name: 'alice',
      period_start: '2026-10-01T00:00:00.000Z',
      period_end: '2026-10-20T00:00:00.000Z',
      ...measures(alice()),
    });
  });

  it('by-model and by-provider (no model or provider → Unassigned)', async () => {
    const byModel = await get(A.readKey, '/end-user-costs/alice/by-model', OCT);
    expect(byModel.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => e.model) });
    expect(byModel.body.items.map((i: any) => i.attribution_value)).toContain('Unassigned');
    const byProvider = await get(A.readKey, '/end-user-costs/alice/by-provider', OCT);
    expect(byProvider.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => e.provider) });
  });

  it('by-dimension: a metadata key, the typed feature, and a key no event carries', async () => {
    const team = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'team' });
    expect(team.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => metaString(e, 'team')) });
    const latency = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'latency_ms' });
    expect(latency.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => metaString(e, 'latency_ms')) });
    const feature = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'feature' });
    expect(feature.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), featureOf) });
    expect(feature.body.items.map((i: any) => i.attribution_value)).toContain('summarize');
    // agent_id was sent top-level only: the attribution field answers, as on /attribution-data.
    const agent = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'agent_id' });
    expect(agent.body).toEqual({ end_user_id: aliceId(), ...breakdown(alice(), (e) => e.agent) });
    expect(agent.body.items.map((i: any) => i.attribution_value)).toContain('planner');
    const none = await get(A.readKey, '/end-user-costs/alice/by-dimension', { ...OCT, dimension: 'no_such_key' });
    expect(none.body.items).toEqual([{ attribution_value: 'Unassigned', ...measures(alice()), percent_of_total: 100 }]);
    expectValidation(await get(A.readKey, '/end-user-costs/alice/by-dimension', OCT), 'dimension');
  });

  it('trend: daily up to 30 days, weekly from 31 days, gaps omitted', async () => {
    const daily = await get(A.readKey, '/end-user-costs/alice/trend', OCT);
    expect(daily.body).toEqual({
      end_user_id: aliceId(),
      series: [{ key: 'alice', label: 'alice', data_points: points(alice(), dayOf) }],
      granularity: 'daily',
    });
    const range = { start_date: '2026-09-01', end_date: '2026-10-20' }; // 49 days
    const weekly = await get(A.readKey, '/end-user-costs/alice/trend', range);
    const evs = completed(ALL_A, range.start_date, range.end_date).filter((e) => e.user === 'alice');
    expect(weekly.body.granularity).toBe('weekly');
    expect(weekly.body.series[0].data_points).toEqual(points(evs, mondayOf));
    const monthly = await get(A.readKey, '/end-user-costs/alice/trend', { start_date: '2026-07-01', end_date: '2026-10-20' });
    expect(monthly.body.granularity).toBe('monthly');
    const evsM = completed(ALL_A, '2026-07-01', '2026-10-20').filter((e) => e.user === 'alice');
    expect(monthly.body.series[0].data_points).toEqual(points(evsM, (ts) => `${ts.slice(0, 7)}-01T00:00:00.000Z`));
  });

  it('404 for an external id no event ever named; 400 before 404 for bad dates', async () => {
    for (const path of ['summary', 'by-model', 'by-provider', 'trend']) {
      expectNotFound(await get(A.readKey, `/end-user-costs/nobody/${path}`, OCT));
    }
    expectNotFound(await get(A.readKey, '/end-user-costs/nobody/by-dimension', { ...OCT, dimension: 'team' }));
    expectValidation(
      await get(A.readKey, '/end-user-costs/alice/summary', { start_date: 'yesterday', end_date: '2026-10-02' }),
      'start_date',
    );
  });
});
