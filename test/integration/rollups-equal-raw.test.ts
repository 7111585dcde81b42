// Every read endpoint that reads the lake answers the same from the rollups (daily_costs,
// session_spans, dimension rollups, the api's derived and persisted days) as from raw events
// (LakeQuery `useRollups: false`), over HTTP, for ranges of whole days, sub-day bounds and single
// hours, cold and warm. The api reads `services.lakeQuery` per request, so one host answers each
// request first with its own lake reader, then with a raw-events reader over the same lake.
// The data set mixes what the paths treat differently: several files per day (separate ingests),
// a dimension defined after some days were written (those days are answered from raw events until
// backfilled), unpriced events, overrides, metric events, sessions with spans, end users without
// names, events without end user, revenue. A last test makes sure every GET of the OpenAPI
// document is either here or listed as not reading the lake, so a new endpoint cannot skip this.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakeQuery } from '../../api/lake/lake-query.js';
import { endUserIdFor } from '../../core/ids.js';
import { admin } from '../support/http.js';
import {
  apiGet,
  createTenant,
  ingest,
  llmEvent,
  metricEvent,
  startPipeline,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';
import { testLakeQueryOptions } from '../support/test-lake.js';

const NOW = new Date('2026-10-30T12:00:00.000Z');
const TEAMS = ['red', 'blue', 'green', 'gold'];
const USERS = ['alice', 'bob', 'carol', 'dave', null];
const iso = (day: number, hour: number, minute = 0) => new Date(Date.UTC(2026, 9, day, hour, minute)).toISOString();

/** Six calls and one metric event on each day `d` of October 2026 (0 and below: September). */
function eventsOf(batch: string, days: number[]): EventBody[] {
  const out: EventBody[] = [];
  for (const d of days) {
    for (let i = 0; i < 6; i++) {
      const n = (d + 40) * 10 + i; // non-negative for September days
      const user = USERS[n % USERS.length];
      const session = n % 3 === 0 ? `s-${d}-${i % 2}` : null;
      const fields: Record<string, unknown> = {
        timestamp: iso(d, (i * 4 + (d % 3)) % 24, (n * 7) % 60),
        model: n % 4 === 0 ? 'acme-small' : n % 11 === 0 ? 'unpriced-model' : 'acme-large',
        provider: n % 4 === 0 ? undefined : 'acme',
        input_tokens: 1000 + 13 * n,
        output_tokens: 100 + 7 * n,
        ...(n % 5 === 1 ? { cache_read_input_tokens: 300 + n } : {}),
        ...(n % 13 === 2 ? { cost_override: `${(n % 7) + 0.125}` } : {}),
        ...(user ? { user_id: user } : {}),
        ...(n % 2 === 0 ? { agent_id: `agent-${n % 3}` } : {}),
        ...(n % 3 === 1 ? { workflow_id: `wf-${n % 2}` } : {}),
        ...(n % 4 === 1 ? { feature: 'search' } : {}),
        ...(session
          ? {
              session_id: session,
              span_id: `sp-${n}`,
              span_name: `step ${i}`,
              span_kind: 'llm',
              ...(i > 1 ? { parent_span_id: `sp-${n - 1}` } : {}),
            }
          : {}),
        metadata: {
          ...(n % 6 !== 5 ? { team: TEAMS[n % TEAMS.length] } : {}),
          ...(n % 4 !== 3 ? { latency_ms: (n % 9) * 12.5 + 0.25 } : {}),
          region: n % 2 ? 'eu' : 'us',
        },
      };
      for (const [k, v] of Object.entries(fields)) if (v === undefined) delete fields[k];
      out.push(llmEvent(`${batch}-${d}-${i}`, fields));
    }
    out.push(metricEvent(`${batch}-${d}-img`, { timestamp: iso(d, 12), quantity: (d % 3) + 1, ...(d % 2 ? { user_id: 'alice' } : {}) }));
  }
  return out;
}

let p: Pipeline;
let t: Tenant;
let other: Tenant;
let raw: LakeQuery;
let sent = 0;

async function send(events: EventBody[]): Promise<void> {
  await ingest(p, t, events);
  sent += events.length;
  await waitForLake(p, t.organizationId, sent);
}

beforeAll(async () => {
  p = await startPipeline({ now: () => NOW });
  t = await createTenant(p, {
    name: 'rollups vs raw',
    rateCards: [
      {
        model_slug: 'acme-large',
        input_cost_per_million: '3',
        output_cost_per_million: '15',
        cache_creation_cost_per_million: '3.75',
        cache_read_cost_per_million: '0.3',
        reasoning_cost_per_million: '15',
      },
      { model_slug: 'acme-small', input_cost_per_million: '0.5', output_cost_per_million: '1.5' },
    ],
    unitRates: [{ provider: 'imagegen', metric: 'image_generation', unit: 'image', cost_per_unit: '0.04' }],
    dimensions: [
      { key: 'team', value_type: 'string' },
      { key: 'latency_ms', value_type: 'number' },
    ],
  });
  other = await createTenant(p, {
    name: 'another organization',
    rateCards: [{ model_slug: 'acme-large', input_cost_per_million: '1', output_cost_per_million: '2' }],
  });
  const otherEvents = eventsOf('o', [3, 4, 20]);
  await ingest(p, other, otherEvents);
  await waitForLake(p, other.organizationId, otherEvents.length);
  // Three ingests, each its own flush: days 5–12 get two files, day 20 three.
  await send(eventsOf('a', [-28, -3, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 20]));
  await send(eventsOf('b', [5, 6, 7, 8, 9, 10, 11, 12, 20]));
  // `region` defined now: the days above are not rolled up for it (raw events answer them).
  const defined = await admin(p.host, 'POST', `/organizations/${t.organizationId}/dimensions`, {
    key: 'region',
    name: 'region',
    value_type: 'string',
  });
  expect(defined.status, JSON.stringify(defined.body)).toBe(201);
  await new Promise((r) => setTimeout(r, 1_500)); // the processor's DimensionBook re-reads within ~1 s
  await send(eventsOf('c', [20, 21, 22, 28, 29]));
  const revenue = await admin(p.host, 'POST', `/organizations/${t.organizationId}/revenue-records`, {
    records: [
      {
        id: 'alice-oct',
        user_id: 'alice',
        customer_name: 'Alice Ltd',
        amount: '310',
        period_start: '2026-10-01',
        period_end: '2026-11-01',
      },
      { id: 'bob-q', user_id: 'bob', amount: '900', period_start: '2026-09-15', period_end: '2026-12-15' },
      { id: 'erin', user_id: 'erin', amount: '42.5', period_start: '2026-10-10', period_end: '2026-10-20' },
      { id: 'org', user_id: null, amount: '100', period_start: '2026-10-01', period_end: '2026-10-31' },
    ],
  });
  expect(revenue.status, JSON.stringify(revenue.body)).toBe(200);
  raw = await LakeQuery.open(p.lakeDir, { useRollups: false, ...testLakeQueryOptions(p.lakeDir) });
}, 300_000);

afterAll(async () => {
  raw?.close();
  await p?.stop();
});

type Query = Record<string, string>;
/** Stands for alice's end-user id (a UUID of the organization, known once it exists). */
const ALICE_ID = '{alice}';
const WHOLE = { start_date: '2026-09-01', end_date: '2026-10-31' };
const OCT = { start_date: '2026-10-01', end_date: '2026-10-30' };
const SUB_DAY = { start_date: '2026-10-05T06:30:00Z', end_date: '2026-10-20T18:45:00Z' };
const HOURS = { start_date: '2026-10-20T03:00:00Z', end_date: '2026-10-20T17:00:00Z' };
const RANGES = { WHOLE, OCT, SUB_DAY, HOURS };

/** [path, queries] of every GET that reads the lake; each query is asked in every range above unless it has its own. */
const CASES: Array<[path: string, queries: Query[], ranged?: boolean]> = [
  ['/usage/events', [{}, { metric_name: 'tokens', limit: '7', offset: '3' }, { metric_name: 'image_generation' }]],
  ['/usage/summary', [{}]],
  ['/usage/aggregation', [{}, { metric_name: 'tokens' }]],
  [
    '/cost-data/summary',
    ['current-period', 'last-period', 'last-7-days', 'last-30-days', 'last-90-days', 'ytd', 'last-year'].map((w) => ({ time_window: w })),
    false,
  ],
  ['/cost-data/by-end-user', [{}]],
  [
    '/cost-data/trend',
    [
      {},
      { group_by: 'model' },
      { group_by: 'provider', top: '1' },
      { group_by: 'agent_id' },
      { group_by: 'workflow_id' },
      { group_by: 'feature' },
    ],
  ],
  ['/cost-data/pending-rate-card', [{}]],
  ['/rates/unpriced', [{}]],
  ['/end-user-costs/alice/summary', [{}]],
  ['/end-user-costs/alice/by-model', [{}]],
  ['/end-user-costs/bob/by-provider', [{}]],
  [
    '/end-user-costs/alice/by-dimension',
    [{ dimension: 'team' }, { dimension: 'region' }, { dimension: 'latency_ms' }, { dimension: 'feature' }, { dimension: 'agent_id' }],
  ],
  ['/end-user-costs/carol/trend', [{}]],
  ['/end-user-costs/alice/sessions', [{}]],
  [
    '/dimension-data/cost-trend',
    [
      {},
      { dimension_key: 'team' },
      { dimension_key: 'team', dimension_value: 'red' },
      { dimension_key: 'region' },
      { dimension_key: 'team', dimension_value: 'Unassigned' },
    ],
  ],
  [
    '/dimension-data/numeric-trend',
    [
      ...['avg', 'sum', 'min', 'max'].map((a) => ({ dimension_key: 'latency_ms', aggregation: a })),
      { dimension_key: 'latency_ms', aggregation: 'avg', interval: 'weekly' },
    ],
  ],
  ['/dimension-data/numeric-summary', [{ dimension_key: 'latency_ms' }]],
  ['/dimension-data/cost-breakdown', [{ dimension_key: 'team' }, { dimension_key: 'region' }]],
  ['/attribution-data/by-agent', [{}]],
  ['/attribution-data/agents', [{}]],
  ['/attribution-data/workflows', [{}]],
  [
    '/attribution-data/by-dimension',
    [
      { dimension: 'team' },
      { dimension: 'region' },
      { dimension: 'team', filter_key: 'agent_id', filter_value: 'agent-0' },
      { dimension: 'agent_id', filter_key: 'team', filter_value: 'red' },
      { dimension: 'workflow_id', format: 'csv' },
    ],
  ],
  ['/attribution-data/dimension-values', [{ dimension: 'team' }, { dimension: 'region' }]],
  ['/attribution-data/sessions', [{}, { limit: '2', offset: '1' }]],
  ['/margin-data/by-end-user', [{}]],
  ['/margin-data/trend', [{}, { end_user_id: ALICE_ID }]],
  ['/margin-data/summary', [{}]],
  // Whole UTC days only (a sub-day range is a 400); no report imported, so our cost is all unreported.
  ['/reconciliation', [WHOLE, OCT], false],
  ['/anomalies', [{}]],
  // Forecasts look back from now (56 complete days reach the October events); bob's period covers now.
  ['/forecasts', [{}, { horizon: 'next-30-days' }], false],
  ['/forecasts/price-advice', [{}, { target_margin_percent: '75' }], false],
  // FOCUS rows are whole UTC days (a sub-day range is a 400); the CSV's rows are its figures.
  ['/exports/focus', [WHOLE, OCT].map((r) => ({ ...r, format: 'csv' })), false],
];

/** GETs that do not read the lake (or read one event by id, the same row either way). */
const NOT_LAKE = new Set([
  '/ping',
  '/usage/events/{eventId}',
  '/end-users',
  '/dimension-data/definitions',
  '/rates',
  '/rates/own',
  '/budgets',
  '/budgets/check',
  '/budgets/{budgetId}',
  '/exports/runs',
  '/what-if/scenarios',
  '/what-if/scenarios/{scenarioId}',
]);
/** Read by tree: the session's own files, whatever the rollups. */
const SESSION_TREES = ['s-5-0', 's-20-1', 's-9-0'];

/** Data rows of a CSV answer (after its header); 0 for anything else. */
function csvRows(body: unknown): number {
  return typeof body === 'string' ? body.trim().split('\n').length - 1 : 0;
}

/**
 * Whether an answer holds a figure: a non-zero number (paging's limit and offset aside), a
 * non-zero decimal string, or a listed value; dates and ids do not count.
 */
function carriesFigures(body: unknown, key = ''): boolean {
  if (typeof body === 'number') return body !== 0 && !['limit', 'offset', 'top'].includes(key);
  if (typeof body === 'string') return key !== '' && /^-?\d+(\.\d+)?$/.test(body) && /[1-9]/.test(body);
  if (Array.isArray(body)) return key === 'values' ? body.length > 0 : body.some((v) => carriesFigures(v, key));
  if (body && typeof body === 'object') return Object.entries(body).some(([k, v]) => carriesFigures(v, k));
  return false;
}

async function answer(path: string, query: Query, lake: LakeQuery | null, tenant: Tenant = t): Promise<{ status: number; body: unknown }> {
  const services = p.host.host.ctx.services as { lakeQuery: LakeQuery };
  const own = services.lakeQuery;
  query = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v === ALICE_ID ? endUserIdFor(t.organizationId, 'alice') : v]));
  if (lake) services.lakeQuery = lake;
  try {
    const res = await apiGet(p, tenant.readKey, path, query);
    return { status: res.status, body: res.body };
  } finally {
    services.lakeQuery = own;
  }
}

