// Data hooks several pages share (one query key per endpoint, parameters and organization, so pages
// reuse each other's answers and never show another organization's). A page's own hooks live in its folder.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { rangeQuery, type DateRange } from '../range/date-range.js';
import { apiGet, credentialScope, type Query } from './client.js';
import type { ByAgent, CostByEndUser, EndUserDirectory, MarginByEndUser, MarginOrgTotal, SeriesResponse } from './types.js';

/** `refreshMs` asks again every so often while it answers a number for the data (work under way). */
export function useApi<T>(path: string, query: Query = {}, enabled = true, refreshMs?: (data: T | undefined) => number | false) {
  return useQuery<T>({
    queryKey: [path, query, credentialScope()],
    queryFn: () => apiGet<T>(path, query),
    enabled,
    refetchInterval: refreshMs ? (q) => refreshMs(q.state.data) : undefined,
  });
}

/** A write that, once done, asks `refreshes` again, so the page shows what the server now holds. */
export function useWrite<R, V = void>(refreshes: string, write: (variables: V) => Promise<R>, done?: (answer: R) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: write,
    onSuccess: (answer: R) => {
      done?.(answer);
      return queryClient.invalidateQueries({ queryKey: [refreshes] });
    },
  });
}

export const useCostByEndUser = (r: DateRange) => useApi<CostByEndUser>('/cost-data/by-end-user', rangeQuery(r));
export const useMarginByEndUser = (r: DateRange) => useApi<MarginByEndUser>('/margin-data/by-end-user', rangeQuery(r));
export const useMarginSummary = (r: DateRange) => useApi<MarginOrgTotal>('/margin-data/summary', rangeQuery(r));
export const useByAgent = (r: DateRange) => useApi<ByAgent>('/attribution-data/by-agent', rangeQuery(r));
export const useEndUser = (endUserId: string) => useApi<EndUserDirectory>('/end-users', { end_user_id: endUserId });
export const useCostTrend = (r: DateRange, groupBy: string, top = 5) =>
  useApi<SeriesResponse & { group_by: string }>('/cost-data/trend', { ...rangeQuery(r), group_by: groupBy, top });
