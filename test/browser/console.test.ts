// The console in headless Chromium against the real service: events go in through the signed
// ingest endpoint, the processor prices them into the lake, and each page's figures on screen are
// compared with the API's answer for the same range (and the API's totals with sums worked out
// here). Screenshots of every page go to test-results/console/.
import Big from 'big.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const SHOTS = fromRoot('test-results', 'console');
const DAY = 86_400_000;
const today = new Date(Math.floor(Date.now() / DAY) * DAY);
const at = (daysAgo: number, hour: number, ms = 0) => new Date(today.getTime() - daysAgo * DAY + hour * 3_600_000 + ms).toISOString();
const isoDay = (daysAgo: number) => at(daysAgo, 0).slice(0, 10);
const LAST_7 = { start_date: isoDay(6), end_date: isoDay(-1) };

// Priced by the tenant's gpt-4o card: 1000 × 2.5 / 1M + 200 × 10 / 1M = 0.0045 each.
const PRICED = new Big(1000).times('2.5').plus(new Big(200).times(10)).div(1_000_000);

function events(): EventBody[] {
  const e: EventBody[] = [];
  for (let i = 0; i < 4; i++) {
    e.push(
      llmEvent(`alice-${i}`, {
        user_id: 'alice',
        model: 'gpt-4o',
        input_tokens: 1000,
        output_tokens: 200,
        timestamp: at(1 + (i % 2), 9 + i),
        agent_id: 'planner',
        workflow_id: 'support',
        metadata: { team: 'search', latency_ms: 100 + i },
      }),
    );
  }
  for (let i = 0; i < 3; i++) {
    e.push(
      llmEvent(`bob-${i}`, {
        user_id: 'bob',
        model: 'claude-x',
        provider: 'anthropic',
        cost_override: '1.25',
        timestamp: at(2, 10 + i),
        agent_id: 'coder',
        workflow_id: 'build',
        metadata: { team: 'ads', latency_ms: 250 },
      }),
    );
  }
  for (let i = 0; i < 2; i++)
    e.push(
      llmEvent(`carol-${i}`, { user_id: 'carol', model: 'gpt-4o-mini', provider: 'openai', cost_override: '0.1', timestamp: at(3, 8 + i) }),
    );
  e.push(llmEvent('nobody-0', { model: 'gpt-4o-mini', provider: 'openai', cost_override: '0.5', timestamp: at(1, 12) }));
  for (let i = 0; i < 2; i++) e.push(llmEvent(`mystery-${i}`, { user_id: 'carol', model: 'mystery-model-9', timestamp: at(1, 13 + i) }));
  // A session: root agent span with two children, an orphan (parent never sent) and one untraced event.
  const t0 = Date.parse(at(1, 15));
  const span = (
    key: string,
    spanId: string,
    parent: string | null,
    kind: string,
    name: string,
    startMs: number,
    endMs: number,
    cost: string,
  ) =>
    llmEvent(key, {
      user_id: 'alice',
      cost_override: cost,
      session_id: 'run-1',
      span_id: spanId,
      ...(parent ? { parent_span_id: parent } : {}),
      span_kind: kind,
      span_name: name,
      started_at: new Date(t0 + startMs).toISOString(),
      timestamp: new Date(t0 + endMs).toISOString(),
      agent_id: 'planner',
    });
  e.push(span('s-root', 'root', null, 'agent', 'plan trip', 0, 4000, '0.01'));
  e.push(span('s-llm', 'llm-1', 'root', 'llm', 'draft itinerary', 500, 2500, '0.2'));
  e.push(span('s-tool', 'tool-1', 'root', 'tool', 'search flights', 2600, 3600, '0.03'));
  e.push(span('s-orphan', 'late-1', 'missing-parent', 'task', 'late callback', 3000, 3500, '0.005'));
  e.push(llmEvent('s-untraced', { user_id: 'alice', cost_override: '0.002', session_id: 'run-1', timestamp: at(1, 16) }));
  return e;
}
const SESSION_COST = ['0.01', '0.2', '0.03', '0.005', '0.002'].reduce((a, b) => a.plus(b), new Big(0));
// Completed events in the last 7 days, worked out by hand (the mystery events wait for a rate card).
const EXPECTED_COST = PRICED.times(4).plus(new Big('1.25').times(3)).plus(new Big('0.1').times(2)).plus('0.5').plus(SESSION_COST);
const EXPECTED_EVENTS = 4 + 3 + 2 + 1 + 5;

