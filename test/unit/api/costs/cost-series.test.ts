import { describe, expect, it } from 'vitest';
import { bucketIso, seriesPoints, topValueSeries } from '../../../../api/costs/cost-series.js';

describe('seriesPoints', () => {
  it('orders buckets, adds rows of one bucket exactly, and omits buckets without events', () => {
    expect(
      seriesPoints([
        { bucket: '2025-03-10', event_count: 1, total_cost: '0.100000000000' },
        { bucket: '2025-03-03', event_count: 2, total_cost: '0.200000000000' },
        { bucket: '2025-03-10', event_count: 1, total_cost: '0.200000000001' },
        { bucket: '2025-03-17', event_count: 0, total_cost: '0' },
      ]),
    ).toEqual([
      { date: '2025-03-03T00:00:00.000Z', cost: '0.2', event_count: 2 },
      { date: '2025-03-10T00:00:00.000Z', cost: '0.300000000001', event_count: 2 },
    ]);
  });

  it('writes bucket dates as full ISO timestamps', () => {
    expect(bucketIso('2025-12-01')).toBe('2025-12-01T00:00:00.000Z');
  });
});

describe('topValueSeries', () => {
  const b = (bucket: string, group_value: string, total_cost: string) => ({ bucket, group_value, total_cost, event_count: 1 });

  it('keeps the 5 costliest values and adds the rest up as Other', () => {
    const rows = [
      b('2025-03-01', 'v1', '10'),
      b('2025-03-01', 'v2', '9'),
      b('2025-03-02', 'v3', '8'),
      b('2025-03-01', 'v4', '7'),
      b('2025-03-01', 'v5', '6'),
      b('2025-03-01', 'v6', '5'),
      b('2025-03-02', 'v7', '4'),
      b('2025-03-02', 'v1', '1'),
    ];
    const series = topValueSeries(rows);
    expect(series.map((s) => s.key)).toEqual(['v1', 'v2', 'v3', 'v4', 'v5', 'other']);
    expect(series[0]!.data_points).toEqual([
      { date: '2025-03-01T00:00:00.000Z', cost: '10', event_count: 1 },
      { date: '2025-03-02T00:00:00.000Z', cost: '1', event_count: 1 },
    ]);
    expect(series[5]).toEqual({
      key: 'other',
      label: 'Other',
      data_points: [
        { date: '2025-03-01T00:00:00.000Z', cost: '5', event_count: 1 },
        { date: '2025-03-02T00:00:00.000Z', cost: '4', event_count: 1 },
      ],
    });
  });

  it('has no Other series with 5 values or fewer; ties ranked by value', () => {
    const series = topValueSeries([b('2025-03-01', 'b', '1'), b('2025-03-01', 'a', '1')]);
    expect(series.map((s) => s.key)).toEqual(['a', 'b']);
  });
});
