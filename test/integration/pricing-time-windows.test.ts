// Time-of-day prices end to end: an organization card with an off-peak window past midnight set
// through the admin API; events at a peak hour, inside the window, exactly at its start and exactly
// at its end through signed ingest, the processor and the lake; then GET /v1/usage/events/{id}
// (cost and the window that priced it), GET /v1/rates (the window shown), the cost endpoint's
// total, a correction of the window's rates re-priced as offered, and the API's refusals. Every
// figure is worked out by hand below.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventIdFor } from '../../core/ids.js';
import { projectRoot } from '../../core/paths.js';
import { eventually } from '../support/eventually.js';
import { admin } from '../support/http.js';
import { apiGet, createTenant, ingest, llmEvent, startPipeline, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';

let p: Pipeline;
let t: Tenant;

const OFF_PEAK = {
  name: 'off-peak',
  start_utc: '22:00',
  end_utc: '06:00',
  input_cost_per_million: '1',
  output_cost_per_million: '4',
  cache_read_cost_per_million: '0.25',
  reasoning_cost_per_million: '4',
};
const CARD = {
  model_slug: 'night-llm',
  input_cost_per_million: '2',
  output_cost_per_million: '8',
  cache_read_cost_per_million: '0.5',
  reasoning_cost_per_million: '8',
  effective_from: '2025-01-01',
  time_of_day_windows: [OFF_PEAK],
};

const call = (key: string, timestamp: string, extra: Record<string, number> = {}) =>
  llmEvent(key, { model: 'night-llm', input_tokens: 100_000, output_tokens: 10_000, timestamp, ...extra });
const EVENTS = [
  // 12:00, peak: 100,000 × 2 / 1e6 = 0.2; 10,000 × 8 / 1e6 = 0.08 → 0.28
  call('peak', '2025-03-04T12:00:00Z'),
  // 23:00, off-peak: 100,000 × 1 / 1e6 = 0.1; 10,000 × 4 / 1e6 = 0.04; 40,000 read × 0.25 / 1e6 = 0.01 → 0.15
  call('night', '2025-03-04T23:00:00Z', { cache_read_input_tokens: 40_000 }),
  // exactly 22:00, the start: off-peak 0.1 + 0.04 → 0.14
  call('start', '2025-03-04T22:00:00Z'),
  // exactly 06:00 the next morning, the end: peak again → 0.28
  call('end', '2025-03-05T06:00:00Z'),
];
const KEYS = ['peak', 'night', 'start', 'end'];
const RANGE = { start_date: '2025-03-01', end_date: '2025-03-10' };

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { rateCards: [CARD] });
  await ingest(p, t, EVENTS);
  await waitForLake(p, t.organizationId, EVENTS.length);
});
afterAll(async () => {
  await p?.stop();
});

const base = () => `/organizations/${t.organizationId}`;

