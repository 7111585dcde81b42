// The Reconciliation page in headless Chromium against the real service: a day of events priced
// by hand-set cards through the signed ingest and the processor, an owner who uploads OpenAI's and
// Anthropic's cost and usage reports (their documented JSON shapes) through the page's form, sets
// the tolerance and polls a connection; every figure on screen is worked out by hand below.
// Screenshots go to test-results/reconciliation/.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../core/paths.js';
import { buildConsole, chromiumAvailable, launchChromium, type LaunchedBrowser } from '../support/chromium.js';
import { admin } from '../support/http.js';
import { PASSWORD, signedInPerson } from '../support/people.js';
import {
  createTenant,
  ingest,
  llmEvent,
  startPipeline,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';
import {
  ANTHROPIC_COST_REPORT,
  ANTHROPIC_USAGE_REPORT,
  OPENAI_COSTS_REPORT,
  OPENAI_USAGE_REPORT,
  RECONCILED_DAY as DAY,
  RECONCILIATION_CARDS,
} from '../support/provider-cost-reports.js';

const SHOTS = fromRoot('test-results', 'reconciliation');
/** January 2 and 3 (the picker's `to` is inclusive). */
const PAGE = '/reconciliation?range=custom&from=2026-01-02&to=2026-01-03';

/** Each event through llmEvent, at `at`, with its own model and tokens. */
const event = (n: number, model: string, at: string, input_tokens: number, output_tokens: number, extra: Partial<EventBody> = {}) =>
  llmEvent(`rec-page-${n}`, { model, input_tokens, output_tokens, timestamp: at, ...extra });

const EVENTS = [
  // gpt-4o: 2 × (1M × 2.5 + 100k × 10) / 1M = 2 × 3.5 = 7 (the OpenAI report: 6.9).
  event(0, 'gpt-4o', `${DAY}T09:00:00Z`, 1_000_000, 100_000),
  event(1, 'gpt-4o', `${DAY}T15:00:00Z`, 1_000_000, 100_000),
  // gpt-4o-mini: 1 000 003 × 0.15 / 1M = 0.15000045 (shown $0.15, exact on hover); OpenAI's report lacks it.
  event(2, 'gpt-4o-mini', `${DAY}T10:00:00Z`, 1_000_003, 0),
  // claude-sonnet-4: (1M × 3 + 200k × 15) / 1M = 6 (the Anthropic report: 5.97).
  event(3, 'claude-sonnet-4', `${DAY}T11:00:00Z`, 1_000_000, 200_000, { provider: 'anthropic' }),
  // January 3, which no report covers: 1M × 3 / 1M = 3.
  event(4, 'claude-sonnet-4', '2026-01-03T11:00:00Z', 1_000_000, 0, { provider: 'anthropic' }),
];

let p: Pipeline;
let t: Tenant;
let ownerEmail: string;
let browser: LaunchedBrowser;
let page: Page;

async function shot(name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** A money figure as shown (to the cent) and its exact value on hover. */
async function moneyAt(selector: string): Promise<{ shown: string; exact: string | null }> {
  const loc = page.locator(selector);
  await loc.waitFor({ timeout: 20_000 });
  const span = loc.locator('[title]').first();
  const holder = (await span.count()) > 0 ? span : loc;
  return { shown: ((await holder.textContent()) ?? '').trim(), exact: await holder.getAttribute('title') };
}

const kpi = (id: string) => moneyAt(`[data-kpi="${id}"] [data-value]`);
const cellSelector = (table: string, row: string, col: string) => `[data-table="${table}"] tr[data-row="${row}"] td[data-col="${col}"]`;
const cell = (table: string, row: string, col: string) => page.locator(cellSelector(table, row, col));
const row = (table: string, key: string) => page.locator(`[data-table="${table}"] tr[data-row="${key}"]`);

async function upload(format: string, name: string, report: unknown): Promise<void> {
  await page.selectOption('select[name="report-format"]', format);
  await page.setInputFiles('input[name="report-file"]', {
    name,
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(report)),
  });
  await page.click('[data-form="upload-report"] button[type="submit"]');
}

// Outside CI a machine without chromium skips the suite; CI (.ci/run installs chromium) always runs it.
const run = chromiumAvailable() || process.env.CI ? describe : describe.skip;

run('reconciliation in the console (headless Chromium)', () => {
  beforeAll(async () => {
    buildConsole();
    p = await startPipeline();
    t = await createTenant(p, { name: 'Reconciled', rateCards: RECONCILIATION_CARDS });
    await ingest(p, t, EVENTS);
    await waitForLake(p, t.organizationId, EVENTS.length);
    ownerEmail = (await signedInPerson(p.host, t.organizationId, 'owner')).email;
    browser = await launchChromium();
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await p?.stop();
  });

  it('before any report: says how to import one, and lists our cost as not covered', async () => {
    await page.goto(`${p.url}${PAGE}`);
    await page.fill('input[name="email"]', ownerEmail);
    await page.fill('input[name="password"]', PASSWORD);
    await page.click('[data-form="person"] button[type="submit"]');
    await page.locator(`[data-who="${ownerEmail}"]`).waitFor({ timeout: 20_000 });
    await page.locator('[data-empty="reconciliation"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-empty="reconciliation"]').textContent()).toContain('docs/reconciliation.md');
    // January 2, openai: 7 + 0.15000045.
    expect(await moneyAt(cellSelector('reconciliation-unreported', `${DAY}/openai`, 'our_cost'))).toEqual({
      shown: '$7.15',
      exact: 'exactly $7.15000045',
    });
    expect(await page.locator('[data-table="reconciliation-connections"] .empty').textContent()).toContain('No provider connected');
    await shot('empty');
  });

  it('reports uploaded through the form reconcile the day by hand: variance in money and percent, one-sided rows, the day out of tolerance', async () => {
    await upload('openai_costs', 'openai-costs.json', OPENAI_COSTS_REPORT);
    // 4.5 + 1.5 + 0.9 + 0.4 = 7.3 in three lines (proj_a's input and output summed).
    await expect
      .poll(() => page.locator('[data-imported]').textContent())
      .toBe('Imported 3 cost lines, $7.30 in all, replacing openai 2026-01-02.');
    await upload('anthropic_cost_report', 'anthropic-cost-report.json', ANTHROPIC_COST_REPORT);
    await expect.poll(() => page.locator('[data-imported]').textContent()).toContain('$6.22 in all, replacing anthropic 2026-01-02');

    // The day: provider 6.9 + 0.4 + 5.97 + 0.25 = 13.52; ours 7 + 0.15000045 + 6 = 13.15000045;
    // variance −0.36999955 = −2.7366…% of 13.52 → −2.74%, beyond 1%.
    await expect.poll(async () => (await kpi('provider-cost')).shown, { timeout: 20_000 }).toBe('$13.52');
    expect(await kpi('our-cost')).toEqual({ shown: '$13.15', exact: 'exactly $13.15000045' });
    expect(await kpi('variance')).toEqual({ shown: '-$0.37', exact: 'exactly -$0.36999955' });
    expect(await page.locator('[data-kpi="variance"] .kpi-note').textContent()).toBe('-2.74% of the provider’s cost');
    expect(await page.locator('[data-kpi="days-out"] [data-value]').textContent()).toBe('1 of 1');
    expect(await row('reconciliation-days', DAY).getAttribute('class')).toBe('out-of-tolerance');
    expect(await cell('reconciliation-days', DAY, 'variance_percent').textContent()).toBe('-2.74%');
    expect(await cell('reconciliation-days', DAY, 'providers').textContent()).toBe('anthropic, openai');

    const rows = 'reconciliation-rows';
    // gpt-4o: 7 − 6.9 = 0.1 = 1.4492…% → 1.45%, beyond 1%; the provider's projects beside.
    const gpt4o = `${DAY}/openai/gpt-4o`;
    expect((await moneyAt(cellSelector(rows, gpt4o, 'variance'))).shown).toBe('$0.10');
    expect(await cell(rows, gpt4o, 'variance_percent').textContent()).toBe('1.45%');
    expect(await cell(rows, gpt4o, 'projects').textContent()).toBe('proj_a $6.00, proj_b $0.90');
    expect(await row(rows, gpt4o).getAttribute('class')).toBe('out-of-tolerance');
    // claude-sonnet-4: 6 − 5.97 = 0.03 = 0.5025…% → 0.50%, within 1%.
    const sonnet = `${DAY}/anthropic/claude-sonnet-4`;
    expect(await cell(rows, sonnet, 'variance_percent').textContent()).toBe('0.50%');
    expect(await cell(rows, sonnet, 'tolerance').textContent()).toBe('within');
    expect(await row(rows, sonnet).getAttribute('class')).toBeNull();
    // Only the provider has dall-e-3 (−0.4, −100%) and claude-haiku-4-5 (−0.25, −100%).
    for (const [key, variance] of [
      [`${DAY}/openai/dall-e-3`, '-$0.40'],
      [`${DAY}/anthropic/claude-haiku-4-5`, '-$0.25'],
    ] as const) {
      expect(await cell(rows, key, 'model').locator('[data-side]').getAttribute('data-side')).toBe('provider_only');
      expect((await moneyAt(cellSelector(rows, key, 'variance'))).shown).toBe(variance);
      expect(await cell(rows, key, 'variance_percent').textContent()).toBe('-100.00%');
    }
    // Only we have gpt-4o-mini: +0.15000045 over a zero provider cost, no percent.
    const mini = `${DAY}/openai/gpt-4o-mini`;
    expect(await cell(rows, mini, 'model').locator('[data-side]').getAttribute('data-side')).toBe('ours_only');
    expect(await moneyAt(cellSelector(rows, mini, 'variance'))).toEqual({ shown: '$0.15', exact: 'exactly $0.15000045' });
    expect(await cell(rows, mini, 'variance_percent').textContent()).toBe('no provider cost');
    // January 3 stays uncompared: claude-sonnet-4's 3.
    expect((await moneyAt(cellSelector('reconciliation-unreported', '2026-01-03/anthropic', 'our_cost'))).shown).toBe('$3.00');
    await shot('reconciled');
  });

  it("usage reports uploaded through the form set the providers' tokens against ours", async () => {
    expect(await page.locator('[data-table="reconciliation-tokens"]').count()).toBe(0);
    await upload('openai_usage_completions', 'openai-usage.json', OPENAI_USAGE_REPORT);
    // gpt-4o: (1.5M − 300k) + 400k not from cache, 300k cached, 150k + 50k out.
    await expect
      .poll(() => page.locator('[data-imported]').textContent())
      .toBe('Imported 2 usage lines: 1,600,000 input, 300,000 cached input and 200,000 output tokens, replacing openai 2026-01-02.');
    await upload('anthropic_usage_report', 'anthropic-usage.json', ANTHROPIC_USAGE_REPORT);
    await expect.poll(() => page.locator('[data-imported]').textContent()).toContain('replacing anthropic 2026-01-02');

    const tokens = 'reconciliation-tokens';
    const text = (key: string, col: string) => cell(tokens, key, col).textContent();
    await page.locator(`[data-table="${tokens}"]`).waitFor({ timeout: 20_000 });
    // gpt-4o: ours 2 × 1M in, 2 × 100k out; theirs 1.6M, 300k cached, 200k: +400,000, −300,000, 0.
    const gpt4o = `${DAY}/openai/gpt-4o`;
    await expect.poll(() => text(gpt4o, 'input_tokens_variance'), { timeout: 20_000 }).toBe('+400,000');
    expect(await text(gpt4o, 'input_tokens_provider')).toBe('1,600,000');
    // Our counts only on request.
    expect(await cell(tokens, gpt4o, 'input_tokens_ours').count()).toBe(0);
    await page.check('input[name="tokens-with-ours"]');
    await expect.poll(() => text(gpt4o, 'input_tokens_ours')).toBe('2,000,000');
    expect(await text(gpt4o, 'cached_input_tokens_variance')).toBe('−300,000');
    expect(await text(gpt4o, 'output_tokens_variance')).toBe('0');
    // gpt-4o-mini, only ours: +1,000,003 in.
    expect(await text(`${DAY}/openai/gpt-4o-mini`, 'input_tokens_variance')).toBe('+1,000,003');
    // claude-sonnet-4: ours 1M in, 200k out; theirs 850k, 150k cached, 200k: +150,000, −150,000, 0.
    const sonnet = `${DAY}/anthropic/claude-sonnet-4`;
    expect(await text(sonnet, 'input_tokens_variance')).toBe('+150,000');
    expect(await text(sonnet, 'cached_input_tokens_variance')).toBe('−150,000');
    // The cost figures are unchanged by a usage import.
    expect(await kpi('provider-cost')).toMatchObject({ shown: '$13.52' });
    await shot('tokens-with-ours');
    await page.uncheck('input[name="tokens-with-ours"]');
    await shot('tokens');
  });

  it('a wider tolerance set on the page brings the day within it', async () => {
    await page.fill('input[name="tolerance-percent"]', '3');
    await page.click('[data-form="tolerance"] button[type="submit"]');
    // 3%: the day (2.74%) and gpt-4o (1.45%) are within; the one-sided rows stay out.
    await expect.poll(() => page.locator('[data-kpi="days-out"] [data-value]').textContent(), { timeout: 20_000 }).toBe('0 of 1');
    expect(await row('reconciliation-days', DAY).getAttribute('class')).toBeNull();
    expect(await cell('reconciliation-rows', `${DAY}/openai/gpt-4o`, 'tolerance').textContent()).toBe('within');
    expect(await cell('reconciliation-rows', `${DAY}/openai/dall-e-3`, 'tolerance').textContent()).toBe('out of tolerance');
    expect(await page.locator('[data-form="tolerance"] label').textContent()).toContain('(now 3%)');
    // A refusal names the field, in the API's words.
    await page.fill('input[name="tolerance-percent"]', '2000');
    await page.click('[data-form="tolerance"] button[type="submit"]');
    await expect
      .poll(() => page.locator('[data-section="provider-reports"] [role="alert"][data-field="tolerance_percent"]').count())
      .toBe(1);
  });

  it("a connection's poll and its error show on the page", async () => {
    // Nothing listens on port 9: the poll fails and the connection keeps the error.
    const put = await admin(p.host, 'PUT', `/organizations/${t.organizationId}/reconciliation-connections/openai`, {
      admin_key: 'sk-admin-page-test-9876',
      api_url: 'http://127.0.0.1:9',
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await page.reload();
    const status = cell('reconciliation-connections', 'openai', 'status');
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('not polled yet');
    expect(await cell('reconciliation-connections', 'openai', 'key').textContent()).toBe('…9876');
    await cell('reconciliation-connections', 'openai', 'actions').locator('button:has-text("Poll now")').click();
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toMatch(/^failed: /);
    expect(await cell('reconciliation-connections', 'openai', 'polled').textContent()).not.toBe('—');
    await shot('connection-failed');
  });

  it('a read key sees the figures but not the admin section', async () => {
    await page.click('.who button:has-text("Sign out")');
    await page.fill('input[name="api-key"]', t.readKey);
    await page.click('[data-form="api-key"] button[type="submit"]');
    await page.locator('.who:has-text("API key")').waitFor({ timeout: 20_000 });
    await page.goto(`${p.url}${PAGE}`);
    await expect.poll(async () => (await kpi('provider-cost')).shown, { timeout: 20_000 }).toBe('$13.52');
    expect(await page.locator('nav a[data-nav="Reconciliation"]').count()).toBe(1);
    expect(await page.locator('[data-section="provider-reports"]').count()).toBe(0);
    await shot('read-key');
  });
});
