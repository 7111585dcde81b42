// Read-API benchmark: builds a synthetic lake (bench/api/synthetic-lake.ts: one organization with
// 5M events over 90 days plus smaller organizations beside it, written through the DuckLakeWriter
// into the data directory's open lake)
// and its PGlite control plane (organizations, a read key, dimensions, end users). Then, with the
// api in a process of its own (bench/api/fresh-api.ts):
//   - cold: for every read endpoint of part 1, the first request of a fresh api process three
//     ways: the DuckDB raw scan (rollups off: every answer from the raw events), nothing
//     persisted yet (derived days built from the lake), and derived days persisted by an earlier
//     process (api/lake/derived-store.ts, the state after any restart);
//   - warm: p50/p95 latency of every endpoint over HTTP, then the api process's RSS;
// and in this process the same cost queries through the service functions with rollups on and
// off (the raw-event path) to show what the daily_costs rollup buys. Writes bench/results/api.json.
//   npx tsx bench/api/main.ts [--events 5000000] [--days 90] [--iterations 15]
//                             [--cold-rounds 1 (fresh processes per first-request figure; the median)]
//                             [--data-dir DIR (reused when it holds a lake from an earlier run)]
//                             [--no-write]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { costByEndUser, costSummary } from '../../api/cost-data/cost-data.service.js';
import { dimensionCostBreakdown, dimensionCostTrend } from '../../api/dimension-data/dimension-data.service.js';
import { endUserByModel, endUserSummary, endUserTrend } from '../../api/end-user-costs/end-user-costs.service.js';
import type { LakeQuery } from '../../api/lake/lake-query.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { fromRoot } from '../../core/paths.js';
import { RateBook } from '../../pricing/rate-book.js';
import { lakeDataFiles } from '../lake/stores.js';
import { firstRequests, startFreshApi, type FreshApiOptions } from './fresh-api.js';
import { log, readBenchOptions, startSyntheticLakeHost, openBenchLakeQuery } from './synthetic-lake-host.js';
import { benchLake, benchNow, END_USERS, FIRST_DAY } from './bench-lake.js';
import { benchRanges, httpCases, pathOf } from './http-cases.js';
import { median, percentile } from './stats.js';

const options = readBenchOptions(90);
const { events: EVENTS, days: DAYS, iterations: ITERATIONS } = options;
const NOW = benchNow(DAYS);

const bench = await startSyntheticLakeHost({ label: 'bench-api', dataDir: options.dataDir, api: { now: () => NOW } });
const { host, config } = bench;
let db = host.ctx.db;

const meta = await benchLake(bench, EVENTS, DAYS);

// ---------------------------------------------------------------------------------------------

interface Timing {
  name: string;
  p50_ms: number;
  p95_ms: number;
  min_ms: number;
  max_ms: number;
  iterations: number;
}

async function measure(name: string, fn: () => Promise<unknown>, iterations = ITERATIONS, warmups = 2): Promise<Timing> {
  for (let i = 0; i < warmups; i++) await fn(); // warm-up: footers and derived days cached, JIT warm
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const r = {
    name,
    p50_ms: +percentile(times, 0.5).toFixed(1),
    p95_ms: +percentile(times, 0.95).toFixed(1),
    min_ms: +times[0]!.toFixed(1),
    max_ms: +times.at(-1)!.toFixed(1),
    iterations,
  };
  log(`${name.padEnd(78)} p50 ${String(r.p50_ms).padStart(7)} ms  p95 ${String(r.p95_ms).padStart(7)} ms`);
  return r;
}

