// Typed read methods: one per GET endpoint of the API (admin routes aside), each a name for a path
// of openapi/openapi.json. Types come from src/generated/openapi.ts (`npm run generate`, with
// openapi-typescript); requests go through openapi-fetch, whose fetch is the SDK's retrying one.
// A method takes the path and query parameters in one object and returns the 200 body, or throws
// the typed error of errors.ts. test/unit/reads.test.ts checks that every GET path has a method.
// POST /what-if is a read with a JSON body (a scenario; it changes nothing): written by hand as
// whatIf(body), retried like the GETs since repeating it is harmless; saving and running a saved
// scenario are written by hand the same way (saveWhatIfScenario, runWhatIfScenario, deleteWhatIfScenario). GET /exports/focus answers a
// file (CSV or Parquet): focusExport returns its bytes.
import createClient from 'openapi-fetch';
import type { ResolvedConfig } from './config.js';
import { errorFromResponse } from './errors.js';
import type { paths } from './generated/openapi.js';
import { requestWithRetry } from './retry.js';

/** Method name → API path (under /v1). */
export const READ_ENDPOINTS = {
  ping: '/ping',
  usageEvents: '/usage/events',
  usageEvent: '/usage/events/{eventId}',
  usageSummary: '/usage/summary',
  usageAggregation: '/usage/aggregation',
  costSummary: '/cost-data/summary',
  costByEndUser: '/cost-data/by-end-user',
  costTrend: '/cost-data/trend',
  pendingRateCard: '/cost-data/pending-rate-card',
  endUsers: '/end-users',
  endUserSummary: '/end-user-costs/{externalId}/summary',
  endUserByModel: '/end-user-costs/{externalId}/by-model',
  endUserByProvider: '/end-user-costs/{externalId}/by-provider',
  endUserByDimension: '/end-user-costs/{externalId}/by-dimension',
  endUserTrend: '/end-user-costs/{externalId}/trend',
  endUserSessions: '/end-user-costs/{externalId}/sessions',
  dimensionDefinitions: '/dimension-data/definitions',
  dimensionCostTrend: '/dimension-data/cost-trend',
  dimensionNumericTrend: '/dimension-data/numeric-trend',
  dimensionNumericSummary: '/dimension-data/numeric-summary',
  dimensionCostBreakdown: '/dimension-data/cost-breakdown',
  attributionByAgent: '/attribution-data/by-agent',
  attributionByDimension: '/attribution-data/by-dimension',
  attributionDimensionValues: '/attribution-data/dimension-values',
  agents: '/attribution-data/agents',
  workflows: '/attribution-data/workflows',
  sessions: '/attribution-data/sessions',
  sessionTree: '/attribution-data/sessions/{sessionId}/tree',
  marginByEndUser: '/margin-data/by-end-user',
  marginTrend: '/margin-data/trend',
  marginSummary: '/margin-data/summary',
  rates: '/rates',
  ownRates: '/rates/own',
  unpricedRates: '/rates/unpriced',
  budgets: '/budgets',
  budget: '/budgets/{budgetId}',
  budgetCheck: '/budgets/check',
  reconciliation: '/reconciliation',
  anomalies: '/anomalies',
  exportRuns: '/exports/runs',
  focusExport: '/exports/focus',
  forecast: '/forecasts',
  priceAdvice: '/forecasts/price-advice',
  whatIfScenarios: '/what-if/scenarios',
  whatIfScenario: '/what-if/scenarios/{scenarioId}',
} as const satisfies Record<string, keyof paths>;

type Endpoints = typeof READ_ENDPOINTS;
type GetOperation<P extends keyof paths> = paths[P] extends { get: infer O } ? O : never;
/** `never` and undefined parameter groups become {}. */
type Group<T> = [NonNullable<T>] extends [never] ? {} : NonNullable<T>;
type ParamsOf<O> = O extends { parameters: infer P }
  ? Group<P extends { path?: infer X } ? X : never> & Group<P extends { query?: infer Q } ? Q : never>
  : {};
type ResultOf<O> = O extends { responses: { 200: { content: { 'application/json': infer R } } } } ? R : unknown;
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];

/** The parameters (path and query, one object) of a read method. */
export type ReadParams<M extends keyof Endpoints> = ParamsOf<GetOperation<Endpoints[M]>>;
/** The 200 body of a read method. */
export type ReadResult<M extends keyof Endpoints> = ResultOf<GetOperation<Endpoints[M]>>;

type WhatIfOperation = paths['/what-if']['post'];
/** The body of POST /what-if: range, optional end user, model substitutions. */
export type WhatIfScenario = WhatIfOperation['requestBody']['content']['application/json'];
/** The 200 body of POST /what-if. */
export type WhatIfResult = ResultOf<WhatIfOperation>;

type SaveScenarioOperation = paths['/what-if/scenarios']['post'];
/** The body of POST /what-if/scenarios: a name and a scenario without its range. */
export type WhatIfScenarioBody = SaveScenarioOperation['requestBody']['content']['application/json'];
/** A saved scenario (the 201 body of POST /what-if/scenarios). */
export type WhatIfScenarioView = SaveScenarioOperation['responses'][201]['content']['application/json'];
/** The range a saved scenario is run over. */
export type WhatIfRange = paths['/what-if/scenarios/{scenarioId}/run']['post']['requestBody']['content']['application/json'];

