// Corrections supersede, end to end: events are priced at card A through signed ingest, the
// processor and the lake; a card with A's identity (model_slug, service_tier, effective_from)
// supersedes it and answers the range it changes and the re-pricing for it; events keep A's cost
// until that re-pricing runs, then carry the correction's, to the last digit. Then the CLI corrects
// again with --reprice (the job followed to completion) and lists the history. In-process
// pipeline (ingest, processor, api each with its own RateBook), PGlite, real Kafka and DuckDB.
// Every cost is worked out by hand below.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdFor } from '../../core/ids.js';
import { projectRoot } from '../../core/paths.js';
import { eventually } from '../support/eventually.js';
import { admin } from '../support/http.js';
import { apiGet, createTenant, ingest, llmEvent, startPipeline, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';

const run = promisify(execFile);

// USD per million tokens. A and its corrections B and C share the identity (fix-model, standard,
// 2025-01-01); NEXT is the identity's next card, so the corrections change [2025-01-01, 2025-04-01).
const A = { input: '2', output: '10' };
const B = { input: '3', output: '12' };
const C = { input: '4', output: '16' };
const card = (r: { input: string; output: string }, effective_from = '2025-01-01') => ({
  model_slug: 'fix-model',
  input_cost_per_million: r.input,
  output_cost_per_million: r.output,
  effective_from,
});
const NEXT = card({ input: '5', output: '20' }, '2025-04-01');
const OTHER = { model_slug: 'other-model', input_cost_per_million: '1', output_cost_per_million: '1' };

const EVENTS = [
  llmEvent('e1', { model: 'fix-model', input_tokens: 1_000, output_tokens: 500, timestamp: '2025-03-10T08:00:00Z' }),
  llmEvent('e2', { model: 'fix-model', input_tokens: 20_000, output_tokens: 3_000, timestamp: '2025-03-20T08:00:00Z' }),
  llmEvent('e3', { model: 'fix-model', input_tokens: 10_000, output_tokens: 1_000, timestamp: '2025-04-10T08:00:00Z' }),
  llmEvent('e4', { model: 'other-model', input_tokens: 100_000, output_tokens: 10_000, timestamp: '2025-03-15T08:00:00Z' }),
];
// e1 at A: 1,000 × 2 / 1e6 = 0.002 + 500 × 10 / 1e6 = 0.005 → 0.007
//    at B: 1,000 × 3 / 1e6 = 0.003 + 500 × 12 / 1e6 = 0.006 → 0.009
//    at C: 1,000 × 4 / 1e6 = 0.004 + 500 × 16 / 1e6 = 0.008 → 0.012
// e2 at A: 20,000 × 2 / 1e6 = 0.04 + 3,000 × 10 / 1e6 = 0.03 → 0.07
//    at B: 20,000 × 3 / 1e6 = 0.06 + 3,000 × 12 / 1e6 = 0.036 → 0.096
//    at C: 20,000 × 4 / 1e6 = 0.08 + 3,000 × 16 / 1e6 = 0.048 → 0.128
// e3 after 2025-04-01, at NEXT: 10,000 × 5 / 1e6 = 0.05 + 1,000 × 20 / 1e6 = 0.02 → 0.07, always
// e4 another model: 100,000 × 1 / 1e6 = 0.1 + 10,000 × 1 / 1e6 = 0.01 → 0.11, always
const AT_A = { e1: '0.007', e2: '0.07', e3: '0.07', e4: '0.11' };
const AT_B = { e1: '0.009', e2: '0.096', e3: '0.07', e4: '0.11' };
const AT_C = { e1: '0.012', e2: '0.128', e3: '0.07', e4: '0.11' };
// The re-pricing of [2025-01-01, 2025-04-01) examines e1, e2, e4 and changes e1, e2:
// before 0.007 + 0.07 + 0.11 = 0.187, after 0.009 + 0.096 + 0.11 = 0.215, change 0.028.
const RANGE = { start_date: '2025-01-01T00:00:00.000Z', end_date: '2025-04-01T00:00:00.000Z' };

let p: Pipeline;
let t: Tenant;
let cardA: string;

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { rateCards: [card(A), NEXT, OTHER] });
  cardA = (await admin(p.host, 'GET', `/organizations/${t.organizationId}/rate-cards`)).body.rate_cards.find(
    (c: { effective_from: string; model_slug: string }) => c.model_slug === 'fix-model' && c.effective_from === RANGE.start_date,
  ).rate_card_id;
  await ingest(p, t, EVENTS);
  await waitForLake(p, t.organizationId, EVENTS.length);
});
afterAll(async () => {
  await p?.stop();
});

const base = () => `/organizations/${t.organizationId}`;

