// The console's decision views in headless Chromium against the real service: the Overview's
// month-end forecast card and the anomaly markers on its cost chart, and the Customers page's
// price advice, each compared with the API's answer (GET /v1/forecasts, /v1/anomalies,
// /v1/forecasts/price-advice) for the same key; the what-if panel of the Overview and of a
// customer's page against figures worked out by hand. Screenshots go to test-results/decisions/.
import Big from 'big.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endUserIdFor } from '../../core/ids.js';
import { fromRoot } from '../../core/paths.js';
import { launchChromium, chromiumAvailable, type LaunchedBrowser } from '../support/chromium.js';
import { admin } from '../support/http.js';
import {
  apiGet,
  createTenant,
  ingest,
  issueKey,
  llmEvent,
  startPipeline,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';

const SHOTS = fromRoot('test-results', 'decisions');
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const isoDay = (daysAgo: number) => new Date(today - daysAgo * DAY).toISOString().slice(0, 10);
const SPIKE_DAY = isoDay(1);
// $10 per million input tokens: 100 000 input tokens cost $1.
const CARD = {
  model_slug: 'acme-model',
  input_cost_per_million: '10',
  output_cost_per_million: '20',
  effective_from: '2025-01-01T00:00:00Z',
};

/**
 * alice $2 at noon on each of the 35 days before yesterday and $8 yesterday (a 4× spike); bob $1 or
 * $1.30 on weekdays (by day, so the forecast's backtest has some spread; never an anomaly: under $1 more).
 */
function events(): EventBody[] {
  const out: EventBody[] = [];
  for (let n = 36; n >= 1; n--) {
    const noon = new Date(today - n * DAY + 12 * 3_600_000);
    const spend = (key: string, user: string, tokens: number) =>
      out.push(
        llmEvent(key, { user_id: user, model: 'acme-model', input_tokens: tokens, output_tokens: 0, timestamp: noon.toISOString() }),
      );
    spend(`alice-${n}`, 'alice', n === 1 ? 800_000 : 200_000);
    if (noon.getUTCDay() !== 0 && noon.getUTCDay() !== 6) spend(`bob-${n}`, 'bob', n % 3 === 0 ? 130_000 : 100_000);
  }
  return out;
}

// The what-if tenant: acme-model as above and acme-mini at $2 input / $4 output per million.
const MINI = { ...CARD, model_slug: 'acme-mini', input_cost_per_million: '2', output_cost_per_million: '4' };
/** The what-if range: the 3 days before today (the console's custom range, end day inclusive). */
const WHAT_IF_RANGE = `range=custom&from=${isoDay(3)}&to=${isoDay(1)}`;

/**
 * At noon on each of the 3 days: carol 100k input + 50k output of acme-model ($1 + $1 = $2); dave
 * 200k input of acme-model ($2) and 100k input of acme-mini ($0.20); on the middle day one event
 * without an end user, 100k input of acme-model ($1). Actual: carol $6, dave $6.60, total $13.60.
 */
function whatIfEvents(): EventBody[] {
  const out: EventBody[] = [];
  for (let n = 3; n >= 1; n--) {
    const timestamp = new Date(today - n * DAY + 12 * 3_600_000).toISOString();
    const e = (key: string, fields: Record<string, unknown>) =>
      out.push(llmEvent(`${key}-${n}`, { model: 'acme-model', output_tokens: 0, timestamp, ...fields }));
    e('carol', { user_id: 'carol', input_tokens: 100_000, output_tokens: 50_000 });
    e('dave', { user_id: 'dave', input_tokens: 200_000 });
    e('dave-mini', { user_id: 'dave', model: 'acme-mini', input_tokens: 100_000 });
    if (n === 2) e('nobody', { input_tokens: 100_000 });
  }
  return out;
}

const amount = (text: string | null) => new Big((text ?? '').trim().replace(/[$,]/g, '').replace(/%$/, ''));
/** Forecasts are estimates: the console shows them to the cent, half-up (the exact figure on hover). */
const cents = (value: string) => new Big(value).round(2, Big.roundHalfUp);

let p: Pipeline;
let t: Tenant;
/** The what-if tenant, its saved scenario "Mini, same tokens" (acme-model → acme-mini, ratio 1). */
let w: Tenant;
let sameTokens: { id: string; name: string };
let browser: LaunchedBrowser;
let page: Page;

async function shot(name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** The JSON answer the page gets from `path` (under /v1) while `act` runs: what its figures come from. */
async function answerTo(path: string, act: () => Promise<unknown>): Promise<any> {
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().startsWith(`${p.url}/v1${path}`) && r.status() === 200), act()]);
  return res.json();
}