async function priced(): Promise<Record<string, { total: string; window: string | null; card: string }>> {
  const out: Record<string, { total: string; window: string | null; card: string }> = {};
  for (const key of KEYS) {
    const res = await apiGet(p, t.readKey, `/usage/events/${eventIdFor(t.organizationId, key)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out[key] = { total: res.body.cost.total_cost, window: res.body.rate_card.time_of_day_window, card: res.body.rate_card.rate_card_id };
  }
  return out;
}

describe('an off-peak window 22:00–06:00 UTC', () => {
  it('each event is priced at its own rates and records the window that priced it', async () => {
    const res = await apiGet(p, t.readKey, `/usage/events/${eventIdFor(t.organizationId, 'night')}`);
    expect(res.body).toMatchObject({
      status: 'completed',
      cost: { total_cost: '0.15', input_cost: '0.1', output_cost: '0.04', cache_read_cost: '0.01' },
      rate_card: { model_slug: 'night-llm', context_tier_above_prompt_tokens: null, time_of_day_window: 'off-peak' },
    });
    const all = await priced();
    expect(Object.fromEntries(KEYS.map((k) => [k, [all[k]!.total, all[k]!.window]]))).toEqual({
      peak: ['0.28', null],
      night: ['0.15', 'off-peak'],
      start: ['0.14', 'off-peak'],
      end: ['0.28', null],
    });
    const total = await apiGet(p, t.readKey, '/cost-data/by-end-user', RANGE);
    expect(total.body.total_cost).toBe('0.85'); // 0.28 + 0.15 + 0.14 + 0.28
  });

  it('GET /v1/rates and the admin list show the window', async () => {
    const rates = await apiGet(p, t.readKey, '/rates', { as_of: '2025-03-04' });
    const item = rates.body.items.find((i: { model_slug: string }) => i.model_slug === 'night-llm');
    expect(item.time_of_day_windows).toEqual([
      { ...OFF_PEAK, cache_creation_cost_per_million: null, cache_creation_1h_cost_per_million: null },
    ]);
    const cards = (await admin(p.host, 'GET', `${base()}/rate-cards`)).body.rate_cards;
    expect(cards[0].time_of_day_windows).toEqual([
      { ...OFF_PEAK, cache_creation_cost_per_million: null, cache_creation_1h_cost_per_million: null },
    ]);
  });

  it('a correction of the window rates, re-priced as offered, moves only the off-peak events', async () => {
    const res = await admin(p.host, 'POST', `${base()}/rate-cards`, {
      ...CARD,
      time_of_day_windows: [{ ...OFF_PEAK, output_cost_per_million: '2' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { method, path, body } = res.body.repricing;
    // The rate book of the processor picks the correction up within about a second.
    await eventually(
      async () => {
        const r = await apiGet(p, t.readKey, '/rates', { as_of: '2025-03-04' });
        return (
          r.body.items.find((i: { model_slug: string }) => i.model_slug === 'night-llm')?.time_of_day_windows[0].output_cost_per_million ===
          '2'
        );
      },
      10_000,
      'GET /v1/rates at the corrected window',
    );
    const job = await admin(p.host, method, path.replace(/^\/v1\/admin/, ''), body);
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    const done = await eventually(
      async () => {
        const j = (await admin(p.host, 'GET', `${base()}/repricings/${job.body.repricing_id}`)).body;
        return j.status === 'completed' && j;
      },
      60_000,
      're-pricing completed',
    );
    // off-peak output now 10,000 × 2 / 1e6 = 0.02: night 0.1 + 0.02 + 0.01 = 0.13, start 0.1 + 0.02 = 0.12.
    // All four change: the two peak ones keep their cost but are now priced by the correcting card.
    expect(done).toMatchObject({ events_changed: 4, cost_before: '0.85', cost_after: '0.81', cost_change: '-0.04' });
    const after = await eventually(
      async () => {
        const a = await priced();
        return a.night!.total === '0.13' && a;
      },
      10_000,
      'reads at the corrected window',
    );
    expect(Object.fromEntries(KEYS.map((k) => [k, [after[k]!.total, after[k]!.window]]))).toEqual({
      peak: ['0.28', null],
      night: ['0.13', 'off-peak'],
      start: ['0.12', 'off-peak'],
      end: ['0.28', null],
    });
    expect(after.night!.card).toBe(res.body.rate_card_id);
  });
});

describe('the admin API refuses malformed windows, naming the field', () => {
  const post = (over: Record<string, unknown>) =>
    admin(p.host, 'POST', `${base()}/rate-cards`, { ...CARD, model_slug: 'bad-llm', ...over });
  it.each([
    [{ time_of_day_windows: [{ ...OFF_PEAK, start_utc: '25:00' }] }, 'time_of_day_windows[0].start_utc'],
    [{ time_of_day_windows: [{ ...OFF_PEAK, input_cost_per_million: '0.1.2' }] }, 'time_of_day_windows[0].input_cost_per_million'],
    [{ time_of_day_windows: [{ ...OFF_PEAK, days: [8] }] }, 'time_of_day_windows[0].days'],
    [{ time_of_day_windows: [OFF_PEAK, { ...OFF_PEAK, start_utc: '05:00', end_utc: '07:00' }] }, 'time_of_day_windows[1]'],
    [{ tiers: [{ above_prompt_tokens: 1000, input_cost_per_million: '1', output_cost_per_million: '1' }] }, 'time_of_day_windows'],
  ])('%j → 400 on %s', async (over, field) => {
    const res = await post(over);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details.field).toBe(field);
  });
});

describe('the CLI', () => {
  it('rate-cards create --time-of-day-windows posts the windows as JSON', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, MARGINAL_URL: p.url, MARGINAL_ADMIN_TOKEN: p.host.adminToken };
    const args = ['rate-cards', 'create', '--org', t.organizationId, '--model-slug', 'cli-night-llm', '--input', '2', '--output', '8'];
    const windows = JSON.stringify([
      { name: 'night', days: [6, 7], start_utc: '22:00', end_utc: '06:00', input_cost_per_million: '1', output_cost_per_million: '4' },
    ]);
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'cli', '--', ...args, '--time-of-day-windows', windows], {
      cwd: projectRoot,
      env,
      timeout: 120_000,
    });
    expect(JSON.parse(stdout.slice(stdout.indexOf('{')))).toMatchObject({
      model_slug: 'cli-night-llm',
      time_of_day_windows: [{ name: 'night', days: [6, 7], start_utc: '22:00', end_utc: '06:00', input_cost_per_million: '1' }],
    });
  });
});
