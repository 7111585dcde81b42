// Read API, GET /v1/dimension-data/…: end to end over the shared data set (test/support/read-
// dataset.ts); every figure is worked out there from the data set and its rates, never by calling
// the api code.
import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import {
  A,
  ALL_A,
  B,
  breakdown,
  completed,
  dayOf,
  type Ev,
  expectNotFound,
  expectValidation,
  get,
  iso,
  metaString,
  mondayOf,
  money,
  OCT,
  points,
  priceA,
  sumOf,
  useReadDataset,
  within,
} from '../support/read-dataset.js';

useReadDataset();

describe('GET /v1/dimension-data/…', () => {
  const oct = () => completed(ALL_A, OCT.start_date, OCT.end_date);

  it('definitions: the organization’s dimensions by key', async () => {
    const res = await get(A.readKey, '/dimension-data/definitions');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.dimensions.map((d: any) => [d.key, d.value_type, d.is_required, d.organization_id])).toEqual([
      ['latency_ms', 'number', false, A.organizationId],
      ['region', 'string', false, A.organizationId],
      ['team', 'string', false, A.organizationId],
    ]);
    const other = await get(B.readKey, '/dimension-data/definitions');
    expect(other.body).toEqual({ dimensions: [], total: 0 });
  });

  it('cost-trend without a dimension: one Total series', async () => {
    const res = await get(A.readKey, '/dimension-data/cost-trend', OCT);
    expect(res.body).toEqual({ series: [{ key: 'total', label: 'Total', data_points: points(oct(), dayOf) }], granularity: 'daily' });
  });

  it('cost-trend with dimension_key: the top 5 values then Other', async () => {
    const team = (e: Ev) => metaString(e, 'team') ?? 'Unassigned';
    const totals = new Map<string, Big>();
    for (const e of oct()) totals.set(team(e), (totals.get(team(e)) ?? new Big(0)).plus(priceA(e).total));
    const ranked = [...totals].sort((a, b) => b[1].cmp(a[1]) || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
    expect(ranked.length).toBeGreaterThan(5);
    const top = ranked.slice(0, 5);
    const res = await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_key: 'team' });
    expect(res.body).toEqual({
      series: [
        ...top.map((v) => ({
          key: v,
          label: v,
          data_points: points(
            oct().filter((e) => team(e) === v),
            dayOf,
          ),
        })),
        {
          key: 'other',
          label: 'Other',
          data_points: points(
            oct().filter((e) => !top.includes(team(e))),
            dayOf,
          ),
        },
      ],
      granularity: 'daily',
    });
  });

  it('cost-trend with dimension_key and dimension_value: one series of that value', async () => {
    const res = await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_key: 'team', dimension_value: 'red' });
    expect(res.body).toEqual({
      series: [
        {
          key: 'red',
          label: 'red',
          data_points: points(
            oct().filter((e) => metaString(e, 'team') === 'red'),
            dayOf,
          ),
        },
      ],
      granularity: 'daily',
    });
    const unassigned = await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_key: 'team', dimension_value: 'Unassigned' });
    expect(unassigned.body.series[0].data_points).toEqual(
      points(
        oct().filter((e) => metaString(e, 'team') === undefined),
        dayOf,
      ),
    );
  });

  it('cost-trend errors: unknown dimension 404, value without key 400', async () => {
    expectNotFound(await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_key: 'nope' }));
    expectValidation(await get(A.readKey, '/dimension-data/cost-trend', { ...OCT, dimension_value: 'red' }), 'dimension_value');
  });

  // Numeric values count on every processed event (pending ones too), failed ones excepted.
  const numeric = (start: string, end: string) =>
    ALL_A.filter((e) => within(e, start, end) && typeof e.metadata?.latency_ms === 'number').map((e) => ({
      ts: e.ts,
      v: new Big(e.metadata!.latency_ms as number),
    }));

  it('numeric-trend: every bucket, null and 0 where no event carries the key', async () => {
    const range = { start_date: '2026-10-15', end_date: '2026-10-22' };
    const values = numeric(range.start_date, range.end_date);
    const res = await get(A.readKey, '/dimension-data/numeric-trend', { ...range, dimension_key: 'latency_ms', aggregation: 'avg' });
    const expected = [15, 16, 17, 18, 19, 20, 21].map((d) => {
      const date = iso(10, d);
      const vs = values.filter((x) => dayOf(x.ts) === date).map((x) => x.v);
      return {
        date,
        value: vs.length === 0 ? null : money(vs.reduce((a, b) => a.plus(b), new Big(0)).div(vs.length)),
        event_count: vs.length,
      };
    });
    expect(res.body).toEqual({ data_points: expected, granularity: 'daily', aggregation: 'avg', dimension_key: 'latency_ms' });
    expect(expected.filter((x) => x.value === null).length).toBeGreaterThan(0);
  });

  it('numeric-trend: interval overrides granularity; sum, min, max', async () => {
    const values = numeric(OCT.start_date, OCT.end_date);
    const weeks = ['2026-09-28', '2026-10-05', '2026-10-12', '2026-10-19'].map((d) => new Date(d).toISOString());
    for (const aggregation of ['sum', 'min', 'max'] as const) {
      const res = await get(A.readKey, '/dimension-data/numeric-trend', {
        ...OCT,
        dimension_key: 'latency_ms',
        aggregation,
        interval: 'weekly',
      });
      expect(res.body.granularity).toBe('weekly');
      expect(res.body.data_points).toEqual(
        weeks.map((date) => {
          const vs = values.filter((x) => mondayOf(x.ts) === date).map((x) => x.v);
          const agg =
            vs.length === 0
              ? null
              : aggregation === 'sum'
                ? vs.reduce((a, b) => a.plus(b), new Big(0))
                : vs.reduce((a, b) => (aggregation === 'min' ? (b.lt(a) ? b : a) : b.gt(a) ? b : a));
          return { date, value: agg === null ? null : money(agg), event_count: vs.length };
        }),
      );
    }
  });

  it('numeric-trend errors: string dimension 400, unknown 404, bad aggregation or interval 400', async () => {
    const base = { ...OCT, aggregation: 'sum' };
    expectValidation(await get(A.readKey, '/dimension-data/numeric-trend', { ...base, dimension_key: 'team' }), 'dimension_key');
    expectNotFound(await get(A.readKey, '/dimension-data/numeric-trend', { ...base, dimension_key: 'nope' }));
    expectValidation(
      await get(A.readKey, '/dimension-data/numeric-trend', { ...OCT, dimension_key: 'latency_ms', aggregation: 'median' }),
      'aggregation',
    );
    expectValidation(
      await get(A.readKey, '/dimension-data/numeric-trend', { ...base, dimension_key: 'latency_ms', interval: 'hourly' }),
      'interval',
    );
  });

  it('numeric-summary: sum, avg, min, max and count over the range', async () => {
    const vs = numeric(OCT.start_date, OCT.end_date).map((x) => x.v);
    const sum = vs.reduce((a, b) => a.plus(b), new Big(0));
    const res = await get(A.readKey, '/dimension-data/numeric-summary', { ...OCT, dimension_key: 'latency_ms' });
    expect(res.body).toEqual({
      dimension_key: 'latency_ms',
      period_start: '2026-10-01T00:00:00.000Z',
      period_end: '2026-10-20T00:00:00.000Z',
      event_count: vs.length,
      sum: money(sum),
      avg: money(sum.div(vs.length)),
      min: money(vs.reduce((a, b) => (b.lt(a) ? b : a))),
      max: money(vs.reduce((a, b) => (b.gt(a) ? b : a))),
    });
  });

  it('cost-breakdown: cost per value, Unassigned for events lacking it, share of the organization total', async () => {
    const { items, total_cost } = breakdown(oct(), (e) => metaString(e, 'team'));
    const res = await get(A.readKey, '/dimension-data/cost-breakdown', { ...OCT, dimension_key: 'team' });
    expect(res.body).toEqual({
      items: items.map((i) => ({
        dimension_value: i.attribution_value,
        total_cost: i.total_cost,
        input_tokens: i.input_tokens,
        output_tokens: i.output_tokens,
        event_count: i.event_count,
        percent_of_total: i.percent_of_total,
      })),
      total_cost,
    });
    expect(total_cost).toBe(money(sumOf(oct())));
    expectNotFound(await get(A.readKey, '/dimension-data/cost-breakdown', { ...OCT, dimension_key: 'nope' }));
    expectValidation(await get(A.readKey, '/dimension-data/cost-breakdown', OCT), 'dimension_key');
  });
});
