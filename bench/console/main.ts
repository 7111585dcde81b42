// bench/console: the console's Overview in headless Chromium over bench/api's synthetic lake
// (default 5M events of one organization over 90 days): time from navigation to "fully rendered"
// (every headline figure, the cost chart, the top-customers and top-agents tables, the warnings
// settled), warm (service and browser caches warm) and on the first load after a service restart
// (new process on the same data: cold api caches, cold browser cache), medians; and the shipped
// JavaScript, gzipped. Writes bench/results/console.json and .md.
//
//   npx tsx bench/console/main.ts [--events 5000000] [--days 90] [--iterations 15] [--restarts 5]
//                                 [--data-dir DIR (reuses bench/api's lake there)] [--no-write]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import type { Page } from 'playwright-core';
import { CONSOLE_DIR } from '../../api/console-host/serve-console.js';
import { issueApiKey } from '../../core/control/api-keys.js';
import { createDimension } from '../../core/control/dimensions.js';
import { upsertEndUsers } from '../../core/control/end-users.js';
import { createOrganization } from '../../core/control/organizations.js';
import { SCOPES } from '../../core/auth/scopes.js';
import { fromRoot } from '../../core/paths.js';
import { launchChromium } from '../../test/support/chromium.js';
import { log, startSyntheticLakeHost } from '../api/synthetic-lake-host.js';
import { writeSyntheticLake } from '../api/synthetic-lake.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '5000000' },
    days: { type: 'string', default: '90' },
    iterations: { type: 'string', default: '15' },
    restarts: { type: 'string', default: '5' },
    'data-dir': { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
const DAYS = Number(values.days);
const ITERATIONS = Number(values.iterations);
const RESTARTS = Number(values.restarts);
const FIRST_DAY = new Date('2026-07-01T00:00:00.000Z');
const END_USERS = 1000;
const TARGETS = { warm_ms: 1000, first_load_after_restart_ms: 2000, js_gzip_kb: 250 };

// The Overview over the last 30 days of data (daily buckets), as a link would open it.
const lastDay = new Date(FIRST_DAY.getTime() + (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
const firstDay = new Date(FIRST_DAY.getTime() + (DAYS - 30) * 86_400_000).toISOString().slice(0, 10);
const OVERVIEW = `/?range=custom&from=${firstDay}&to=${lastDay}`;

interface Meta {
  organizationId: string;
  apiKey: string;
  events: number;
  days: number;
  writtenMs: number;
}

const dataDir = values['data-dir'] ? path.resolve(values['data-dir']) : fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-console-'));

log('building the console');
execFileSync('npx', ['vite', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'], {
  cwd: fromRoot(),
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'production' },
});
const jsFiles = fs.readdirSync(path.join(CONSOLE_DIR, 'assets')).filter((f) => f.endsWith('.js'));
const jsRaw = jsFiles.reduce((n, f) => n + fs.statSync(path.join(CONSOLE_DIR, 'assets', f)).size, 0);
const jsGzip = jsFiles.reduce((n, f) => n + zlib.gzipSync(fs.readFileSync(path.join(CONSOLE_DIR, 'assets', f)), { level: 6 }).length, 0);
log(`shipped JavaScript: ${(jsRaw / 1024).toFixed(1)} KB, ${(jsGzip / 1024).toFixed(1)} KB gzipped (${jsFiles.length} file(s))`);

/** The api's clock: late on the last day of data, as for a service whose data is current. */
const NOW = new Date(FIRST_DAY.getTime() + DAYS * 86_400_000 - 6 * 3_600_000);
// The api as npm start runs it: recent per-day cost aggregates warmed in the background at start.
const start = () => startSyntheticLakeHost({ label: 'bench-console', dataDir, api: { now: () => NOW, warmDays: 92 } });
let bench = await start();
const meta: Meta = await bench.dataOnce('bench-console-meta.json', async () => {
  const db = bench.host.ctx.db;
  const org = await createOrganization(db, { name: 'bench-large' });
  const key = await issueApiKey(db, bench.host.ctx.masterKey, org.id, { scopes: SCOPES.filter((s) => s !== 'usage:write') });
  await createDimension(db, org.id, { key: 'team', name: 'Team', valueType: 'string' });
  await upsertEndUsers(
    db,
    org.id,
    Array.from({ length: END_USERS }, (_, i) => `user-${i}`),
  );
  log(`writing ${EVENTS} events over ${DAYS} days into ${bench.config.lake.dataPath}`);
  const t = performance.now();
  await writeSyntheticLake({
    lake: bench.config.lake,
    orgs: [{ organizationId: org.id, events: EVENTS, endUsers: END_USERS }],
    days: DAYS,
    firstDay: FIRST_DAY,
    onProgress: log,
  });
  const writtenMs = Math.round(performance.now() - t);
  log(`lake written in ${(writtenMs / 1000).toFixed(0)} s`);
  return { organizationId: org.id, apiKey: key.apiKey, events: EVENTS, days: DAYS, writtenMs };
});

/** Every figure, the chart and both tables on screen, nothing loading. */
const RENDERED = `(() => {
  const kpis = [...document.querySelectorAll('[data-kpi] [data-value]')];
  return kpis.length === 7 && kpis.every((k) => !k.textContent.includes('…'))
    && document.querySelector('[data-chart="cost-over-time"][data-ready]') !== null
    && document.querySelector('[data-table="top-customers"] tbody tr') !== null
    && document.querySelector('[data-table="top-agents"] tbody tr') !== null
    && document.querySelector('.loading, [aria-busy="true"]') === null;
})()`;

async function loadOverview(page: Page, origin: string): Promise<number> {
  const t = performance.now();
  await page.goto(`${origin}${OVERVIEW}`);
  await page.waitForFunction(RENDERED, undefined, { timeout: 60_000, polling: 'raf' });
  return performance.now() - t;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (x: number) => Math.round(x * 10) / 10;

const browser = await launchChromium();
const page = await browser.context.newPage();
// Signed in as a person would be: the key in this tab's sessionStorage (set before any script runs).
await page.addInitScript(`sessionStorage.setItem('marginal.apiKey', ${JSON.stringify(meta.apiKey)})`);

const firstLoads: number[] = [];
const afterWarmUp: number[] = [];
const warmUpMs: number[] = [];
const warm: number[] = [];
/** Each API request of the last load: path and duration as the browser measured it. */
const apiRequests = async () =>
  (await page.evaluate(
    `performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/')).map((e) => [new URL(e.name).pathname, Math.round(e.duration)])`,
  )) as Array<[string, number]>;
let firstLoadRequests: Array<[string, number]> = [];
let warmRequests: Array<[string, number]> = [];
try {
  for (let r = 0; r < RESTARTS; r++) {
    if (r > 0) {
      await bench.stop();
      bench = await start();
    }
    // A new process on a new port, loaded the moment it listens: its api caches are empty (the
    // warm-up has just begun) and the browser has never seen this origin.
    const ms = await loadOverview(page, bench.host.url);
    firstLoads.push(ms);
    firstLoadRequests = await apiRequests();
    log(`first load right after restart ${r + 1}: ${ms.toFixed(0)} ms`);
  }
  for (let r = 0; r < RESTARTS; r++) {
    await bench.stop();
    const t = performance.now();
    bench = await start();
    await bench.host.ctx.services.costWarmUp!.done;
    warmUpMs.push(performance.now() - t);
    // The same, once the start-up warm-up has finished (a person opening the console a little later).
    const ms = await loadOverview(page, bench.host.url);
    afterWarmUp.push(ms);
    log(`first load after restart ${r + 1} and warm-up (${(warmUpMs.at(-1)! / 1000).toFixed(1)} s): ${ms.toFixed(0)} ms`);
  }
  for (let i = 0; i < 2; i++) await loadOverview(page, bench.host.url);
  for (let i = 0; i < ITERATIONS; i++) warm.push(await loadOverview(page, bench.host.url));
  warmRequests = await apiRequests();
  log(`warm: median ${median(warm).toFixed(0)} ms (min ${Math.min(...warm).toFixed(0)}, max ${Math.max(...warm).toFixed(0)})`);
  fs.mkdirSync(fromRoot('test-results', 'console'), { recursive: true });
  await page.screenshot({ path: fromRoot('test-results', 'console', 'bench-overview.png'), fullPage: true });
} finally {
  await browser.close();
  await bench.stop();
  if (!values['data-dir']) fs.rmSync(dataDir, { recursive: true, force: true });
}

const result = {
  benchmark: 'bench/console/main.ts',
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.version,
    chromium: 'Debian chromium (headless)',
    load_average_at_end: os.loadavg().map((l) => Math.round(l * 100) / 100),
  },
  data: {
    organization_events: meta.events,
    days: meta.days,
    end_users: END_USERS,
    lake_write_seconds: round(meta.writtenMs / 1000),
    overview_range: `${firstDay} .. ${lastDay} (30 days, daily)`,
  },
  targets: TARGETS,
  overview_fully_rendered: {
    warm_median_ms: round(median(warm)),
    warm_min_ms: round(Math.min(...warm)),
    warm_max_ms: round(Math.max(...warm)),
    warm_iterations: warm.length,
    first_load_after_restart_median_ms: round(median(firstLoads)),
    first_load_after_restart_ms: firstLoads.map(round),
    first_load_after_restart_and_warm_up_median_ms: round(median(afterWarmUp)),
    first_load_after_restart_and_warm_up_ms: afterWarmUp.map(round),
    start_to_warm_up_done_median_ms: round(median(warmUpMs)),
  },
  api_requests_last_first_load_ms: firstLoadRequests,
  api_requests_last_warm_load_ms: warmRequests,
  shipped_js: { files: jsFiles.length, raw_kb: round(jsRaw / 1024), gzip_kb: round(jsGzip / 1024) },
};
console.log(JSON.stringify(result, null, 2));
if (!values['no-write']) {
  fs.writeFileSync(fromRoot('bench', 'results', 'console.json'), `${JSON.stringify(result, null, 2)}\n`);
  const o = result.overview_fully_rendered;
  const ok = (v: number, t: number) => (v <= t ? 'met' : 'MISSED');
  fs.writeFileSync(
    fromRoot('bench', 'results', 'console.md'),
    `# bench/console: the Overview in the browser

\`npx tsx bench/console/main.ts\` (${result.date.slice(0, 10)}, ${result.machine.cpus} cores, ${result.machine.node}, Debian chromium headless).
Data: bench/api's synthetic lake, ${meta.events.toLocaleString('en-US')} events of one organization over ${meta.days} days, ${END_USERS} end users.
The Overview opened on ${result.data.overview_range}; "fully rendered" = all seven headline figures, the
stacked cost chart, the top-customers and top-agents tables on screen and nothing loading, timed from
navigation start (seven API requests: cost by end user for the range and the previous one, margin
by end user for the range, margin summary for the previous one, cost over time by model, cost by
agent, events waiting for a rate card).

| Measure | Median | Target | |
|---|---|---|---|
| Warm (${o.warm_iterations} loads; min ${o.warm_min_ms} ms, max ${o.warm_max_ms} ms) | ${o.warm_median_ms} ms | ≤ ${TARGETS.warm_ms} ms | ${ok(o.warm_median_ms, TARGETS.warm_ms)} |
| First load the moment a restarted service listens (${RESTARTS} restarts: ${o.first_load_after_restart_ms.join(', ')} ms) | ${o.first_load_after_restart_median_ms} ms | ≤ ${TARGETS.first_load_after_restart_ms} ms | ${ok(o.first_load_after_restart_median_ms, TARGETS.first_load_after_restart_ms)} |
| First load after a restart once its start-up warm-up is done (${o.start_to_warm_up_done_median_ms} ms after start; ${o.first_load_after_restart_and_warm_up_ms.join(', ')} ms) | ${o.first_load_after_restart_and_warm_up_median_ms} ms | ≤ ${TARGETS.first_load_after_restart_ms} ms | ${ok(o.first_load_after_restart_and_warm_up_median_ms, TARGETS.first_load_after_restart_ms)} |
| Shipped JavaScript, gzipped (${result.shipped_js.raw_kb} KB raw) | ${result.shipped_js.gzip_kb} KB | ≤ ${TARGETS.js_gzip_kb} KB | ${ok(result.shipped_js.gzip_kb, TARGETS.js_gzip_kb)} |

A restart is a new api process on the same lake and control plane, on a new port: its in-memory
aggregates are empty and the browser has never loaded that origin (no cached script). The api
warms the last 92 days of per-day cost aggregates in the background from its start
(\`api/lake/warm-recent-costs.ts\`); a load the moment it listens waits for the days it needs, a
load after the warm-up finds them built. The api's clock is set to the last day of data. Load average
at the end: ${result.machine.load_average_at_end.join(', ')} (the machine is shared).
`,
  );
}
