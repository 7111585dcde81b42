// The Customers page's own data hook: price advice (GET /v1/forecasts/price-advice) for a target
// margin, and its shape from the OpenAPI document's types.
import { useApi } from '../../api/queries.js';
import type { components } from '../../../../sdks/typescript/src/generated/openapi.js';

export type PriceAdvice = components['schemas']['PriceAdvice'];
type PriceAdviceList = components['schemas']['PriceAdviceList'];

export const usePriceAdvice = (targetPercent: string) =>
  useApi<PriceAdviceList>('/forecasts/price-advice', { target_margin_percent: targetPercent });
