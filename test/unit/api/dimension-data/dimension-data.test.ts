import { describe, expect, it } from 'vitest';
import { assertAggregation, assertInterval, numericTrendPoints, numericValue } from '../../../../api/dimension-data/dimension-data.js';

describe('numericValue', () => {
  const g = { event_count: 3, sum_value: '10.000000000000', min_value: '1.500000000000', max_value: '6.000000000000' };
  it('gives each aggregate as a trimmed decimal string', () => {
    expect(numericValue(g, 'sum')).toBe('10');
    expect(numericValue(g, 'min')).toBe('1.5');
    expect(numericValue(g, 'max')).toBe('6');
    expect(numericValue(g, 'avg')).toBe('3.333333333333');
  });
  it('is null for an empty group', () => {
    expect(numericValue({ event_count: 0, sum_value: null, min_value: null, max_value: null }, 'avg')).toBeNull();
  });
});

describe('numericTrendPoints', () => {
  it('lists every bucket of the range, null and 0 where nothing was reported', () => {
    const range = { start: new Date('2025-03-05'), end: new Date('2025-03-20') };
    const points = numericTrendPoints(
      range,
      'weekly',
      [{ bucket: '2025-03-10', event_count: 2, sum_value: '3', min_value: '1', max_value: '2' }],
      'sum',
    );
    expect(points).toEqual([
      { date: '2025-03-03T00:00:00.000Z', value: null, event_count: 0 },
      { date: '2025-03-10T00:00:00.000Z', value: '3', event_count: 2 },
      { date: '2025-03-17T00:00:00.000Z', value: null, event_count: 0 },
    ]);
  });
});

describe('parameters', () => {
  it('rejects an unknown aggregation or interval naming the field', () => {
    expect(() => assertAggregation('median')).toThrow(expect.objectContaining({ field: 'aggregation' }));
    expect(() => assertInterval('hourly')).toThrow(expect.objectContaining({ field: 'interval' }));
    expect(assertInterval(undefined)).toBeNull();
    expect(assertAggregation('avg')).toBe('avg');
  });
});