const { full, fullSubDay } = benchRanges(DAYS);
const HTTP_CASES = httpCases(DAYS);
// The api runs in processes of its own from here on; they open the control plane this one held.
await bench.stop({ keepData: true });
const apiOptions: FreshApiOptions = { dataDir: bench.dataDir, now: NOW.toISOString() };
log(
  `${os.cpus().length} cpus; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

// Persist pass: one api process asks every question once, so its derived days are persisted (as
// after any deploy: the api's background warm-up and first requests); it stops when they are.
{
  const t = performance.now();
  const api = await startFreshApi(apiOptions);
  for (const [, p, q] of HTTP_CASES) await api.get(pathOf(p, q), meta.apiKey);
  await api.stop();
  log(`persist pass: every endpoint once, derived days persisted, in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

interface ColdCase {
  name: string;
  raw_scan_first_ms: number;
  nothing_persisted_first_ms: number;
  persisted_first_ms: number;
  persisted_second_ms: number;
  /** Spawn to listening of the persisted process (what the api prepares before it listens included). */
  persisted_start_ms: number;
}
log(
  `cold: first request of a fresh api process (median of ${options.coldRounds}) — raw scan | nothing persisted | persisted (then its second request)`,
);
const coldHttp: ColdCase[] = [];
for (const [name, p, q] of HTTP_CASES) {
  const once = async (o: FreshApiOptions, second: boolean) => {
    const r = await firstRequests(o, pathOf(p, q), meta.apiKey, { second });
    return { start: r.startMs, first: r.firstMs, second: r.secondMs ?? 0 };
  };
  // The median of --cold-rounds fresh processes (one request of a loaded 2-core machine swings ±50 ms).
  const first = async (o: () => FreshApiOptions, second = false) => {
    const runs: Array<{ start: number; first: number; second: number }> = [];
    for (let i = 0; i < options.coldRounds; i++) runs.push(await once(o(), second));
    const m = (xs: number[]) => +median(xs).toFixed(1);
    return { start: m(runs.map((r) => r.start)), first: m(runs.map((r) => r.first)), second: m(runs.map((r) => r.second)) };
  };
  const raw = await first(() => ({ ...apiOptions, useRollups: false }));
  const emptyDirs: string[] = [];
  const built = await first(() => {
    emptyDirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-derived-')));
    return { ...apiOptions, derivedDir: emptyDirs.at(-1)! };
  }).finally(() => {
    for (const d of emptyDirs) fs.rmSync(d, { recursive: true, force: true });
  });
  const persisted = await first(() => apiOptions, true);
  const c = {
    name,
    raw_scan_first_ms: raw.first,
    nothing_persisted_first_ms: built.first,
    persisted_first_ms: persisted.first,
    persisted_second_ms: persisted.second,
    persisted_start_ms: persisted.start,
  };
  log(
    `${name.padEnd(78)} raw ${String(c.raw_scan_first_ms).padStart(7)}  built ${String(c.nothing_persisted_first_ms).padStart(7)}  persisted ${String(c.persisted_first_ms).padStart(7)} (then ${c.persisted_second_ms}; start-up ${c.persisted_start_ms}) ms`,
  );
  coldHttp.push(c);
}
const coldSummary = {
  rounds: options.coldRounds,
  persisted_first_p50_ms: median(coldHttp.map((c) => c.persisted_first_ms)),
  persisted_start_p50_ms: median(coldHttp.map((c) => c.persisted_start_ms)),
  raw_scan_first_p50_ms: median(coldHttp.map((c) => c.raw_scan_first_ms)),
  nothing_persisted_first_p50_ms: median(coldHttp.map((c) => c.nothing_persisted_first_ms)),
  endpoints_persisted_slower_than_raw_scan: coldHttp.filter((c) => c.persisted_first_ms > c.raw_scan_first_ms).map((c) => c.name),
};
log(
  `cold p50 across endpoints: persisted ${coldSummary.persisted_first_p50_ms} ms, raw scan ${coldSummary.raw_scan_first_p50_ms} ms, nothing persisted ${coldSummary.nothing_persisted_first_p50_ms} ms`,
);

// Warm: one api process answers every endpoint (2 warm-ups, then the measured requests); its RSS after.
const http: Timing[] = [];
const warmApi = await startFreshApi(apiOptions);
log(`warm: api process ${warmApi.pid} at ${warmApi.url}; ${ITERATIONS} iterations after 2 warm-ups`);
for (const [name, p, q] of HTTP_CASES) http.push(await measure(name, () => warmApi.get(pathOf(p, q), meta.apiKey)));
const apiRss = warmApi.rssMb();
log(`api process RSS after the run: ${apiRss.rss} MB (peak ${apiRss.peak} MB)`);
await warmApi.stop();

// The in-process comparisons below need the control plane here again.
const local = await startSyntheticLakeHost({ label: 'bench-api', dataDir: bench.dataDir, api: { now: () => NOW } });
db = local.host.ctx.db;

// Two read paths for the same service functions (in process, no HTTP), so the difference is the
// data read: the api's default (rollups and per-day derived aggregates cached in memory) and raw
// events only. (The first call on a fresh LakeQuery, below, is the path that reads files.)
log('read paths (service functions, in process): cached derived days | raw events');
const withRollups = await openBenchLakeQuery(config);
const rawEvents = await openBenchLakeQuery(config, { useRollups: false });
const RAW_ITERATIONS = Math.min(ITERATIONS, 3);
const rc = (lake: LakeQuery): ReadContext => ({
  organizationId: meta.organizationId,
  ownerUserId: null,
  lake,
  db,
  rateBook: new RateBook(db),
  now: () => NOW,
});
const COMPARE: Array<[string, (r: ReadContext) => Promise<unknown>]> = [
  ['cost-data/summary (current-period)', (r) => costSummary(r, 'current-period')],
  ['cost-data/summary (last-90-days)', (r) => costSummary(r, 'last-90-days')],
  ['cost-data/by-end-user (90 days)', (r) => costByEndUser(r, full.start_date, full.end_date)],
  ['cost-data/by-end-user (90 days, sub-day bounds)', (r) => costByEndUser(r, fullSubDay.start_date, fullSubDay.end_date)],
  ['end-user-costs/user-0/summary (90 days)', (r) => endUserSummary(r, 'user-0', full.start_date, full.end_date)],
  ['end-user-costs/user-0/by-model (90 days)', (r) => endUserByModel(r, 'user-0', full.start_date, full.end_date)],
  ['end-user-costs/user-0/trend (90 days)', (r) => endUserTrend(r, 'user-0', full.start_date, full.end_date)],
  ['dimension-data/cost-trend (90 days, total)', (r) => dimensionCostTrend(r, full)],
  [
    'dimension-data/cost-breakdown?dimension_key=team (90 days; a metadata key, no rollup column)',
    (r) => dimensionCostBreakdown(r, { ...full, dimension_key: 'team' }),
  ],
];
const comparison = [];
for (const [name, fn] of COMPARE) {
  const cached = await measure(`cached    ${name}`, () => fn(rc(withRollups)));
  const raw = await measure(`raw       ${name}`, () => fn(rc(rawEvents)), RAW_ITERATIONS, 1);
  // Same answer every way, or the comparison means nothing.
  const answers = new Set([JSON.stringify(await fn(rc(withRollups))), JSON.stringify(await fn(rc(rawEvents)))]);
  if (answers.size !== 1) throw new Error(`${name}: the read paths answer differently`);
  comparison.push({
    name,
    cached_derived_days: cached,
    raw_events: raw,
    speedup_p50_cached_vs_raw: +(raw.p50_ms / cached.p50_ms).toFixed(1),
  });
}
rawEvents.close();

// Cold start: the first request after a restart builds the derived days it needs (then cached).
log('cold: first call on a fresh LakeQuery (builds the derived days), then the second call:');
const cold = [];
for (const [name, fn] of COMPARE) {
  const fresh = await openBenchLakeQuery(config);
  try {
    let t = performance.now();
    await fn(rc(fresh));
    const first = +(performance.now() - t).toFixed(1);
    t = performance.now();
    await fn(rc(fresh));
    const second = +(performance.now() - t).toFixed(1);
    log(`${name.padEnd(78)} first ${String(first).padStart(8)} ms  second ${String(second).padStart(7)} ms`);
    cold.push({ name, first_ms: first, second_ms: second });
  } finally {
    fresh.close();
  }
}
const cacheRows = withRollups.cache.rows;
withRollups.close();

// The live data files the catalog names (every organization's: DuckLake's files are per day, not per organization).
const eventsLayout = await lakeDataFiles(config.lake, 'events');
const rollupLayout = await lakeDataFiles(config.lake, 'daily_costs');
const rollupRows = await (async () => {
  const q = await openBenchLakeQuery(config);
  try {
    const r = await q.row<{ n: number }>(
      { organizationId: meta.organizationId },
      'SELECT count(*) AS n FROM {{daily_costs}} d WHERE d.organization_id = $org',
    );
    return r?.n ?? 0;
  } finally {
    q.close();
  }
})();

const result = {
  benchmark: 'bench/api/main.ts',
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.version,
    load_average_at_end: os.loadavg().map((l) => +l.toFixed(2)),
  },
  data: {
    organization_events: meta.rows[meta.organizationId],
    other_organizations: meta.otherOrganizations.length,
    other_organization_events: meta.otherOrganizations.reduce((n, o) => n + (meta.rows[o] ?? 0), 0),
    days: meta.days,
    first_day: FIRST_DAY.toISOString().slice(0, 10),
    end_users: END_USERS,
    lake_write_seconds: +(meta.writtenMs / 1000).toFixed(1),
    events_data_files: eventsLayout.files.length,
    events_bytes: eventsLayout.bytes,
    daily_costs_data_files: rollupLayout.files.length,
    daily_costs_bytes: rollupLayout.bytes,
    daily_costs_rows: rollupRows,
    api_now: NOW.toISOString(),
  },
  target_p50_ms: 200,
  cold_http: { summary: coldSummary, endpoints: coldHttp },
  api_process_rss_mb_after_run: apiRss,
  http_endpoints: http,
  read_paths: comparison,
  cold_first_call: cold,
  derived_cache_rows_after_run: cacheRows,
  rss_mb_at_end: Math.round(process.memoryUsage().rss / 1048576),
};
if (options.write) {
  const out = fromRoot('bench', 'results', 'api.json');
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${out}`);
}
const over = http.filter((h) => h.p50_ms > 200).map((h) => h.name);
log(over.length === 0 ? 'every endpoint p50 ≤ 200 ms' : `p50 over 200 ms: ${over.join('; ')}`);
await local.stop();
if (options.dataDir === undefined) fs.rmSync(bench.dataDir, { recursive: true, force: true });
