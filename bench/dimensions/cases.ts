// The dimension endpoints bench/dimensions measures (and bench/dimensions/profile.ts dissects):
// each as an HTTP path with its query and the service call that answers it in process.
import { costByDimension, dimensionValues } from '../../api/attribution/attribution.service.js';
import {
  dimensionCostBreakdown,
  dimensionCostTrend,
  dimensionNumericSummary,
  dimensionNumericTrend,
} from '../../api/dimension-data/dimension-data.service.js';
import { endUserByDimension } from '../../api/end-user-costs/end-user-costs.service.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { benchRanges } from '../api/http-cases.js';

export type Case = { name: string; path: string; query: Record<string, string>; service: (r: ReadContext) => Promise<unknown> };

export function dimensionCases(DAYS: number): Case[] {
  const { full, last30, fullSubDay } = benchRanges(DAYS);

  return [
    {
      name: 'cost-breakdown team (90 days)',
      path: '/dimension-data/cost-breakdown',
      query: { ...full, dimension_key: 'team' },
      service: (r) => dimensionCostBreakdown(r, { ...full, dimension_key: 'team' }),
    },
    {
      name: 'cost-breakdown region (30 days)',
      path: '/dimension-data/cost-breakdown',
      query: { ...last30, dimension_key: 'region' },
      service: (r) => dimensionCostBreakdown(r, { ...last30, dimension_key: 'region' }),
    },
    {
      name: 'cost-breakdown team (90 days, sub-day bounds)',
      path: '/dimension-data/cost-breakdown',
      query: { ...fullSubDay, dimension_key: 'team' },
      service: (r) => dimensionCostBreakdown(r, { ...fullSubDay, dimension_key: 'team' }),
    },
    {
      name: 'cost-trend team top 5 + Other (90 days)',
      path: '/dimension-data/cost-trend',
      query: { ...full, dimension_key: 'team' },
      service: (r) => dimensionCostTrend(r, { ...full, dimension_key: 'team' }),
    },
    {
      name: 'cost-trend team=sales (90 days)',
      path: '/dimension-data/cost-trend',
      query: { ...full, dimension_key: 'team', dimension_value: 'sales' },
      service: (r) => dimensionCostTrend(r, { ...full, dimension_key: 'team', dimension_value: 'sales' }),
    },
    {
      name: 'cost-trend team (30 days)',
      path: '/dimension-data/cost-trend',
      query: { ...last30, dimension_key: 'team' },
      service: (r) => dimensionCostTrend(r, { ...last30, dimension_key: 'team' }),
    },
    {
      name: 'numeric-trend latency_ms avg (90 days)',
      path: '/dimension-data/numeric-trend',
      query: { ...full, dimension_key: 'latency_ms', aggregation: 'avg' },
      service: (r) => dimensionNumericTrend(r, { ...full, dimension_key: 'latency_ms', aggregation: 'avg' }),
    },
    {
      name: 'numeric-summary latency_ms (90 days)',
      path: '/dimension-data/numeric-summary',
      query: { ...full, dimension_key: 'latency_ms' },
      service: (r) => dimensionNumericSummary(r, { ...full, dimension_key: 'latency_ms' }),
    },
    {
      name: 'attribution by-dimension team (90 days)',
      path: '/attribution-data/by-dimension',
      query: { ...full, dimension: 'team' },
      service: (r) => costByDimension(r, { ...full, dimension: 'team' }),
    },
    {
      name: 'attribution by-dimension team, agent_id=agent-3 (90 days)',
      path: '/attribution-data/by-dimension',
      query: { ...full, dimension: 'team', filter_key: 'agent_id', filter_value: 'agent-3' },
      service: (r) => costByDimension(r, { ...full, dimension: 'team', filter_key: 'agent_id', filter_value: 'agent-3' }),
    },
    {
      name: 'attribution by-dimension agent_id, team=sales (90 days)',
      path: '/attribution-data/by-dimension',
      query: { ...full, dimension: 'agent_id', filter_key: 'team', filter_value: 'sales' },
      service: (r) => costByDimension(r, { ...full, dimension: 'agent_id', filter_key: 'team', filter_value: 'sales' }),
    },
    {
      name: 'attribution dimension-values team (90 days)',
      path: '/attribution-data/dimension-values',
      query: { ...full, dimension: 'team' },
      service: (r) => dimensionValues(r, { ...full, dimension: 'team' }),
    },
    {
      name: 'end-user-costs user-0 by-dimension team (90 days)',
      path: '/end-user-costs/user-0/by-dimension',
      query: { ...full, dimension: 'team' },
      service: (r) => endUserByDimension(r, 'user-0', 'team', full.start_date, full.end_date),
    },
  ];
}
