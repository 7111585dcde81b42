// Marginal side by side with the engines a team would otherwise use, over bench/api's synthetic
// lake (bench/api/bench-lake.ts: 5M events over 90 days for one organization, 5 × 100k for
// others, in the data directory's open lake): raw DuckDB over the events table's live Parquet files
// (the no-cache baseline), PostgreSQL with
// indexes and daily rollups, and chDB over the Parquet files and over MergeTree tables with the
// same rollups. Each engine must give Marginal's HTTP answers exactly (decimal costs, event
// counts) or the run fails. Prints and writes (bench/results/compare.md, compare.json) the p50 of
// each question warm (after 2 warm-ups) and cold (the first query of a fresh process, or of a
// restarted PostgreSQL server; for Marginal a freshly started api process), and each engine's
// time over Marginal's. A benchmark, not a test: run it alone (under the bench lock at 5M).
//   npm run bench:compare -- [--events 5000000] [--days 90] [--iterations 15] [--cold-runs 3]
//                            [--data-dir DIR (kept; the lake and loaded engines are reused)]
//                            [--no-write]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { endUserIdFor } from '../../core/ids.js';
import { fromRoot } from '../../core/paths.js';
import { benchLake, benchNow } from '../api/bench-lake.js';
import { startFreshApi } from '../api/fresh-api.js';
import { benchDay, pathOf } from '../api/http-cases.js';
import { log, startSyntheticLakeHost, stopLakeCatalog } from '../api/synthetic-lake-host.js';
import { lakeDataFiles } from '../lake/stores.js';
import { chdbMergeTreeEngine, chdbParquetEngine, ensureChdb } from './chdb-engine.js';
import { duckdbRawEngine } from './duckdb-engine.js';
import type { Engine } from './engine.js';
import { postgresEngine } from './postgres-engine.js';
import { answerDifferences, compareQuestions, type Answer, type Question } from './questions.js';
import { renderMarkdown, type CompareResult, type Timing } from './report.js';
import { median } from '../api/stats.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '5000000' },
    days: { type: 'string', default: '90' },
    iterations: { type: 'string', default: '15' },
    'cold-runs': { type: 'string', default: '3' },
    'data-dir': { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const EVENTS = Number(values.events);
const DAYS = Number(values.days);
const ITERATIONS = Number(values.iterations);
const COLD_RUNS = Number(values['cold-runs']);
/** Repeated runs of one question on one engine stop after this long (at least 3 runs). */
const WARM_BUDGET_MS = 10_000;
const loadAverage = () => os.loadavg().map((l) => +l.toFixed(2));

const dataDir = values['data-dir'] ? path.resolve(values['data-dir']) : fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-compare-'));
const loadAtStart = loadAverage();

// The lake and control plane (bench/api's), written once into the data directory.
const host = await startSyntheticLakeHost({ label: 'bench-compare', dataDir, api: {} });
const meta = await benchLake(host, EVENTS, DAYS);
// The catalog keeps running for the api processes (stopped at the end).
await host.stop({ keepData: true });
if (meta.events !== EVENTS || meta.days !== DAYS)
  throw new Error(`${dataDir} holds ${meta.events} events over ${meta.days} days, not ${EVENTS} over ${DAYS}`);
const { files: eventsFiles } = await lakeDataFiles(host.config.lake, 'events');
const questions = compareQuestions({
  organizationId: meta.organizationId,
  user0: endUserIdFor(meta.organizationId, 'user-0'),
  firstDay: benchDay(0),
  endDay: benchDay(DAYS),
  now: benchNow(DAYS),
});

const p50 = (times: number[]): number => +median(times).toFixed(2);

/** Warm-ups, then runs until ITERATIONS or the budget; the first answer comes back with the timing. */
async function measure<T>(run: () => Promise<{ ms: number; value: T }>): Promise<{ timing: Timing; value: T }> {
  const first = await run();
  await run();
  const times: number[] = [];
  const started = performance.now();
  while (times.length < ITERATIONS && (times.length < 3 || performance.now() - started < WARM_BUDGET_MS)) times.push((await run()).ms);
  return { timing: { p50_ms: p50(times), runs: times.length }, value: first.value };
}

/** Marginal's api in a process of its own (bench/api's, PGlite control plane), its clock at bench/api's "now". */
const startMarginal = () => startFreshApi({ dataDir, now: benchNow(DAYS).toISOString() });

// Marginal warm: one api process, every question.
log(`data in ${dataDir}; ${os.cpus().length} cpus; load ${loadAtStart.join(' ')}`);
const marginalAnswers = new Map<Question, Answer>();
const warm: Record<string, Record<string, Timing>> = { Marginal: {} };
{
  const api = await startMarginal();
  try {
    for (const q of questions) {
      const { timing, value } = await measure(async () => {
        const r = await api.get(pathOf(q.path, q.query), meta.apiKey, { json: true });
        return { ms: r.ms, value: r.body };
      });
      marginalAnswers.set(q, q.fromHttp(value));
      warm.Marginal![q.name] = timing;
      log(`Marginal        ${q.name.padEnd(72)} p50 ${String(timing.p50_ms).padStart(9)} ms`);
    }
  } finally {
    await api.stop();
  }
}

// The engines: loaded once (PostgreSQL, chDB MergeTree), then the same questions, answers checked.
const chdbVersion = ensureChdb();
const engines: Engine[] = [
  duckdbRawEngine(eventsFiles),
  await postgresEngine(eventsFiles, dataDir),
  chdbParquetEngine(eventsFiles, dataDir, chdbVersion),
  await chdbMergeTreeEngine(eventsFiles, dataDir, chdbVersion),
];
const mismatches: string[] = [];
const checked: Record<string, number> = {};
for (const engine of engines) {
  warm[engine.label] = {};
  const conn = await engine.connect();
  try {
    for (const q of questions) {
      const sql = q.sql(engine.dialect);
      const { timing, value } = await measure(async () => {
        const r = await conn.query(sql);
        return { ms: r.ms, value: r.rows };
      });
      warm[engine.label]![q.name] = timing;
      const marginal = marginalAnswers.get(q)!;
      const diffs = answerDifferences(marginal, q.fromRows(value, marginal));
      if (diffs.length > 0) mismatches.push(`${engine.label} / ${q.name}:\n  ${diffs.slice(0, 10).join('\n  ')}\n  SQL: ${sql}`);
      checked[engine.label] = (checked[engine.label] ?? 0) + marginal.size;
      log(
        `${engine.label.padEnd(15)} ${q.name.padEnd(72)} p50 ${String(timing.p50_ms).padStart(9)} ms${diffs.length ? '  ANSWER DIFFERS' : ''}`,
      );
    }
  } finally {
    await conn.close();
  }
}
if (mismatches.length > 0) {
  for (const e of engines) await e.stop();
  throw new Error(`engines disagree with Marginal's HTTP answers:\n${mismatches.join('\n')}`);
}
log(
  `every engine gave Marginal's answers: ${Object.entries(checked)
    .map(([e, n]) => `${e} ${n} figures`)
    .join(', ')}`,
);

// Cold: the first query of a fresh process (or restarted server), COLD_RUNS times per question.
const cold: Record<string, Record<string, Timing>> = { Marginal: {} };
const marginalStartup: number[] = [];
for (const q of questions) {
  const times: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const api = await startMarginal();
    marginalStartup.push(api.startupMs);
    try {
      times.push((await api.get(pathOf(q.path, q.query), meta.apiKey, { json: true })).ms);
    } finally {
      await api.stop();
    }
  }
  cold.Marginal![q.name] = { p50_ms: p50(times), runs: times.length };
  log(`cold Marginal        ${q.name.padEnd(72)} p50 ${String(p50(times)).padStart(9)} ms`);
}
for (const engine of engines) {
  cold[engine.label] = {};
  for (const q of questions) {
    const sql = q.sql(engine.dialect);
    const times: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const conn = await engine.connectCold();
      try {
        times.push((await conn.query(sql)).ms);
      } finally {
        await conn.close();
      }
    }
    cold[engine.label]![q.name] = { p50_ms: p50(times), runs: times.length };
    log(`cold ${engine.label.padEnd(15)} ${q.name.padEnd(72)} p50 ${String(p50(times)).padStart(9)} ms`);
  }
}
for (const e of engines) await e.stop();