/** Methods whose 200 body is JSON. */
type JsonReads = Exclude<keyof Endpoints, 'focusExport'>;

export type ReadMethods = {
  [M in JsonReads]: [RequiredKeys<ReadParams<M>>] extends [never]
    ? (params?: ReadParams<M>) => Promise<ReadResult<M>>
    : (params: ReadParams<M>) => Promise<ReadResult<M>>;
} & {
  /** GET /attribution-data/by-dimension?format=csv: the breakdown as CSV text. */
  attributionByDimensionCsv(params: Omit<ReadParams<'attributionByDimension'>, 'format'>): Promise<string>;
  /** POST /what-if: the range's actual and simulated cost (and margins) under model substitutions. */
  whatIf(scenario: WhatIfScenario): Promise<WhatIfResult>;
  /** POST /what-if/scenarios: saves a scenario under a name (only the organization's keys see it). */
  saveWhatIfScenario(body: WhatIfScenarioBody): Promise<WhatIfScenarioView>;
  /** POST /what-if/scenarios/{scenarioId}/run: a saved scenario over a range, answered as whatIf. */
  runWhatIfScenario(scenarioId: string, range: WhatIfRange): Promise<WhatIfResult>;
  /** DELETE /what-if/scenarios/{scenarioId}: removes a saved scenario (404 for one the organization has not). */
  deleteWhatIfScenario(scenarioId: string): Promise<void>;
  /** GET /exports/focus: the FOCUS 1.2 file's bytes (CSV by default, or Parquet with format: 'parquet'). */
  focusExport(params: ReadParams<'focusExport'>): Promise<Uint8Array>;
};

/** The read methods bound to one client's configuration. */
export function createReadMethods(config: ResolvedConfig): ReadMethods {
  const client = createClient<paths>({
    baseUrl: config.apiUrl,
    headers: { Authorization: `Bearer ${config.apiKey}` },
    fetch: (request: Request) => retryingFetch(config, request),
  });
  const get = client.GET as unknown as (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const read = async (path: string, params: Record<string, unknown>, parseAs: 'json' | 'text' | 'arrayBuffer') => {
    const pathParams: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(params)) (path.includes(`{${k}}`) ? pathParams : query)[k] = v;
    const { data, error, response } = await get(path, { params: { path: pathParams, query }, parseAs });
    if (!response.ok) throw errorFromResponse(response.status, parseAs === 'json' ? error : parseJson(error), response.headers);
    return data;
  };
  const methods: Record<string, (params?: Record<string, unknown>) => Promise<unknown>> = {};
  for (const [name, path] of Object.entries(READ_ENDPOINTS)) methods[name] = (params = {}) => read(path, params, 'json');
  methods.attributionByDimensionCsv = (params = {}) => read(READ_ENDPOINTS.attributionByDimension, { ...params, format: 'csv' }, 'text');
  methods.focusExport = async (params = {}) =>
    new Uint8Array((await read(READ_ENDPOINTS.focusExport, params, 'arrayBuffer')) as ArrayBuffer);
  const post = client.POST as unknown as (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
  const postJson = async (path: string, body: unknown, pathParams: Record<string, unknown> = {}) => {
    const { data, error, response } = await post(path, { params: { path: pathParams }, body });
    if (!response.ok) throw errorFromResponse(response.status, error, response.headers);
    return data;
  };
  methods.whatIf = (scenario = {}) => postJson('/what-if', scenario);
  methods.saveWhatIfScenario = (body = {}) => postJson('/what-if/scenarios', body);
  (methods as Record<string, unknown>).runWhatIfScenario = (scenarioId: string, range: unknown) =>
    postJson('/what-if/scenarios/{scenarioId}/run', range, { scenarioId });
  const del = client.DELETE as unknown as (path: string, init: object) => Promise<{ error?: unknown; response: Response }>;
  (methods as Record<string, unknown>).deleteWhatIfScenario = async (scenarioId: string) => {
    const { error, response } = await del('/what-if/scenarios/{scenarioId}', { params: { path: { scenarioId } } });
    if (!response.ok) throw errorFromResponse(response.status, error, response.headers);
  };
  return methods as unknown as ReadMethods;
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** fetch with the SDK's retries and per-attempt timeout, answering a plain Response. */
async function retryingFetch(config: ResolvedConfig, request: Request): Promise<Response> {
  // A body is read once, so each attempt of a POST gets its own Request over the same bytes.
  const body = request.method === 'GET' ? null : await request.arrayBuffer();
  const attempt = (signal: AbortSignal) =>
    body === null
      ? new Request(request, { signal })
      : new Request(request.url, { method: request.method, headers: request.headers, body, signal });
  const answer = await requestWithRetry((signal) => config.fetch(attempt(signal)), config.retry, {
    timeoutMs: config.timeoutMs,
  });
  const empty = answer.status === 204 || answer.status === 304;
  return new Response(empty ? null : (answer.bytes ?? answer.text), { status: answer.status, headers: answer.headers });
}
