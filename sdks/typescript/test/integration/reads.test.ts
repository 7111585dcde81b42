// The typed read methods against the real service: the figures they return are the ones worked
// out here from the events sent and the rate cards (big.js), and errors come back typed.
import { beforeAll, describe, expect, it } from 'vitest';
import Big from 'big.js';
import { Marginal } from '../../src/client.js';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import type { UsageEvent } from '../../src/events.js';
import { expectedCost, sameAmount, sumCosts, type ClassCosts } from '../support/expected-cost.js';
import { aroundNow, createTenant, waitFor, type RateCard, type Tenant } from '../support/tenant.js';

const CARDS: RateCard[] = [
  {
    model_slug: 'sdk-model-a',
    input_cost_per_million: '3',
    output_cost_per_million: '15',
    cache_creation_cost_per_million: '3.75',
    cache_read_cost_per_million: '0.3',
    reasoning_cost_per_million: '15',
  },
  { model_slug: 'sdk-model-b', input_cost_per_million: '0.5', output_cost_per_million: '1.5' },
];
const card = (model: string) => CARDS.find((c) => model.startsWith(c.model_slug))!;

const EVENTS: UsageEvent[] = [
  {
    model: 'sdk-model-a',
    input_tokens: 1000,
    output_tokens: 200,
    cache_read_input_tokens: 5000,
    user_id: 'alice',
    agent_id: 'planner',
    feature: 'search',
  },
  { model: 'sdk-model-b', input_tokens: 400, output_tokens: 100, user_id: 'alice', agent_id: 'writer' },
  {
    model: 'sdk-model-a',
    input_tokens: 2000,
    output_tokens: 50,
    reasoning_tokens: 300,
    cache_creation_input_tokens: 1000,
    user_id: 'bob',
    agent_id: 'planner',
  },
  { model: 'sdk-model-b', input_tokens: 10, output_tokens: 10 },
];
const costOf = (e: UsageEvent) => expectedCost(e as Parameters<typeof expectedCost>[0], card(e.model!));
const costWhere = (pred: (e: UsageEvent) => boolean): ClassCosts => sumCosts(EVENTS.filter(pred).map(costOf));

let tenant: Tenant;
let reader: Marginal;
const range = aroundNow();

beforeAll(async () => {
  tenant = await createTenant({ rateCards: CARDS });
  const writer = new Marginal({ apiKey: tenant.apiKey, signingSecret: tenant.signingSecret, baseUrl: tenant.url, flushOnExit: false });
  await writer.send(EVENTS[0]!);
  for (const e of EVENTS.slice(1)) writer.track(e);
  await writer.shutdown();
  reader = new Marginal({ apiKey: tenant.readKey, baseUrl: tenant.url, flushOnExit: false });
  await waitFor('4 costed events', async () => (await reader.costSummary()).event_count === EVENTS.length);
});

