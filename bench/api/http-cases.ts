// The read endpoints bench/api times over HTTP (its cold and warm passes, and bench/api-rss),
// with the ranges they ask for over bench/api's synthetic lake of `days` days from FIRST_DAY.
import { FIRST_DAY } from './bench-lake.js';

type Query = Record<string, string>;

type Range = { start_date: string; end_date: string };

/** The YYYY-MM-DD date `offsetDays` after the synthetic lake's first day. */
export const benchDay = (offsetDays: number): string => new Date(FIRST_DAY.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);

export function benchRanges(days: number): { full: Range; last30: Range; last7: Range; fullSubDay: Range } {
  const day = benchDay;
  return {
    full: { start_date: day(0), end_date: day(days) },
    last30: { start_date: day(days - 30), end_date: day(days) },
    last7: { start_date: day(days - 7), end_date: day(days) },
    /** A range with sub-day bounds: rollups for whole days, raw events for the two ends. */
    fullSubDay: { start_date: `${day(0)}T06:30:00Z`, end_date: `${day(days - 1)}T18:45:00Z` },
  };
}

/** [name, path, query] of every endpoint bench/api measures. */
export function httpCases(days: number): Array<[string, string, Query]> {
  const { full, last30, last7, fullSubDay } = benchRanges(days);
  return [
    ['GET /usage/events (90 days, first page of 100)', '/usage/events', { ...full }],
    ['GET /usage/events (90 days, offset 10000)', '/usage/events', { ...full, offset: '10000' }],
    ['GET /usage/events (7 days, metric_name=tokens, limit 1000)', '/usage/events', { ...last7, metric_name: 'tokens', limit: '1000' }],
    ['GET /usage/summary (90 days)', '/usage/summary', full],
    ['GET /usage/aggregation (90 days)', '/usage/aggregation', full],
    ['GET /cost-data/summary (current-period)', '/cost-data/summary', {}],
    ['GET /cost-data/summary (last-90-days)', '/cost-data/summary', { time_window: 'last-90-days' }],
    ['GET /cost-data/by-end-user (90 days)', '/cost-data/by-end-user', full],
    ['GET /cost-data/by-end-user (90 days, sub-day bounds)', '/cost-data/by-end-user', fullSubDay],
    ['GET /cost-data/by-end-user (30 days)', '/cost-data/by-end-user', last30],
    ['GET /end-user-costs/user-0/summary (90 days)', '/end-user-costs/user-0/summary', full],
    ['GET /end-user-costs/user-0/by-model (90 days)', '/end-user-costs/user-0/by-model', full],
    ['GET /end-user-costs/user-0/by-provider (90 days)', '/end-user-costs/user-0/by-provider', full],
    [
      'GET /end-user-costs/user-0/by-dimension?dimension=feature (90 days)',
      '/end-user-costs/user-0/by-dimension',
      { ...full, dimension: 'feature' },
    ],
    [
      'GET /end-user-costs/user-0/by-dimension?dimension=team (90 days)',
      '/end-user-costs/user-0/by-dimension',
      { ...full, dimension: 'team' },
    ],
    ['GET /end-user-costs/user-0/trend (90 days, weekly)', '/end-user-costs/user-0/trend', full],
    ['GET /end-user-costs/user-500/trend (30 days, daily)', '/end-user-costs/user-500/trend', last30],
    ['GET /dimension-data/definitions', '/dimension-data/definitions', {}],
    ['GET /dimension-data/cost-trend (90 days, total)', '/dimension-data/cost-trend', full],
    [
      'GET /dimension-data/cost-trend?dimension_key=team (90 days, top 5 + Other)',
      '/dimension-data/cost-trend',
      { ...full, dimension_key: 'team' },
    ],
    [
      'GET /dimension-data/cost-trend?dimension_key=team&dimension_value=sales (90 days)',
      '/dimension-data/cost-trend',
      { ...full, dimension_key: 'team', dimension_value: 'sales' },
    ],
    ['GET /dimension-data/cost-trend?dimension_key=team (30 days)', '/dimension-data/cost-trend', { ...last30, dimension_key: 'team' }],
    [
      'GET /dimension-data/numeric-trend latency_ms avg (90 days)',
      '/dimension-data/numeric-trend',
      { ...full, dimension_key: 'latency_ms', aggregation: 'avg' },
    ],
    [
      'GET /dimension-data/numeric-summary latency_ms (90 days)',
      '/dimension-data/numeric-summary',
      { ...full, dimension_key: 'latency_ms' },
    ],
    [
      'GET /dimension-data/cost-breakdown?dimension_key=team (90 days)',
      '/dimension-data/cost-breakdown',
      { ...full, dimension_key: 'team' },
    ],
    [
      'GET /dimension-data/cost-breakdown?dimension_key=region (30 days)',
      '/dimension-data/cost-breakdown',
      { ...last30, dimension_key: 'region' },
    ],
    ['GET /rates', '/rates', {}],
  ];
}

export function pathOf(p: string, q: Query): string {
  const qs = new URLSearchParams(q).toString();
  return `${p}${qs ? `?${qs}` : ''}`;
}
