import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AppError, ValidationError } from '../../../core/errors.js';
import {
  adaptiveGranularity,
  addUtcMonths,
  assertMaxDays,
  assertMaxMonths,
  bucketStart,
  bucketStarts,
  parseDateParam,
  parseDateRange,
  timeWindow,
} from '../../../core/time.js';

const iso = (d: Date) => d.toISOString();
const range = (a: string, b: string) => ({ start: new Date(a), end: new Date(b) });

describe('date parameters', () => {
  it('reads a date alone as UTC midnight and datetimes with or without offsets', () => {
    expect(iso(parseDateParam('start_date', '2026-03-01')!)).toBe('2026-03-01T00:00:00.000Z');
    expect(iso(parseDateParam('start_date', '2026-03-01T10:15:30Z')!)).toBe('2026-03-01T10:15:30.000Z');
    expect(iso(parseDateParam('start_date', '2026-03-01T10:15:30.5+02:00')!)).toBe('2026-03-01T08:15:30.500Z');
    expect(iso(parseDateParam('start_date', '2026-03-01T10:15')!)).toBe('2026-03-01T10:15:00.000Z');
  });

  it.each(['', 'yesterday', '2026-02-30', '2026-13-01', '2026-03-01T25:00:00Z', '1700000000'])('rejects %j naming the field', (value) => {
    const err = (() => {
      try {
        parseDateParam('end_date', value);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe('end_date');
  });

  it("admits exactly what the OpenAPI document's IsoDateParam pattern admits, calendar included", () => {
    const doc = JSON.parse(fs.readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'));
    const pattern = new RegExp(doc.components.schemas.IsoDateParam.pattern);
    const parses = (v: string) => {
      try {
        return parseDateParam('start_date', v) !== null;
      } catch {
        return false;
      }
    };
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    let compared = 0;
    for (const year of [0, 50, 1900, 1996, 2000, 2023, 2024, 2026, 2100, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
          expect(pattern.test(date), date).toBe(parses(date));
          compared++;
        }
      }
    }
    for (const time of [
      'T00:00',
      't23:59:59',
      'T24:00',
      'T12:60',
      'T12:00:60',
      'T12:00:00.123456789Z',
      'T12:00:00.1234567890Z',
      'T12:00+23:59',
      'T12:00-2400',
      'T12:00+12:60',
      'T12:00z',
    ]) {
      expect(pattern.test(`2024-02-29${time}`), time).toBe(parses(`2024-02-29${time}`));
      compared++;
    }
    expect(compared).toBe(10 * 14 * 33 + 11);
    expect(iso(parseDateParam('start_date', '0050-03-01')!)).toBe('0050-03-01T00:00:00.000Z');
  });

  it('requires start strictly before end', () => {
    expect(() => parseDateRange('2026-03-02', '2026-03-02')).toThrow(/start_date/);
    expect(() => parseDateRange('2026-03-03', '2026-03-02')).toThrow(/start_date/);
    expect(parseDateRange('2026-03-01', '2026-03-02').end.toISOString()).toBe('2026-03-02T00:00:00.000Z');
  });

  it('caps ranges: 90 days is allowed, 90 days and 1 ms is not', () => {
    expect(() => assertMaxDays(range('2026-01-01T00:00:00Z', '2026-04-01T00:00:00Z'), 90)).not.toThrow(); // Jan31+Feb28+Mar31 = 90
    expect(() => assertMaxDays(range('2026-01-01T00:00:00Z', '2026-04-01T00:00:00.001Z'), 90)).toThrow(ValidationError);
  });

  it('12-month cap answers 422', () => {
    expect(() => assertMaxMonths(range('2025-03-01', '2026-03-01'), 12)).not.toThrow();
    try {
      assertMaxMonths(range('2025-03-01', '2026-03-02'), 12);
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).status).toBe(422);
      expect((e as AppError).code).toBe('DATE_RANGE_TOO_LARGE');
    }
  });
});

describe('granularity and buckets', () => {
  it('30 days daily, 31 weekly, 90 weekly, 91 monthly; partial days round up', () => {
    expect(adaptiveGranularity(range('2026-01-01', '2026-01-31'))).toBe('daily'); // 30 days
    expect(adaptiveGranularity(range('2026-01-01', '2026-02-01'))).toBe('weekly'); // 31
    expect(adaptiveGranularity(range('2026-01-01T00:00:00Z', '2026-01-31T00:00:01Z'))).toBe('weekly'); // 30 d + 1 s → 31
    expect(adaptiveGranularity(range('2026-01-01', '2026-04-01'))).toBe('weekly'); // 90
    expect(adaptiveGranularity(range('2026-01-01', '2026-04-02'))).toBe('monthly'); // 91
  });

  it('weeks start on Monday 00:00 UTC, months on the 1st', () => {
    // 2026-03-01 is a Sunday → its ISO week starts Monday 2026-02-23.
    expect(iso(bucketStart(new Date('2026-03-01T23:59:59Z'), 'weekly'))).toBe('2026-02-23T00:00:00.000Z');
    expect(iso(bucketStart(new Date('2026-03-02T00:00:00Z'), 'weekly'))).toBe('2026-03-02T00:00:00.000Z');
    expect(iso(bucketStart(new Date('2026-03-17T12:00:00Z'), 'monthly'))).toBe('2026-03-01T00:00:00.000Z');
    expect(bucketStarts(range('2026-02-27', '2026-03-10'), 'weekly').map(iso)).toEqual([
      '2026-02-23T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      '2026-03-09T00:00:00.000Z',
    ]);
  });

  it('adds calendar months clamping to the month end', () => {
    expect(iso(addUtcMonths(new Date('2026-01-31T00:00:00Z'), 1))).toBe('2026-02-28T00:00:00.000Z');
    expect(iso(addUtcMonths(new Date('2024-02-29T06:00:00Z'), 12))).toBe('2025-02-28T06:00:00.000Z');
  });
});

describe('cost summary windows', () => {
  const now = new Date('2026-03-15T12:00:00Z');
  it('current-period: month to date vs the same span of last month', () => {
    const w = timeWindow('current-period', now);
    expect([iso(w.current.start), iso(w.current.end)]).toEqual(['2026-03-01T00:00:00.000Z', '2026-03-15T12:00:00.000Z']);
    expect([iso(w.previous.start), iso(w.previous.end)]).toEqual(['2026-02-01T00:00:00.000Z', '2026-02-15T12:00:00.000Z']);
  });
  it('current-period late in a long month is clamped to the previous month end', () => {
    const w = timeWindow('current-period', new Date('2026-03-31T10:00:00Z'));
    expect(iso(w.previous.end)).toBe('2026-03-01T00:00:00.000Z');
  });
  it('last-period is the previous calendar month vs the one before', () => {
    const w = timeWindow('last-period', now);
    expect([iso(w.current.start), iso(w.current.end)]).toEqual(['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
    expect([iso(w.previous.start), iso(w.previous.end)]).toEqual(['2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z']);
  });
  it('rolling windows compare with the preceding window of equal length', () => {
    const w = timeWindow('last-7-days', now);
    expect([iso(w.current.start), iso(w.previous.start), iso(w.previous.end)]).toEqual([
      '2026-03-08T12:00:00.000Z',
      '2026-03-01T12:00:00.000Z',
      '2026-03-08T12:00:00.000Z',
    ]);
  });
  it('ytd vs the same span of last year; last-year vs the year before', () => {
    const ytd = timeWindow('ytd', now);
    expect([iso(ytd.current.start), iso(ytd.previous.start), iso(ytd.previous.end)]).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z',
      '2025-03-15T12:00:00.000Z',
    ]);
    const ly = timeWindow('last-year', now);
    expect([iso(ly.current.start), iso(ly.current.end), iso(ly.previous.start)]).toEqual([
      '2025-01-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2024-01-01T00:00:00.000Z',
    ]);
  });
});
