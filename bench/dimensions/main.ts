// Dimension endpoints over the processor's dimension rollups (core/lake/dimension-rollups.ts):
// uses bench/api's data set (bench/api/bench-lake.ts: one organization with 5M events over 90 days by default,
// smaller ones beside it) with the dimensions team, region (string) and latency_ms (number)
// defined before it is written, so the writer rolls them up as the processor does; starts the api
// on it and measures warm p50/p95 of every endpoint that groups or filters by a dimension, end to
// end over HTTP, against the target (p50 ≤ 5 ms). Each answer is checked equal to the
// raw-events oracle (LakeQuery useRollups: false) before timing, and the last warm HTTP answer
// too; the first call on a fresh process's lake reader is timed as well, and what the warm path
// holds is recorded. Writes bench/results/dimensions.json. The cases are in cases.ts; profile.ts
// shows where a warm request's milliseconds go. A --data-dir written by bench/dimensions before
// bench-lake.ts named its meta file bench-meta.json holds bench-dimensions-meta.json instead:
// copy it to bench-meta.json to reuse the lake (else a new one is written into the directory).
//   npx tsx bench/dimensions/main.ts [--events 5000000] [--days 90] [--iterations 30]
//                                    [--data-dir DIR (reused when it holds a lake from an earlier run)] [--no-write]
import fs from 'node:fs';
import os from 'node:os';
import type { LakeQuery } from '../../api/lake/lake-query.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { fromRoot } from '../../core/paths.js';
import { RateBook } from '../../pricing/rate-book.js';
import { benchLake, benchNow, END_USERS } from '../api/bench-lake.js';
import { log, readBenchOptions, startSyntheticLakeHost, openBenchLakeQuery } from '../api/synthetic-lake-host.js';
import { dimensionCases } from './cases.js';
import { percentile } from '../api/stats.js';

const options = readBenchOptions(90);
const { events: EVENTS, days: DAYS } = options;
const ITERATIONS = Math.max(options.iterations, 30);
const NOW = benchNow(DAYS);
const TARGET_P50_MS = 5;

const bench = await startSyntheticLakeHost({ label: 'bench-dimensions', dataDir: options.dataDir, api: { now: () => NOW } });
const { host, config } = bench;
const db = host.ctx.db;

// bench/api's data set (bench-lake.ts: the dimensions are defined before the lake is written, so
// every day is rolled up), so a --data-dir can be shared with bench/api and bench/compare.
const meta = await benchLake(bench, EVENTS, DAYS);

const CASES = dimensionCases(DAYS);

async function get(p: string, query: Record<string, string>): Promise<string> {
  const res = await fetch(`${host.url}/v1${p}?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${meta.apiKey}` } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${p}: HTTP ${res.status} ${body.slice(0, 300)}`);
  return body;
}

const rc = (lake: LakeQuery): ReadContext => ({
  organizationId: meta.organizationId,
  ownerUserId: null,
  lake,
  db,
  rateBook: new RateBook(db),
  now: () => NOW,
});

// Cold: the first call of each case on a fresh lake reader (the api process's state after a start).
log('first call on a fresh LakeQuery (builds the days it needs from the rollup files), then the second:');
const cold = [];
const fresh = await openBenchLakeQuery(config);
for (const c of CASES) {
  let t = performance.now();
  await c.service(rc(fresh));
  const first = +(performance.now() - t).toFixed(1);
  t = performance.now();
  await c.service(rc(fresh));
  cold.push({ name: c.name, first_ms: first, second_ms: +(performance.now() - t).toFixed(1) });
  log(`${c.name.padEnd(62)} first ${String(first).padStart(8)} ms`);
}

// Same answer as raw events, or the timing means nothing.
log('checking every answer against raw events (useRollups: false)');
const raw = await openBenchLakeQuery(config, { useRollups: false });
const oracle = new Map<string, string>();
for (const c of CASES) {
  oracle.set(c.name, JSON.stringify(await c.service(rc(raw))));
  if (JSON.stringify(await c.service(rc(fresh))) !== oracle.get(c.name))
    throw new Error(`${c.name}: the rollup answer differs from raw events`);
}
raw.close();
fresh.close();

log(
  `api at ${host.url}; ${ITERATIONS} iterations after 3 warm-ups; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
const http = [];
for (const c of CASES) {
  for (let i = 0; i < 3; i++) await get(c.path, c.query);
  const times: number[] = [];
  let body = '';
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    body = await get(c.path, c.query);
    times.push(performance.now() - t);
  }
  // The warm answer (kept sub-day slices, projections) is the raw-events answer too.
  if (JSON.stringify(JSON.parse(body)) !== oracle.get(c.name)) throw new Error(`${c.name}: the warm HTTP answer differs from raw events`);
  times.sort((a, b) => a - b);
  const r = {
    name: `GET ${c.path} ${c.name}`,
    p50_ms: +percentile(times, 0.5).toFixed(2),
    p95_ms: +percentile(times, 0.95).toFixed(2),
    min_ms: +times[0]!.toFixed(2),
    iterations: ITERATIONS,
  };
  log(`${r.name.padEnd(100)} p50 ${String(r.p50_ms).padStart(6)} ms  p95 ${String(r.p95_ms).padStart(6)} ms`);
  http.push(r);
}

// What the warm path holds in the api's DuckDB after the run (rows; ~330 B a row compressed, read-path.md).
const apiLake = host.ctx.services.lakeQuery as LakeQuery;
const memory = {
  derived_cache_rows: apiLake.cache.rows,
  projected_rows: apiLake.cache.projectedRows,
  edge_slices: apiLake.edges.size.slices,
  edge_rows: apiLake.edges.size.rows,
  process_rss_mb: Math.round(process.memoryUsage().rss / 1e6),
};
log(`held: ${JSON.stringify(memory)}`);

const result = {
  benchmark: 'bench/dimensions/main.ts',
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    node: process.version,
    load_average_at_end: os.loadavg().map((l) => +l.toFixed(2)),
  },
  data: {
    organization_events: meta.events,
    days: meta.days,
    end_users: END_USERS,
    dimensions: ['team (string)', 'region (string)', 'latency_ms (number)'],
    lake_write_seconds: +(meta.writtenMs / 1000).toFixed(1),
  },
  target_p50_ms: TARGET_P50_MS,
  http_endpoints_warm: http,
  cold_first_call: cold,
  memory_after_http: memory,
  answers_equal_to_raw_events: true,
};
if (options.write) {
  const out = fromRoot('bench', 'results', 'dimensions.json');
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${out}`);
}
const over = http.filter((h) => h.p50_ms > TARGET_P50_MS).map((h) => h.name);
log(over.length === 0 ? `every dimension endpoint p50 ≤ ${TARGET_P50_MS} ms` : `p50 over ${TARGET_P50_MS} ms: ${over.join('; ')}`);
await bench.stop();