async function signIn(key: string, at: string): Promise<void> {
  await page.evaluate('sessionStorage.clear()').catch(() => undefined);
  await page.goto(`${p.url}${at}`);
  await page.fill('input[name="api-key"]', key);
  await page.click('[data-form="api-key"] button[type="submit"]');
}

/** A figure's text once loaded. */
async function figure(selector: string): Promise<string> {
  const loc = page.locator(selector);
  await expect
    .poll(async () => (await loc.count()) > 0 && !((await loc.textContent()) ?? '').includes('…'), { timeout: 20_000 })
    .toBe(true);
  return (await loc.textContent())!;
}

// Outside CI a machine without chromium skips the suite; CI (.ci/run installs chromium) always runs it.
const run = chromiumAvailable() || process.env.CI ? describe : describe.skip;

run('decision views in the console (headless Chromium)', () => {
  beforeAll(async () => {
    // The console is build output (dist/console); build it from this checkout so the test sees the source.
    execFileSync('npx', ['vite', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], {
      cwd: fromRoot(),
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    p = await startPipeline();
    t = await createTenant(p, { rateCards: [CARD] });
    const evs = events();
    await ingest(p, t, evs);
    const month = isoDay(0).slice(0, 7);
    const next = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1)).toISOString().slice(0, 10);
    const imported = await admin(p.host, 'POST', `/organizations/${t.organizationId}/revenue-records`, {
      records: [
        { id: 'alice-month', user_id: 'alice', customer_name: 'Alice Ltd', amount: '100', period_start: `${month}-01`, period_end: next },
        { id: 'bob-30', user_id: 'bob', customer_name: 'Bob & Co', amount: '20', period_start: isoDay(10), period_end: isoDay(-20) },
      ],
    });
    expect(imported.status).toBe(200);
    await waitForLake(p, t.organizationId, evs.length, 90_000);
    w = await createTenant(p, { rateCards: [CARD, MINI] });
    const wEvents = whatIfEvents();
    await ingest(p, w, wEvents);
    // carol's revenue: $10 for exactly the range's 3 days, all of it recognized in the range.
    const carolRevenue = await admin(p.host, 'POST', `/organizations/${w.organizationId}/revenue-records`, {
      records: [
        { id: 'carol-3d', user_id: 'carol', customer_name: 'Carol plc', amount: '10', period_start: isoDay(3), period_end: isoDay(0) },
      ],
    });
    expect(carolRevenue.status).toBe(200);
    const saved = await fetch(`${p.url}/v1/what-if/scenarios`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.readKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Mini, same tokens',
        scenario: { substitutions: [{ from_model: 'acme-model', to_model: 'acme-mini' }] },
      }),
    });
    expect(saved.status).toBe(201);
    sameTokens = (await saved.json()) as { id: string; name: string };
    await waitForLake(p, w.organizationId, wEvents.length, 90_000);
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await p?.stop();
  });

  it('overview: the month-end forecast card shows the API figures and interval; the spike is marked on the cost chart', async () => {
    // A forecast moves with the clock (hour by hour): the page's figures are compared with the
    // answer it got, and that answer with a fresh one of the API (same cost so far, same method).
    const f = await answerTo('/forecasts?horizon=month-end', () => signIn(t.readKey, '/?range=last-30-days'));
    await page.locator('[data-page="overview"]').waitFor();
    const fresh = (await apiGet(p, t.readKey, '/forecasts', { horizon: 'month-end' })).body;
    expect([fresh.observed_cost, fresh.revenue, fresh.method]).toEqual([f.observed_cost, f.revenue, f.method]);
    expect(f.revenue).not.toBeNull();
    expect(amount(await figure('[data-forecast="cost"] [data-value]')).eq(cents(f.cost.value))).toBe(true);
    const exact = await page.locator('[data-forecast="cost"] [data-value]').getAttribute('title');
    expect(amount(exact!.replace('exactly ', '')).eq(f.cost.value)).toBe(true);
    const interval = await figure('[data-forecast="cost"] [data-interval]');
    const [low, high] = interval.replace('likely ', '').split(' – ');
    expect(amount(low!).eq(cents(f.cost.low)) && amount(high!).eq(cents(f.cost.high))).toBe(true);
    // bob's uneven days give the backtest some spread.
    expect(new Big(f.cost.low).lt(f.cost.high)).toBe(true);
    expect(amount((await figure('[data-forecast="cost"] .kpi-note')).replace(' spent so far', '')).eq(f.observed_cost)).toBe(true);
    expect(amount(await figure('[data-forecast="revenue"] [data-value]')).eq(cents(f.revenue.value))).toBe(true);
    expect(amount(await figure('[data-forecast="margin"] [data-value]')).eq(cents(f.margin.value))).toBe(true);
    // The known revenue: alice's 100 for this month, bob's 20 over [−10, +20) days recognized inside it.
    expect(new Big(f.revenue.value).gte(100)).toBe(true);

    const anomalies = (await apiGet(p, t.readKey, '/anomalies', { start_date: isoDay(29), end_date: isoDay(-1) })).body;
    // alice's end-user series and the model's: cost 8 against a baseline of 2 (the same weekday's median).
    expect(
      anomalies.items.map((a: { date: string; dimension: string; value: string }) => `${a.date} ${a.dimension} ${a.value}`).sort(),
    ).toEqual([`${SPIKE_DAY} end_user alice`, `${SPIKE_DAY} model acme-model`]);
    const chart = page.locator('[data-chart="cost-over-time"][data-ready]');
    await chart.waitFor();
    // Both fall on one daily bucket: one marker, naming both.
    await expect.poll(() => chart.getAttribute('data-markers')).toBe('1');
    expect(await chart.getAttribute('title')).toContain(`${SPIKE_DAY}: alice (end user): $8.00 vs $2.00 usual`);
    const item = page.locator(`[data-anomaly="${SPIKE_DAY}/end_user/alice"]`);
    expect(await item.textContent()).toBe(`${SPIKE_DAY} — alice (end user): $8.00 vs $2.00 usual, mostly acme-model (model)`);
    await shot('overview-forecast-and-anomalies');
  });

  it('customers: price advice beside the margins equals the API for the chosen target', async () => {
    const advice = await answerTo('/forecasts/price-advice?target_margin_percent=40', () =>
      page.goto(`${p.url}/customers?range=last-30-days`),
    );
    const fresh = (await apiGet(p, t.readKey, '/forecasts/price-advice', { target_margin_percent: '40' })).body;
    expect(fresh.customers.map((c: { current_price: string }) => c.current_price)).toEqual(
      advice.customers.map((c: { current_price: string }) => c.current_price),
    );
    expect(advice.customers.map((c: { external_id: string }) => c.external_id).sort()).toEqual(['alice', 'bob']);
    const cell = (row: string, col: string) => page.locator(`[data-table="price-advice"] tr[data-row="${row}"] td[data-col="${col}"]`);
    await page.locator('[data-table="price-advice"] tbody tr').first().waitFor();
    // The API's order: plans that fall short first.
    const trs = await page.locator('[data-table="price-advice"] tbody tr').all();
    const rows = await Promise.all(trs.map((tr) => tr.getAttribute('data-row')));
    expect(rows).toEqual(advice.customers.map((c: { end_user_id: string }) => c.end_user_id));
    for (const c of advice.customers) {
      expect(amount(await cell(c.end_user_id, 'price').textContent()).eq(c.current_price)).toBe(true);
      expect(amount(await cell(c.end_user_id, 'forecast_cost').textContent()).eq(cents(c.forecast_cost.value))).toBe(true);
      expect(amount(await cell(c.end_user_id, 'required_price').textContent()).eq(c.required_price)).toBe(true);
      expect(await cell(c.end_user_id, 'verdict').textContent()).toBe(c.reaches_target ? 'reaches target' : 'falls short');
    }
    // bob pays 20 for 30 days that cost about $1 a weekday (~$21): short of 40% whatever the exact forecast.
    const bob = advice.customers.find((c: { external_id: string }) => c.external_id === 'bob');
    expect(bob.reaches_target).toBe(false);
    expect(await cell(endUserIdFor(t.organizationId, 'bob'), 'customer').textContent()).toBe('Bob & Co');
    await shot('customers-price-advice');
    // Another target goes to the URL and the column follows the API's answer for it.
    const at20 = await answerTo('/forecasts/price-advice?target_margin_percent=20', () =>
      page.selectOption('select[aria-label="Target margin"]', '20'),
    );
    await expect.poll(() => page.url()).toContain('target=20');
    const alice = at20.customers.find((c: { external_id: string }) => c.external_id === 'alice');
    await expect
      .poll(async () => amount(await cell(alice.end_user_id, 'required_price').textContent()).eq(alice.required_price))
      .toBe(true);
    const headers = await page.locator('[data-table="price-advice"] th').allTextContents();
    expect(headers.some((h) => h.startsWith('Price for 20%'))).toBe(true);
    expect(await cell(alice.end_user_id, 'verdict').textContent()).toBe(alice.reaches_target ? 'reaches target' : 'falls short');
    await shot('customers-price-advice-20');
  });

  it('a key without revenue:read: the forecast shows cost only, price advice names the missing scope', async () => {
    const costsOnly = await issueKey(p, t, ['costs:read']);
    const f = await answerTo('/forecasts?horizon=month-end', () => signIn(costsOnly, '/?range=last-30-days'));
    await page.locator('[data-page="overview"]').waitFor();
    expect([f.revenue, f.margin]).toEqual([null, null]);
    expect(amount(await figure('[data-forecast="cost"] [data-value]')).eq(cents(f.cost.value))).toBe(true);
    expect(await figure('[data-forecast="revenue"] [data-value]')).toBe('—');
    expect(await figure('[data-forecast="revenue"] .kpi-note')).toContain('revenue:read');
    await shot('overview-forecast-cost-only');
    await page.goto(`${p.url}/customers?range=last-30-days`);
    await expect
      .poll(() => page.locator('[data-card="price-advice"] .missing-scope').textContent(), { timeout: 20_000 })
      .toContain('revenue:read');
    await shot('customers-price-advice-missing-scope');
  });

  /** A what-if figure tile: its text to the cent and its exact value on hover. */
  async function tile(id: string): Promise<{ shown: Big; exact: Big }> {
    const loc = page.locator(`[data-kpi="${id}"] [data-value]`);
    const shown = amount(await figure(`[data-kpi="${id}"] [data-value]`));
    return { shown, exact: amount((await loc.getAttribute('title'))!.replace('exactly ', '')) };
  }
  const whatIfCell = (table: string, row: string, col: string) =>
    page.locator(`[data-table="${table}"] tr[data-row="${row}"] td[data-col="${col}"]`);

  it('overview what-if: acme-model → acme-mini at 1.5× tokens over 3 days, per customer with margins; saved, compared, deleted', async () => {
    await signIn(w.readKey, `/?${WHAT_IF_RANGE}`);
    const panel = page.locator('[data-card="what-if"]');
    await panel.locator('[data-empty="what-if"]').waitFor();
    // A ratio that is not a number is refused in the form, before any request.
    await expect.poll(() => panel.locator('select[name="from-model"] option').count(), { timeout: 20_000 }).toBeGreaterThan(1);
    await panel.locator('select[name="from-model"]').selectOption('acme-model');
    await panel.locator('input[name="to-model"]').fill('acme-mini');
    await panel.locator('input[name="token-ratio"]').fill('one and a half');
    await panel.locator('[data-form="what-if"] button[type="submit"]').click();
    expect(await panel.locator('[data-error="what-if-form"]').textContent()).toContain('token ratio');
    await panel.locator('input[name="token-ratio"]').fill('1.5');
    const answer = await answerTo('/what-if', () => panel.locator('[data-form="what-if"] button[type="submit"]').click());
    // acme-model events at 1.5× tokens on acme-mini ($2 in, $4 out per million):
    //   carol 150k in + 75k out = $0.30 + $0.30 = $0.60 a day → $1.80 (was $6);
    //   dave 300k in = $0.60 + his acme-mini $0.20 unchanged = $0.80 a day → $2.40 (was $6.60);
    //   the event without an end user 150k in = $0.30 (was $1).
    //   Total $13.60 → $4.50, difference −$9.10. Margins: carol $10 − $6 = $4 → $10 − $1.80 = $8.20; dave has no revenue.
    expect([answer.actual_cost, answer.simulated_cost, answer.difference].map((v: string) => new Big(v).toFixed(2))).toEqual([
      '13.60',
      '4.50',
      '-9.10',
    ]);
    for (const [id, want] of [
      ['what-if-actual', '13.6'],
      ['what-if-simulated', '4.5'],
      ['what-if-difference', '-9.1'],
    ] as const) {
      const f = await tile(id);
      expect(f.shown.eq(want) && f.exact.eq(want)).toBe(true);
    }
    const carol = endUserIdFor(w.organizationId, 'carol');
    const dave = endUserIdFor(w.organizationId, 'dave');
    const expected: Record<string, Record<string, string | null>> = {
      [carol]: { actual: '6', simulated: '1.8', difference: '-4.2', margin_before: '4', margin_after: '8.2' },
      [dave]: { actual: '6.6', simulated: '2.4', difference: '-4.2', margin_before: null, margin_after: null },
    };
    await page.locator('[data-table="what-if-end-users"] tbody tr').first().waitFor();
    for (const [row, cols] of Object.entries(expected)) {
      for (const [col, want] of Object.entries(cols)) {
        const text = await whatIfCell('what-if-end-users', row, col).textContent();
        if (want === null) expect(text).toBe('—');
        else expect(amount(text).eq(want)).toBe(true);
      }
    }
    // Named as the console names customers: carol by her revenue record's customer name.
    expect(await whatIfCell('what-if-end-users', carol, 'customer').textContent()).toBe('Carol plc');
    expect(await whatIfCell('what-if-end-users', dave, 'customer').textContent()).toBe('dave');
    await panel.screenshot({ path: path.join(SHOTS, 'overview-what-if.png') });

    // Saved under a name, then compared with the scenario saved before (ratio 1: carol 0.40 a day,
    // dave 0.40 + 0.20, the unattributed 0.20: $1.20 + $1.80 + $0.20 = $3.20).
    await panel.locator('input[name="scenario-name"]').fill('Mini at 1.5x tokens');
    await panel.locator('[data-form="save-scenario"] button[type="submit"]').click();
    await panel.locator('[data-table="what-if-scenarios"] tr[data-row="Mini at 1.5x tokens"]').waitFor();
    const listed = (await apiGet(p, w.readKey, '/what-if/scenarios')).body;
    expect(listed.items.map((s: { name: string }) => s.name)).toEqual(['Mini, same tokens', 'Mini at 1.5x tokens']);
    await panel.locator('select[name="compare"]').selectOption(sameTokens.id);
    const first = 'acme-model → acme-mini (tokens × 1.5)';
    await page.locator(`[data-table="what-if-compare"] tr[data-row="${sameTokens.name}"]`).waitFor();
    expect(amount(await whatIfCell('what-if-compare', first, 'simulated').textContent()).eq('4.5')).toBe(true);
    expect(amount(await whatIfCell('what-if-compare', sameTokens.name, 'simulated').textContent()).eq('3.2')).toBe(true);
    expect(amount(await whatIfCell('what-if-compare', sameTokens.name, 'difference').textContent()).eq('-10.4')).toBe(true);
    // $3.20 − $4.50.
    expect(amount((await panel.locator('[data-what-if="between"]').textContent())!.split(': ')[1]!).eq('-1.3')).toBe(true);
    await panel.screenshot({ path: path.join(SHOTS, 'overview-what-if-compared.png') });

    // Deleted from the list (asked twice); the API no longer has it.
    const row = panel.locator('[data-table="what-if-scenarios"] tr[data-row="Mini at 1.5x tokens"]');
    await row.locator('button', { hasText: 'Delete' }).click();
    await row.locator('button.danger').click();
    await row.waitFor({ state: 'detached' });
    const after = (await apiGet(p, w.readKey, '/what-if/scenarios')).body;
    expect(after.items.map((s: { name: string }) => s.name)).toEqual(['Mini, same tokens']);
  });

  it("customer what-if: a saved scenario over the customer's events, margin before and after", async () => {
    const carol = endUserIdFor(w.organizationId, 'carol');
    await page.goto(`${p.url}/customers/${carol}?${WHAT_IF_RANGE}`);
    const panel = page.locator('[data-card="what-if"]');
    await expect.poll(() => panel.locator(`select[name="scenario"] option[value="${sameTokens.id}"]`).count(), { timeout: 20_000 }).toBe(1);
    await panel.locator('select[name="scenario"]').selectOption(sameTokens.id);
    const answer = await answerTo('/what-if', () => panel.locator('[data-form="what-if"] button[type="submit"]').click());
    // Only carol's events: 100k in + 50k out on acme-mini = $0.20 + $0.20 a day → $1.20 (was $6);
    // margin $10 − $6 = $4 → $10 − $1.20 = $8.80.
    expect(answer.end_users.map((u: { end_user_id: string }) => u.end_user_id)).toEqual([carol]);
    for (const [id, want] of [
      ['what-if-actual', '6'],
      ['what-if-simulated', '1.2'],
      ['what-if-difference', '-4.8'],
      ['what-if-margin-before', '4'],
      ['what-if-margin-after', '8.8'],
    ] as const) {
      const f = await tile(id);
      expect(f.shown.eq(want) && f.exact.eq(want)).toBe(true);
    }
    expect(await panel.locator('[data-what-if="label"]').textContent()).toBe('Scenario: Mini, same tokens');
    await panel.screenshot({ path: path.join(SHOTS, 'customer-what-if.png') });

    // A key without revenue:read: the same costs, no margins, and the panel says why.
    const costsOnly = await issueKey(p, w, ['costs:read']);
    await signIn(costsOnly, `/customers/${carol}?${WHAT_IF_RANGE}`);
    await expect.poll(() => panel.locator(`select[name="scenario"] option[value="${sameTokens.id}"]`).count(), { timeout: 20_000 }).toBe(1);
    await panel.locator('select[name="scenario"]').selectOption(sameTokens.id);
    await answerTo('/what-if', () => panel.locator('[data-form="what-if"] button[type="submit"]').click());
    expect((await tile('what-if-simulated')).exact.eq('1.2')).toBe(true);
    expect(await figure('[data-kpi="what-if-margin-after"] [data-value]')).toBe('—');
    expect(await panel.locator('[data-what-if="result"] .muted').last().textContent()).toContain('revenue:read');
    await panel.screenshot({ path: path.join(SHOTS, 'customer-what-if-no-revenue-scope.png') });
  });
});