const amount = (text: string | null) => new Big((text ?? '').trim().replace(/[$,]/g, '').replace(/%$/, ''));

let p: Pipeline;
let t: Tenant;
let browser: LaunchedBrowser;
let page: Page;

async function shot(name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

async function open(pathAndQuery: string): Promise<void> {
  await page.goto(`${p.url}${pathAndQuery}`);
}

/** Text of a headline figure once it has loaded. */
async function kpi(id: string): Promise<string> {
  const loc = page.locator(`[data-kpi="${id}"] [data-value]`);
  await expect.poll(async () => (await loc.textContent()) ?? '…', { timeout: 20_000 }).not.toMatch(/…/);
  return (await loc.textContent())!;
}

/** A money tile: shown to the cent (half-up), its exact value on hover; true when both say `expected`. */
async function kpiMoneyIs(id: string, expected: Big.BigSource): Promise<boolean> {
  const shown = amount(await kpi(id));
  const title = (await page.locator(`[data-kpi="${id}"] [data-value]`).getAttribute('title')) ?? '';
  const exact = amount(title.replace(/^exactly /, ''));
  return shown.eq(new Big(expected).round(2, Big.roundHalfUp)) && exact.eq(expected);
}

/** Cell text of a table row (data-row) and column (data-col). */
function cell(table: string, row: string, col: string) {
  return page.locator(`[data-table="${table}"] tr[data-row="${row}"] td[data-col="${col}"]`);
}

// Outside CI a machine without chromium skips the suite; CI (.ci/run installs chromium) always runs it.
const run = chromiumAvailable() || process.env.CI ? describe : describe.skip;

run('console (headless Chromium)', () => {
  beforeAll(async () => {
    // The console is build output (dist/console); build it from this checkout so the test sees the source.
    execFileSync('npx', ['vite', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], {
      cwd: fromRoot(),
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    p = await startPipeline();
    t = await createTenant(p, {
      rateCards: [{ model_slug: 'gpt-4o', input_cost_per_million: '2.5', output_cost_per_million: '10' }],
      dimensions: [
        { key: 'team', value_type: 'string' },
        { key: 'latency_ms', value_type: 'number' },
      ],
    });
    const evs = events();
    await ingest(p, t, evs);
    const imported = await admin(p.host, 'POST', `/organizations/${t.organizationId}/revenue-records`, {
      records: [
        { id: 'inv-alice', user_id: 'alice', customer_name: 'Alice Ltd', amount: '100', period_start: isoDay(10), period_end: isoDay(-20) },
      ],
    });
    expect(imported.status).toBe(200);
    await waitForLake(p, t.organizationId, evs.length);
    browser = await launchChromium();
    page = await browser.context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await p?.stop();
  });

  it('renders the API reference at /docs: every operation of the document, with its summary', async () => {
    const doc = (await (await fetch(`${p.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary?: string }>> };
    const methods = new Set(['get', 'put', 'post', 'delete', 'patch']);
    const operations = Object.entries(doc.paths).flatMap(([route, item]) =>
      Object.entries(item)
        .filter(([m]) => methods.has(m))
        .map(([m, op]) => `${m.toUpperCase()} ${route} ${op.summary ?? ''}`),
    );
    expect(operations.length).toBeGreaterThan(80);
    await open('/docs');
    // Swagger UI builds the page from /openapi.json; a broken init script leaves no operation rows.
    await expect.poll(() => page.locator('.opblock-summary').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    fs.mkdirSync(SHOTS, { recursive: true });
    // The first screen only: the whole reference is one very long page.
    await page.screenshot({ path: path.join(SHOTS, 'api-docs.png') });
    // Past about 116 operations Swagger UI (5.3x) renders only the rows near the viewport, so the
    // page is read by scrolling it through, as a person would, collecting each row it shows.
    const seen = new Set<string>();
    for (let step = 0; step < 1000; step++) {
      // Strings, not functions: the test's TypeScript has no DOM library.
      const rows = await page.evaluate<string[]>(
        `[...document.querySelectorAll('.opblock-summary')].map((e) => [
          e.querySelector('.opblock-summary-method')?.textContent ?? '',
          e.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
          e.querySelector('.opblock-summary-description')?.textContent ?? '',
        ].join(' '))`,
      );
      for (const row of rows) seen.add(row);
      const atEnd = await page.evaluate<boolean>(
        '(() => { window.scrollBy(0, window.innerHeight / 2); return window.scrollY + window.innerHeight >= document.body.scrollHeight - 2; })()',
      );
      if (atEnd && seen.size >= operations.length) break;
      await page.waitForTimeout(atEnd ? 200 : 30);
    }
    expect([...seen].sort()).toEqual([...operations].sort());
    expect(seen).toContain('GET /cost-data/by-end-user List end users by cost');
  });

  it('serves the console at / without shadowing the API, docs or metrics', async () => {
    const root = await fetch(`${p.url}/customers/x`, { headers: { Accept: 'text/html' } });
    expect(root.status).toBe(200);
    const html = await root.text();
    expect(html).toContain('<div id="root">');
    // Every asset from our own server (no CDN), gzipped when the browser accepts it.
    const scripts = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith('data:'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const u of scripts) expect(u.startsWith('/assets/')).toBe(true);
    const js = await fetch(`${p.url}${scripts.find((u) => u.endsWith('.js'))}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-encoding')).toBe('gzip');
    const unknownApi = await fetch(`${p.url}/v1/no-such-route`, { headers: { Accept: 'text/html' } });
    expect(unknownApi.status).toBe(404);
    expect(((await unknownApi.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    expect((await fetch(`${p.url}/metrics`)).headers.get('content-type')).toContain('text/plain');
  });

  it('signs in: a wrong key gets a clear message, the right key opens the overview', async () => {
    await open('/?range=last-7-days');
    await page.fill('input[name="api-key"]', 'mk_live_wrong');
    await page.click('[data-form="api-key"] button[type="submit"]');
    await expect.poll(() => page.locator('[role="alert"]').textContent()).toContain('not accepted');
    await shot('sign-in');
    await page.fill('input[name="api-key"]', t.readKey);
    await page.click('[data-form="api-key"] button[type="submit"]');
    await page.locator('[data-page="overview"]').waitFor();
    expect(page.url()).not.toContain(t.readKey);
    expect(await page.evaluate('localStorage.length')).toBe(0);
  });

  it('overview: headline figures equal the API and the hand-worked totals; chart, top lists, warnings', async () => {
    await open('/?range=last-7-days');
    const cost = await apiGet(p, t.readKey, '/cost-data/by-end-user', LAST_7);
    expect(new Big(cost.body.total_cost).eq(EXPECTED_COST)).toBe(true);
    expect(await kpiMoneyIs('cost', cost.body.total_cost)).toBe(true);
    const margin = (await apiGet(p, t.readKey, '/margin-data/summary', LAST_7)).body;
    expect(await kpiMoneyIs('revenue', margin.total_revenue)).toBe(true);
    expect(await kpiMoneyIs('margin', margin.margin_amount)).toBe(true);
    expect(await kpi('margin-percent')).toBe(`${new Big(margin.margin_percent).toFixed(2)}%`);
    expect(await kpi('events')).toBe(String(EXPECTED_EVENTS));
    expect(await kpi('tokens')).toBe(
      (cost.body.end_users as any[]).reduce((n, u) => n + u.input_tokens + u.output_tokens, 0).toLocaleString('en-US'),
    );
    expect(amount(await kpi('cost-per-event')).eq(EXPECTED_COST.div(EXPECTED_EVENTS).round(6, Big.roundHalfUp))).toBe(true);
    // Nothing in the previous 7 days: no comparison.
    expect(await page.locator('[data-kpi="cost"] [data-change]').textContent()).toBe('previous period: none or 0');
    await page.locator('[data-chart="cost-over-time"][data-ready]').waitFor();
    const bobId = (cost.body.end_users as any[]).find((u) => u.end_user_name === 'bob').end_user_id;
    expect(amount(await cell('top-customers', bobId, 'cost').textContent()).eq('3.75')).toBe(true);
    expect(amount(await cell('top-agents', 'coder', 'cost').textContent()).eq('3.75')).toBe(true);
    await expect.poll(() => page.locator('[data-warning="pending-rate-card"]').textContent()).toContain('mystery-model-9 (2)');
    await shot('overview');
    // Split by provider: the chart's series follow.
    await page.selectOption('select[aria-label="Split cost by"]', 'provider');
    await expect.poll(() => page.url()).toContain('split=provider');
    await page.locator('[data-chart="cost-over-time"][data-ready]').waitFor();
    expect(await page.locator('[data-chart="cost-over-time"] .u-legend').textContent()).toContain('anthropic');
  });

  it('date picker: presets and a custom day go to the URL and the figures follow', async () => {
    await open('/?range=last-7-days');
    await kpi('cost');
    await page.selectOption('select[aria-label="Date range"]', 'last-90-days');
    await expect.poll(() => page.url()).toContain('range=last-90-days');
    await page.selectOption('select[aria-label="Date range"]', 'custom');
    await page.fill('input[aria-label="From"]', isoDay(2));
    await page.fill('input[aria-label="To"]', isoDay(2));
    await page.click('.custom-range button[type="submit"]');
    await expect.poll(() => page.url()).toContain(`from=${isoDay(2)}`);
    const day = (await apiGet(p, t.readKey, '/cost-data/by-end-user', { start_date: isoDay(2), end_date: isoDay(1) })).body;
    // Two days ago: alice's events 1 and 3 (0.0045 each) and bob's three (1.25 each).
    expect(new Big(day.total_cost).eq(PRICED.times(2).plus('3.75'))).toBe(true);
    await expect.poll(async () => kpiMoneyIs('cost', day.total_cost)).toBe(true);
    // The link reproduces the view.
    await page.reload();
    expect(await kpiMoneyIs('cost', day.total_cost)).toBe(true);
    await shot('overview-custom-range');
  });

  it('customers: least profitable first, figures equal the margin API; CSV download; drill-down to a customer', async () => {
    await open('/customers?range=last-7-days');
    const margin = (await apiGet(p, t.readKey, '/margin-data/by-end-user', LAST_7)).body;
    await page.locator('[data-table="customers"] tbody tr').first().waitFor();
    const firstRow = await page.locator('[data-table="customers"] tbody tr').first().getAttribute('data-row');
    expect(firstRow).toBe(margin.end_users[0].end_user_id);
    for (const row of margin.end_users as any[]) {
      expect(amount(await cell('customers', row.end_user_id, 'cost').textContent()).eq(row.cost)).toBe(true);
      expect(amount(await cell('customers', row.end_user_id, 'revenue').textContent()).eq(row.revenue)).toBe(true);
      expect(amount(await cell('customers', row.end_user_id, 'margin').textContent()).eq(row.margin_amount)).toBe(true);
    }
    await shot('customers');
    // Sorting by cost: each click orders the rows by the exact amounts, in the direction the header shows.
    const costs = new Map<string, Big>((margin.end_users as any[]).map((u) => [u.end_user_id, new Big(u.cost)]));
    costs.set('unassigned', new Big('0.5'));
    for (let click = 0; click < 2; click++) {
      await page.click('[data-table="customers"] th:has-text("Cost")');
      const dir = await page.locator('[data-table="customers"] th:has-text("Cost")').getAttribute('aria-sort');
      const rows = await page.locator('[data-table="customers"] tbody tr').all();
      const order = (await Promise.all(rows.map((r) => r.getAttribute('data-row')))) as string[];
      const expected = [...order].sort((a, b) => costs.get(a)!.cmp(costs.get(b)!) * (dir === 'ascending' ? 1 : -1));
      expect(order).toEqual(expected);
      expect(order).toHaveLength(4);
    }
    await page.fill('[data-table="customers"] input.filter', 'caro');
    await expect.poll(() => page.locator('[data-table="customers"] tbody tr').count()).toBe(1);
    await page.fill('[data-table="customers"] input.filter', '');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-table="customers"] .table-toolbar button')]);
    const csv = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).toBe('Customer,Cost,Revenue,Margin,Margin %,Profitability,Events');
    const alice = (margin.end_users as any[]).find((u) => u.end_user_name === 'Alice Ltd');
    const aliceLine = csv.find((l) => l.startsWith('Alice Ltd,'))!.split(',');
    expect([aliceLine[1], aliceLine[2], aliceLine[3]]).toEqual([alice.cost, alice.revenue, alice.margin_amount]);

    await page.click(`[data-table="customers"] tr[data-row="${alice.end_user_id}"] a`);
    await page.locator('[data-page="customer"] [data-kpi="cost"]').waitFor();
    const summary = (await apiGet(p, t.readKey, '/end-user-costs/alice/summary', LAST_7)).body;
    expect(new Big(summary.total_cost).eq(PRICED.times(4).plus(SESSION_COST))).toBe(true);
    expect(await kpiMoneyIs('cost', summary.total_cost)).toBe(true);
    const byModel = (await apiGet(p, t.readKey, '/end-user-costs/alice/by-model', LAST_7)).body;
    for (const item of byModel.items as any[]) {
      expect(amount(await cell('customer-by-model', item.attribution_value, 'cost').textContent()).eq(item.total_cost)).toBe(true);
    }
    await page.locator('[data-chart="customer-cost"][data-ready]').waitFor();
    await page.locator('[data-chart="customer-margin"][data-ready]').waitFor();
    await cell('customer-by-feature', 'Unassigned', 'cost').waitFor();
    // Alice's sessions, with the whole-session cost the API reports.
    expect(amount(await cell('customer-sessions', 'run-1', 'cost').textContent()).eq(SESSION_COST)).toBe(true);
    await shot('customer');
  });

  it('agents and workflows, dimensions, events and rates pages show the API figures', async () => {
    await open('/agents?range=last-7-days');
    const agents = (await apiGet(p, t.readKey, '/attribution-data/by-agent', LAST_7)).body;
    for (const item of agents.items as any[]) {
      expect(amount(await cell('cost-by-agent', item.attribution_value, 'cost').textContent()).eq(item.total_cost)).toBe(true);
    }
    const byWorkflow = (await apiGet(p, t.readKey, '/attribution-data/by-dimension', { ...LAST_7, dimension: 'workflow_id' })).body;
    for (const item of byWorkflow.items as any[]) {
      expect(amount(await cell('cost-by-workflow', item.attribution_value, 'cost').textContent()).eq(item.total_cost)).toBe(true);
    }
    // The workflow list is its own request: wait for its rows before counting (CI once counted 0).
    const workflows = (await apiGet(p, t.readKey, '/attribution-data/workflows', LAST_7)).body;
    expect(workflows.values).toEqual(['build', 'support']);
    for (const value of workflows.values as string[]) await page.locator(`[data-table="workflows"] tr[data-row="${value}"]`).waitFor();
    expect(await page.locator('[data-table="workflows"] tbody tr').count()).toBe(2);
    await shot('agents');

    await open('/dimensions?range=last-7-days&dimension=team');
    const teams = (await apiGet(p, t.readKey, '/dimension-data/cost-breakdown', { ...LAST_7, dimension_key: 'team' })).body;
    for (const item of teams.items as any[]) {
      expect(amount(await cell('dimension-team', item.dimension_value, 'cost').textContent()).eq(item.total_cost)).toBe(true);
    }
    await page.locator('[data-chart="dimension-trend"][data-ready]').waitFor();
    await shot('dimensions');
    await open('/dimensions?range=last-7-days&dimension=latency_ms&aggregation=sum');
    const numeric = (await apiGet(p, t.readKey, '/dimension-data/numeric-summary', { ...LAST_7, dimension_key: 'latency_ms' })).body;
    expect(numeric.sum).toBe(String(100 + 101 + 102 + 103 + 3 * 250));
    expect(await kpi('num-sum')).toBe(numeric.sum);
    await shot('dimensions-numeric');

    await open('/events?range=last-7-days');
    const evs = (await apiGet(p, t.readKey, '/usage/events', { ...LAST_7, limit: 50 })).body;
    await page.locator('[data-table="events"] tbody tr').first().waitFor();
    expect(await page.locator('[data-table="events"] tbody tr').count()).toBe(evs.events.length);
    expect(await page.locator('[data-table="events"] tbody tr').first().getAttribute('data-row')).toBe(evs.events[0].id);
    await shot('events');

    await open('/rates');
    await cell('rates', 'gpt-4o', 'source').waitFor();
    expect(await cell('rates', 'gpt-4o', 'source').textContent()).toBe('yours');
    expect(amount(await cell('rates', 'gpt-4o', 'input').textContent()).eq('2.5')).toBe(true);
    // One-hour cache writes, context tiers and service tiers of a standard card, as the API answers
    // them and as Anthropic publishes them for Claude Sonnet 4.5: one-hour writes $6 (2x input);
    // above 200,000 prompt tokens $6 in / $22.50 out / $7.50 write / $12 1h write / $0.60 read;
    // batch half of each: $1.50 / $7.50 / $1.875 / $3 / $0.15, above 200,000 $3 / $11.25.
    const table = (await apiGet(p, t.readKey, '/rates')).body.items as any[];
    const sonnet = table.find((i) => i.model_slug === 'claude-sonnet-4-5');
    const batch = sonnet.service_tiers.find((s: any) => s.service_tier === 'batch');
    expect([
      sonnet.cache_creation_1h_cost_per_million,
      sonnet.tiers[0].input_cost_per_million,
      batch.cache_creation_cost_per_million,
    ]).toEqual(['6', '6', '1.875']);
    const shown = async (tableName: string, row: string, col: string) => (await cell(tableName, row, col).textContent())?.trim();
    expect(await shown('rates', 'claude-sonnet-4-5', 'cache_creation_1h')).toBe('$6.00');
    expect(await shown('rates', 'claude-sonnet-4-5', 'tiers')).toBe('above 200,000 · batch');
    expect(await shown('rates', 'gpt-4o', 'cache_creation_1h')).toBe('not priced');
    const long = 'claude-sonnet-4-5|standard|200000';
    expect(await shown('rate-tiers', long, 'above')).toBe('200,000');
    expect([
      await shown('rate-tiers', long, 'input'),
      await shown('rate-tiers', long, 'output'),
      await shown('rate-tiers', long, 'cache_creation'),
      await shown('rate-tiers', long, 'cache_creation_1h'),
      await shown('rate-tiers', long, 'cache_read'),
      await shown('rate-tiers', long, 'reasoning'),
    ]).toEqual(['$6.00', '$22.50', '$7.50', '$12.00', '$0.60', '$22.50']);
    const batchBase = 'claude-sonnet-4-5|batch|base';
    expect(await shown('rate-tiers', batchBase, 'above')).toBe('any size');
    // $1.875: every digit the API sent (a float-formatted cell would show $1.88)
    expect([
      await shown('rate-tiers', batchBase, 'input'),
      await shown('rate-tiers', batchBase, 'cache_creation'),
      await shown('rate-tiers', batchBase, 'cache_creation_1h'),
      await shown('rate-tiers', batchBase, 'cache_read'),
    ]).toEqual(['$1.50', '$1.875', '$3.00', '$0.15']);
    expect([
      await shown('rate-tiers', 'claude-sonnet-4-5|batch|200000', 'input'),
      await shown('rate-tiers', 'claude-sonnet-4-5|batch|200000', 'output'),
    ]).toEqual(['$3.00', '$11.25']);
    // Every tier row the API implies is on screen, and no other.
    const expectedRows = table.reduce(
      (n, i) => n + (i.tiers?.length ?? 0) + (i.service_tiers ?? []).reduce((m: number, s: any) => m + 1 + (s.tiers?.length ?? 0), 0),
      0,
    );
    expect(await page.locator('[data-table="rate-tiers"] tbody tr').count()).toBe(expectedRows);
    await shot('rates');
  });

  it('sessions: the list links to a waterfall with the API tree, timing bars and markers', async () => {
    await open('/sessions?range=last-7-days');
    await cell('sessions', 'run-1', 'cost').waitFor();
    expect(amount(await cell('sessions', 'run-1', 'cost').textContent()).eq(SESSION_COST)).toBe(true);
    await shot('sessions');
    await page.click('[data-table="sessions"] tr[data-row="run-1"] a');
    await page.locator('[data-page="session"] [data-span="root"]').waitFor();
    const tree = (await apiGet(p, t.readKey, '/attribution-data/sessions/run-1/tree')).body;
    expect(await page.locator('[data-span]').count()).toBe(tree.span_count);
    const root = tree.roots.find((r: any) => r.span_id === 'root');
    expect(amount(await page.locator('[data-span="root"] [data-col="subtree_cost"]').textContent()).eq(root.subtree_cost)).toBe(true);
    expect(new Big(root.subtree_cost).eq('0.24')).toBe(true);
    expect(await page.locator('[data-span="late-1"] [data-marker="orphaned"]').count()).toBe(1);
    expect(amount(await page.locator('[data-marker="untraced"] [data-col="own_cost"]').textContent()).eq('0.002')).toBe(true);
    expect(amount(await kpi('session-cost')).eq(SESSION_COST)).toBe(true);
    // The LLM span starts 0.5 s into a 4 s run and lasts 2 s: 12.5% from the left, 50% wide.
    const style = await page.locator('[data-span="llm-1"] .wf-bar').getAttribute('style');
    expect(style).toContain('left: 12.5%');
    expect(style).toContain('width: 50%');
    await shot('session-waterfall');
  });

  it('a key without a scope: the page names the missing scope instead of failing', async () => {
    const costsOnly = await issueKey(p, t, ['costs:read']);
    await page.evaluate('sessionStorage.clear()');
    await open('/customers?range=last-7-days');
    await page.fill('input[name="api-key"]', costsOnly);
    await page.click('[data-form="api-key"] button[type="submit"]');
    await expect.poll(() => page.locator('.missing-scope').first().textContent(), { timeout: 20_000 }).toContain('revenue:read');
    // Cost still shows for every customer.
    await page.locator('[data-table="customers"] tbody tr').first().waitFor();
    await shot('missing-scope');
  });
});
