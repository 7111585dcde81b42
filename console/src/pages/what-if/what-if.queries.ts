// The what-if panel's data: saved scenarios (GET/POST/DELETE /v1/what-if/scenarios) and a run of a
// scenario over a range (POST /v1/what-if; a read, so cached like a GET under its body), with the
// shapes from the OpenAPI document's types.
import { useQuery } from '@tanstack/react-query';
import { apiSend, credentialScope } from '../../api/client.js';
import { useApi, useCostTrend, useWrite } from '../../api/queries.js';
import type { ByDimension } from '../../api/types.js';
import { rangeQuery, type DateRange } from '../../range/date-range.js';
import type { components } from '../../../../sdks/typescript/src/generated/openapi.js';

export type WhatIfScenario = components['schemas']['WhatIfScenario'];
export type WhatIfResult = components['schemas']['WhatIfResult'];
export type WhatIfEndUser = components['schemas']['WhatIfEndUser'];
export type SavedScenario = components['schemas']['WhatIfScenarioView'];
type ScenarioList = components['schemas']['WhatIfScenarioList'];
type WhatIfRequest = components['schemas']['WhatIfRequest'];

const SCENARIOS = '/what-if/scenarios';

/**
 * The models with cost in the range, costliest first: a customer's from its by-model breakdown, the
 * organization's from the cost trend by model (its 20 costliest; the API draws at most 20 series).
 */
export function useRangeModels(range: DateRange, externalId: string | undefined): { models: string[]; pending: boolean; error: unknown } {
  const mine = useApi<ByDimension>(
    `/end-user-costs/${encodeURIComponent(externalId ?? '')}/by-model`,
    rangeQuery(range),
    externalId !== undefined,
  );
  const all = useCostTrend(range, 'model', 20);
  if (externalId !== undefined) {
    const models = (mine.data?.items ?? []).map((i) => i.attribution_value).filter((m) => m !== 'Unassigned');
    return { models, pending: mine.isPending, error: mine.error };
  }
  // "other" is the series of the values past the 20th; "Unassigned" holds events without a model.
  const models = (all.data?.series ?? []).map((s) => s.key).filter((m) => m !== 'other' && m !== 'Unassigned');
  return { models, pending: all.isPending, error: all.error };
}

export const useScenarios = () => useApi<ScenarioList>(SCENARIOS);

/** The scenario's figures over the request's range; nothing is asked while `request` is null. */
export const useWhatIf = (request: WhatIfRequest | null) =>
  useQuery<WhatIfResult>({
    queryKey: ['/what-if', request, credentialScope()],
    queryFn: () => apiSend<WhatIfResult>('POST', '/what-if', request),
    enabled: request !== null,
    // A refused scenario (400, 422) is refused again: show it at once.
    retry: false,
  });

export const useSaveScenario = (done: (saved: SavedScenario) => void) =>
  useWrite(SCENARIOS, (body: { name: string; scenario: WhatIfScenario }) => apiSend<SavedScenario>('POST', SCENARIOS, body), done);

export const useDeleteScenario = () =>
  useWrite(SCENARIOS, (id: string) => apiSend<null>('DELETE', `${SCENARIOS}/${encodeURIComponent(id)}`));
