// The console's decision views in headless Chromium against the real service: the Overview's
// month-end forecast card and the anomaly markers on its cost chart, and the Customers page's
// price advice, each compared with the API's answer (GET /v1/forecasts, /v1/anomalies,
// /v1/forecasts/price-advice) for the same key. Screenshots go to test-results/decisions/.
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

const amount = (text: string | null) => new Big((text ?? '').trim().replace(/[$,]/g, '').replace(/%$/, ''));
/** Forecasts are estimates: the console shows them to the cent, half-up (the exact figure on hover). */
const cents = (value: string) => new Big(value).round(2, Big.roundHalfUp);

let p: Pipeline;
let t: Tenant;
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
});