const result: CompareResult = {
  benchmark: 'bench/compare/main.ts',
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? '',
    node: process.version,
    load_average_at_start: loadAtStart,
    load_average_at_end: loadAverage(),
  },
  data: {
    organization_events: meta.rows[meta.organizationId]!,
    other_organizations: meta.otherOrganizations.length,
    other_organization_events: meta.otherOrganizations.reduce((n, o) => n + (meta.rows[o] ?? 0), 0),
    days: DAYS,
    first_day: benchDay(0),
    lake_write_seconds: Math.round(meta.writtenMs / 1000),
  },
  engines: [
    {
      label: 'Marginal',
      setup: `the api over HTTP (own process, PGlite control plane, the lake; no warm-up), JSON parsed; api start ${p50(marginalStartup).toFixed(0)} ms p50 before the cold request`,
    },
    ...engines.map((e) => ({ label: e.label, setup: e.setup })),
  ],
  questions: questions.map((q) => ({
    name: q.name,
    request: `GET /v1${q.path}?${new URLSearchParams(q.query)}`,
    figures_checked: marginalAnswers.get(q)!.size,
    sql_postgres: q.sql(engines[1]!.dialect),
  })),
  warm,
  cold,
};
const markdown = renderMarkdown(result);
console.log(markdown);
if (!values['no-write']) {
  fs.writeFileSync(fromRoot('bench', 'results', 'compare.json'), `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(fromRoot('bench', 'results', 'compare.md'), markdown);
  log('wrote bench/results/compare.md and compare.json');
}
await stopLakeCatalog();
if (!values['data-dir']) fs.rmSync(dataDir, { recursive: true, force: true });
