// The Overview's own data hooks (the shared ones are in api/queries.ts).
import { useApi } from '../../api/queries.js';
import type { PendingRateCards } from '../../api/types.js';
import { rangeQuery, type DateRange } from '../../range/date-range.js';

export const usePendingRateCards = (r: DateRange) => useApi<PendingRateCards>('/cost-data/pending-rate-card', rangeQuery(r));
