// The Overview's own data hooks (the shared ones are in api/queries.ts), and the shapes of the
// decision reads it alone shows (forecast, anomalies), from the OpenAPI document's types.
import { useApi } from '../../api/queries.js';
import type { PendingRateCards } from '../../api/types.js';
import { addDays } from '../../format/dates.js';
import { rangeQuery, type DateRange } from '../../range/date-range.js';
import type { components } from '../../../../sdks/typescript/src/generated/openapi.js';

export type Forecast = components['schemas']['Forecast'];
export type ForecastFigure = components['schemas']['ForecastFigure'];
export type Anomaly = components['schemas']['Anomaly'];
type AnomalyList = components['schemas']['AnomalyList'];

/** GET /v1/anomalies reads at most 90 days: the range's last 90. */
const ANOMALY_DAYS = 90;

export const usePendingRateCards = (r: DateRange) => useApi<PendingRateCards>('/cost-data/pending-rate-card', rangeQuery(r));
export const useMonthEndForecast = () => useApi<Forecast>('/forecasts', { horizon: 'month-end' });
export const useAnomalies = (r: DateRange) => {
  // The later of the range's start and 90 days before its end (ISO dates order as text).
  const start = [r.start, addDays(r.end, -ANOMALY_DAYS)].sort()[1];
  return useApi<AnomalyList>('/anomalies', { start_date: start, end_date: r.end });
};