describe('rollups answer what raw events answer, on every endpoint that can use either', () => {
  for (const [path, queries, ranged = true] of CASES) {
    it(path, async () => {
      const asks = ranged ? Object.values(RANGES).flatMap((r) => queries.map((q) => ({ ...r, ...q }))) : queries;
      let nonEmpty = 0;
      for (const q of asks) {
        const fromRaw = await answer(path, q, raw);
        expect(fromRaw.status, `${path} ${JSON.stringify(q)}: ${JSON.stringify(fromRaw.body)}`).toBe(200);
        const cold = await answer(path, q, null);
        const warm = await answer(path, q, null);
        expect(cold, `${path} ${JSON.stringify(q)} (first)`).toEqual(fromRaw);
        expect(warm, `${path} ${JSON.stringify(q)} (again)`).toEqual(fromRaw);
        if (carriesFigures(fromRaw.body) || csvRows(fromRaw.body) > 0) nonEmpty++;
      }
      // Equal empty answers would prove nothing: most of the asks must carry figures.
      expect(nonEmpty).toBeGreaterThanOrEqual(Math.ceil(asks.length / 2));
    });
  }

  it('session trees', async () => {
    for (const id of SESSION_TREES) {
      const path = `/attribution-data/sessions/${id}/tree`;
      const fromRaw = await answer(path, {}, raw);
      expect(fromRaw.status, JSON.stringify(fromRaw.body)).toBe(200);
      expect(await answer(path, {}, null)).toEqual(fromRaw);
    }
  });

  it("another organization's answers are its own: from rollups as from raw events, and unlike ours", async () => {
    for (const path of ['/cost-data/by-end-user', '/usage/summary', '/attribution-data/by-agent']) {
      const theirs = await answer(path, WHOLE, null, other);
      expect(theirs.status).toBe(200);
      expect(carriesFigures(theirs.body), path).toBe(true);
      expect(theirs, path).toEqual(await answer(path, WHOLE, raw, other));
      expect(theirs.body, path).not.toEqual((await answer(path, WHOLE, null)).body);
    }
  });

  it('covers every GET of the OpenAPI document that reads the lake', () => {
    const doc = JSON.parse(fs.readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>>;
    };
    const covered = new Set(CASES.map(([path]) => path.replace(/^\/end-user-costs\/[^/]+\//, '/end-user-costs/{externalId}/')));
    covered.add('/attribution-data/sessions/{sessionId}/tree');
    const gets = Object.entries(doc.paths)
      // Admin routes and people's session-only ones (sign-in state, members, audit trail) read no lake.
      .filter(([, ops]) => ops.get && !ops.get.security?.some((s) => 'admin' in s) && !ops.get.security?.every((s) => 'session' in s))
      .map(([path]) => path);
    expect(gets.filter((path) => !covered.has(path) && !NOT_LAKE.has(path))).toEqual([]);
  });
});