/** Each event's total_cost and the card that priced it, from GET /v1/usage/events/{id}. */
async function costs(): Promise<{ totals: Record<string, string>; cards: Record<string, string> }> {
  const totals: Record<string, string> = {};
  const cards: Record<string, string> = {};
  for (const key of ['e1', 'e2', 'e3', 'e4']) {
    const res = await apiGet(p, t.readKey, `/usage/events/${eventIdFor(t.organizationId, key)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    totals[key] = res.body.cost.total_cost;
    cards[key] = res.body.rate_card.rate_card_id;
  }
  return { totals, cards };
}

/** The fix-model row of GET /v1/rates in effect on 2025-03-15. */
async function ratesInMarch(): Promise<{ input_cost_per_million: string; output_cost_per_million: string }> {
  const res = await apiGet(p, t.readKey, '/rates', { as_of: '2025-03-15' });
  expect(res.status).toBe(200);
  return res.body.items.find((i: { model_slug: string }) => i.model_slug === 'fix-model');
}

async function completed(jobPath: string): Promise<Record<string, unknown>> {
  return eventually(
    async () => {
      const job = (await admin(p.host, 'GET', jobPath)).body;
      return job.status === 'completed' && job;
    },
    60_000,
    're-pricing completed',
  );
}

describe('a correction with the same identity', () => {
  it('supersedes A, answers the range and its re-pricing; costs move from A to B only when re-priced', async () => {
    expect((await costs()).totals).toEqual(AT_A);

    const res = await admin(p.host, 'POST', `${base()}/rate-cards`, card(B));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      model_slug: 'fix-model',
      input_cost_per_million: '3',
      output_cost_per_million: '12',
      supersedes_rate_card_id: cardA,
      affected_range: RANGE,
      repricing: { method: 'POST', path: `/v1/admin${base()}/repricings`, body: RANGE },
    });
    const cardB = res.body.rate_card_id as string;

    // The api's rate book shows B once it has re-read the rates_version (about a second)…
    await eventually(async () => (await ratesInMarch()).input_cost_per_million === '3', 10_000, 'GET /v1/rates at B');
    expect(await ratesInMarch()).toMatchObject({ input_cost_per_million: '3', output_cost_per_million: '12' });
    // …while stored events keep A's cost and card until the range is re-priced.
    const before = await costs();
    expect(before.totals).toEqual(AT_A);
    expect([before.cards.e1, before.cards.e2]).toEqual([cardA, cardA]);

    // The re-pricing exactly as offered.
    const { method, path, body } = res.body.repricing;
    const job = await admin(p.host, method, path.replace(/^\/v1\/admin/, ''), body);
    expect(job.status).toBe(202);
    expect(job.body).toMatchObject({ start_date: RANGE.start_date, end_date: RANGE.end_date, events_total: 3 });
    const done = await completed(`${base()}/repricings/${job.body.repricing_id}`);
    expect(done).toMatchObject({ events_repriced: 3, events_changed: 2, cost_before: '0.187', cost_after: '0.215', cost_change: '0.028' });

    const after = await eventually(
      async () => {
        const c = await costs();
        return c.totals.e1 === AT_B.e1 && c;
      },
      10_000,
      'reads at B',
    );
    expect(after.totals).toEqual(AT_B);
    expect([after.cards.e1, after.cards.e2]).toEqual([cardB, cardB]);
    const total = await apiGet(p, t.readKey, '/cost-data/by-end-user', { start_date: '2025-01-01', end_date: '2025-05-01' });
    expect(total.body.total_cost).toBe('0.285'); // 0.009 + 0.096 + 0.07 + 0.11
  });

  it('the CLI corrects again with --reprice (followed to completion) and lists the history A → B → C', async () => {
    const cli = async (args: string[]) => {
      const env: NodeJS.ProcessEnv = { ...process.env, MARGINAL_URL: p.url, MARGINAL_ADMIN_TOKEN: p.host.adminToken };
      const { stdout } = await run('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: projectRoot, env, timeout: 120_000 });
      return JSON.parse(stdout.slice(stdout.indexOf('{')));
    };
    const out = await cli([
      'rate-cards',
      'create',
      '--org',
      t.organizationId,
      '--model-slug',
      'fix-model',
      '--input',
      C.input,
      '--output',
      C.output,
      '--effective-from',
      '2025-01-01',
      '--reprice',
    ]);
    expect(out.rate_card).toMatchObject({ input_cost_per_million: '4', affected_range: RANGE });
    // The job ran with rates at least as new as C: the processor's rate book had C before re-pricing.
    // before (at B) 0.215; after 0.012 + 0.128 + 0.11 = 0.25; change 0.035.
    expect(out.repricing).toMatchObject({
      status: 'completed',
      events_repriced: 3,
      events_changed: 2,
      cost_before: '0.215',
      cost_after: '0.25',
      cost_change: '0.035',
    });
    expect((await costs()).totals).toEqual(AT_C);

    const history = await cli(['rate-cards', 'history', '--org', t.organizationId]);
    const chain = history.rate_cards.filter(
      (c: { model_slug: string; effective_from: string }) => c.model_slug === 'fix-model' && c.effective_from === RANGE.start_date,
    );
    expect(
      chain.map((c: Record<string, unknown>) => [c.input_cost_per_million, c.superseded_by_rate_card_id === null, c.superseded_by]),
    ).toEqual([
      ['2', false, { kind: 'admin_token', user_id: null }],
      ['3', false, { kind: 'admin_token', user_id: null }],
      ['4', true, null],
    ]);
    expect(chain[0].superseded_by_rate_card_id).toBe(chain[1].rate_card_id);
    expect(chain[1].superseded_by_rate_card_id).toBe(chain[2].rate_card_id);
    expect(chain[0].rate_card_id).toBe(cardA);
  });
});