describe('read methods return the API figures', () => {
  it('usageSummary and usageEvents: counts and token quantities', async () => {
    const summary = await reader.usageSummary(range);
    expect(summary.total_events).toBe(4);
    const tokens = EVENTS.reduce((s, e) => s + e.input_tokens! + e.output_tokens!, 0);
    expect(summary.metrics).toEqual([{ metric_name: 'tokens', total_quantity: tokens, event_count: 4 }]);
    const page = await reader.usageEvents({ ...range, limit: 2 });
    expect([page.total, page.limit, page.events.length]).toEqual([4, 2, 2]);
  });

  it('costSummary and costByEndUser: totals, per user, per token class', async () => {
    const all = costWhere(() => true);
    const summary = await reader.costSummary({ time_window: 'current-period' });
    expect(sameAmount(summary.current_period_cost, all.total)).toBe(true);

    const byUser = await reader.costByEndUser(range);
    expect(sameAmount(byUser.total_cost, all.total)).toBe(true);
    const alice = byUser.end_users.find((u) => u.end_user_name === 'alice')!;
    const expectedAlice = costWhere((e) => e.user_id === 'alice');
    expect(alice.event_count).toBe(2);
    expect([alice.input_tokens, alice.output_tokens, alice.cache_read_input_tokens]).toEqual([1400, 300, 5000]);
    expect(sameAmount(alice.total_cost, expectedAlice.total)).toBe(true);
    expect(sameAmount(alice.cache_read_cost, expectedAlice.cache_read_cost)).toBe(true);
    const bob = await reader.endUserSummary({ externalId: 'bob', ...range });
    const expectedBob = costWhere((e) => e.user_id === 'bob');
    expect([bob.reasoning_tokens, bob.cache_creation_input_tokens]).toEqual([300, 1000]);
    for (const k of ['input_cost', 'output_cost', 'cache_creation_cost', 'reasoning_cost'] as const) {
      expect(sameAmount(bob[k], expectedBob[k]), k).toBe(true);
    }
    expect(sameAmount(bob.total_cost, expectedBob.total)).toBe(true);
    expect(byUser.end_users.find((u) => u.end_user_id === 'unassigned')?.event_count).toBe(1);
  });

  it('attributionByAgent and agents: cost per agent_id', async () => {
    const byAgent = await reader.attributionByAgent(range);
    const planner = byAgent.items.find((i) => i.attribution_value === 'planner')!;
    expect(sameAmount(planner.total_cost, costWhere((e) => e.agent_id === 'planner').total)).toBe(true);
    expect(planner.event_count).toBe(2);
    expect((await reader.agents(range)).values).toEqual(['planner', 'writer']);
  });

  it('attributionByDimensionCsv: the by-dimension breakdown as CSV text', async () => {
    const csv = await reader.attributionByDimensionCsv({ dimension: 'agent_id', ...range });
    const lines = csv.trim().split(/\r?\n/);
    expect(lines.length).toBe(4); // header + planner, writer, Unassigned
    const planner = lines.find((l) => l.includes('planner'))!;
    expect(planner).toContain(costWhere((e) => e.agent_id === 'planner').total.toString());
  });

  it('rates: the organization cards', async () => {
    const rates = await reader.rates();
    const a = rates.items.find((i) => i.model_slug === 'sdk-model-a')!;
    expect(
      sameAmount(
        a.cache_read_cost_per_million,
        costOf({ model: 'sdk-model-a', input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 1_000_000 }).total,
      ),
    ).toBe(true);
  });

  it('focusExport: the FOCUS file of whole UTC days, its BilledCost summing to every event cost; Parquet bytes; exportRuns', async () => {
    const day = (offset: number) => new Date(Math.floor(Date.now() / 86_400_000 + offset) * 86_400_000).toISOString().slice(0, 10);
    const days = { start_date: day(-1), end_date: day(2) };
    const csv = new TextDecoder()
      .decode(await reader.focusExport(days))
      .trim()
      .split('\r\n');
    expect(csv[0]!.split(',')[0]).toBe('BilledCost');
    // BilledCost is the first column, a plain decimal; one row per token class reported.
    const billed = csv.slice(1).reduce((s, line) => s.plus(line.split(',')[0]!), new Big(0));
    expect(billed.eq(costWhere(() => true).total)).toBe(true);
    const parquet = await reader.focusExport({ ...days, format: 'parquet' });
    expect(new TextDecoder().decode(parquet.subarray(0, 4))).toBe('PAR1');
    const invalid = await reader.focusExport({ ...days, start_date: `${days.start_date}T01:00:00Z` }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, field: 'start_date' });
    expect((await reader.exportRuns()).runs).toEqual([]);
  });

  it('whatIf (POST /what-if): sdk-model-b priced as sdk-model-a with twice the tokens', async () => {
    const res = await reader.whatIf({ ...range, substitutions: [{ from_model: 'sdk-model-b', to_model: 'sdk-model-a', token_ratio: 2 }] });
    const isB = (e: UsageEvent) => e.model === 'sdk-model-b';
    const asA = EVENTS.filter(isB).map((e) =>
      expectedCost(
        { ...e, model: 'sdk-model-a', input_tokens: e.input_tokens! * 2, output_tokens: e.output_tokens! * 2 } as Parameters<
          typeof expectedCost
        >[0],
        card('sdk-model-a'),
      ),
    );
    const actual = costWhere(() => true).total;
    const simulated = actual.minus(costWhere(isB).total).plus(sumCosts(asA).total);
    expect(sameAmount(res.actual_cost, actual)).toBe(true);
    expect(sameAmount(res.simulated_cost, simulated)).toBe(true);
    expect(sameAmount(res.difference, simulated.minus(actual))).toBe(true);
    expect(res.end_users.map((u) => u.external_id).sort()).toEqual(['alice', 'bob']);
    const invalid = await reader.whatIf({ ...range, substitutions: [] }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', field: 'substitutions' });
  });

  it('saved what-if scenarios: save, list, read, run (the same answer as whatIf)', async () => {
    const scenario = { substitutions: [{ from_model: 'sdk-model-b', to_model: 'sdk-model-a', token_ratio: 2 }] };
    const saved = await reader.saveWhatIfScenario({ name: 'b as a', scenario });
    expect(saved).toMatchObject({ name: 'b as a', scenario });
    expect((await reader.whatIfScenarios()).items.map((s) => s.id)).toContain(saved.id);
    expect(await reader.whatIfScenario({ scenarioId: saved.id })).toEqual(saved);
    expect(await reader.runWhatIfScenario(saved.id, range)).toEqual(await reader.whatIf({ ...range, ...scenario }));
    const invalid = await reader.saveWhatIfScenario({ name: 'none', scenario: {} }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, field: 'scenario.substitutions' });
    await reader.deleteWhatIfScenario(saved.id);
    expect(await reader.whatIfScenario({ scenarioId: saved.id }).catch((e: unknown) => e)).toMatchObject({ status: 404 });
  });

  it('forecast (GET /forecasts): with no complete day of history, the next 30 days cost what today already did', async () => {
    // Every event is from today: the 56 days before it are empty, so nothing more is forecast.
    const res = await reader.forecast({ horizon: 'next-30-days' });
    const actual = costWhere(() => true).total;
    expect(sameAmount(res.observed_cost, actual)).toBe(true);
    expect([res.cost.value, res.cost.low, res.cost.high].every((v) => sameAmount(v, actual))).toBe(true);
    expect(res.end_users.map((u) => u.external_id).sort()).toEqual(['alice', 'bob']);
    // No revenue records: no customer to advise; a 100% margin cannot be priced.
    expect((await reader.priceAdvice({ target_margin_percent: 40 })).customers).toEqual([]);
    const invalid = await reader.priceAdvice({ target_margin_percent: 100 }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, field: 'target_margin_percent' });
  });

  it('errors are typed, with code, correlationId and details', async () => {
    const notFound = await reader.endUserTrend({ externalId: 'nobody', ...range }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((notFound as NotFoundError).correlationId).toMatch(/\S/);
    const invalid = await reader.usageEvents({ ...range, limit: 5000 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', field: 'limit' });
    const writerOnly = new Marginal({ apiKey: tenant.apiKey, baseUrl: tenant.url, flushOnExit: false });
    await expect(writerOnly.costSummary()).rejects.toMatchObject({ name: 'PermissionDeniedError', status: 403, code: 'FORBIDDEN' });
  });
});
