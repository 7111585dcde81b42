// Warm A/B of the DerivedCache's configuration (issue 18, "cold equals warm"): the same warm cost
// questions through the service functions (in process, no HTTP) over bench/api's lake, one child
// process per variant so each variant's RSS is its own, variants run in turn (A B C D A B C D)
// so that the machine's load falls on all alike. Variants: where the cached tables live (the
// attached on-disk temporary database or DuckDB's in-memory main database) and the row budget
// (beyond it, persisted days are read from their Parquet files on every request).
//   npx tsx bench/api-warm-ab/main.ts --data-dir DIR [--events N] [--rounds 2] [--iterations 15]
// DIR must hold a bench/api lake (a run of bench/api/main.ts with the same --data-dir writes one).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { costByEndUser, costSummary } from '../../api/cost-data/cost-data.service.js';
import { dimensionCostTrend } from '../../api/dimension-data/dimension-data.service.js';
import { endUserByModel, endUserTrend } from '../../api/end-user-costs/end-user-costs.service.js';
import type { LakeQueryOptions } from '../../api/lake/lake-query.js';
import type { ReadContext } from '../../core/http/read-context.js';
import { fromRoot } from '../../core/paths.js';
import { RateBook } from '../../pricing/rate-book.js';
import { benchLake, benchNow } from '../api/bench-lake.js';
import { benchRanges } from '../api/http-cases.js';
import { log, startSyntheticLakeHost, openBenchLakeQuery } from '../api/synthetic-lake-host.js';
import { median } from '../api/stats.js';

const VARIANTS: Record<string, Pick<LakeQueryOptions, 'derivedTables' | 'cacheMaxRows'>> = {
  'disk, 600k rows': { derivedTables: 'disk', cacheMaxRows: 600_000 },
  'memory, 600k rows': { derivedTables: 'memory', cacheMaxRows: 600_000 },
  'compressed, 600k rows': { derivedTables: 'compressed', cacheMaxRows: 600_000 },
  'memory, 4M rows': { derivedTables: 'memory', cacheMaxRows: 4_000_000 },
};

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    events: { type: 'string', default: '5000000' },
    days: { type: 'string', default: '90' },
    rounds: { type: 'string', default: '2' },
    iterations: { type: 'string', default: '15' },
    variant: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
if (!values['data-dir']) throw new Error('--data-dir is required (a bench/api lake)');
const DAYS = Number(values.days);
const ITERATIONS = Number(values.iterations);

interface VariantResult {
  variant: string;
  p50_ms: Record<string, number>;
  cache_rows: number;
  rss_mb: number;
}

async function runVariant(name: string): Promise<VariantResult> {
  const bench = await startSyntheticLakeHost({ label: 'bench-warm-ab', dataDir: values['data-dir'], api: {} });
  const meta = await benchLake(bench, Number(values.events), DAYS);
  const lake = await openBenchLakeQuery(bench.config, VARIANTS[name]);
  const now = benchNow(DAYS);
  const rc: ReadContext = {
    organizationId: meta.organizationId,
    ownerUserId: null,
    lake,
    db: bench.host.ctx.db,
    rateBook: new RateBook(bench.host.ctx.db),
    now: () => now,
  };
  const { full } = benchRanges(DAYS);
  const questions: Array<[string, () => Promise<unknown>]> = [
    ['cost-data/summary (last-90-days)', () => costSummary(rc, 'last-90-days')],
    ['cost-data/by-end-user (90 days)', () => costByEndUser(rc, full.start_date, full.end_date)],
    ['end-user-costs/user-0/by-model (90 days)', () => endUserByModel(rc, 'user-0', full.start_date, full.end_date)],
    ['end-user-costs/user-0/trend (90 days)', () => endUserTrend(rc, 'user-0', full.start_date, full.end_date)],
    ['dimension-data/cost-trend (90 days, total)', () => dimensionCostTrend(rc, full)],
  ];
  // Every question once, then the background copies of persisted days finish: the warm state.
  for (const [, fn] of questions) await fn();
  await lake.cache.idle();
  for (const [, fn] of questions) await fn();
  await lake.cache.idle();
  const p50: Record<string, number> = {};
  for (const [q, fn] of questions) {
    const times: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      const t = performance.now();
      await fn();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    p50[q] = +times[Math.ceil(times.length / 2) - 1]!.toFixed(1);
  }
  const result = { variant: name, p50_ms: p50, cache_rows: lake.cache.rows, rss_mb: Math.round(process.memoryUsage().rss / 1048576) };
  lake.close();
  await bench.stop();
  return result;
}

if (values.variant) {
  process.stdout.write(`RESULT ${JSON.stringify(await runVariant(values.variant))}\n`);
  process.exit(0);
}

const loadStart = os.loadavg().map((l) => +l.toFixed(2));
const runs: VariantResult[] = [];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const name of Object.keys(VARIANTS)) {
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--data-dir',
        values['data-dir'],
        '--events',
        String(values.events),
        '--days',
        String(DAYS),
        '--iterations',
        String(ITERATIONS),
        '--variant',
        name,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 },
    );
    const r = JSON.parse(/^RESULT (.*)$/m.exec(out)![1]!) as VariantResult;
    log(
      `round ${round + 1} ${name.padEnd(18)} ${Object.values(r.p50_ms)
        .map((v) => String(v).padStart(7))
        .join(' ')} ms  cache ${r.cache_rows} rows  rss ${r.rss_mb} MB`,
    );
    runs.push(r);
  }
}
const loadEnd = os.loadavg().map((l) => +l.toFixed(2));
const questions = Object.keys(runs[0]!.p50_ms);
const lines = [
  '# bench/api-warm-ab: warm answers by DerivedCache configuration (issue 18)',
  '',
  `\`npx tsx bench/api-warm-ab/main.ts --data-dir ${values['data-dir']}\`, ${new Date().toISOString()}; bench/api's lake (${values.events} events, ${DAYS} days).`,
  `${os.cpus().length} cpus, Node ${process.version}; load average ${loadStart.join(' ')} at the start, ${loadEnd.join(' ')} at the end (shared machine).`,
  `Service functions in process (no HTTP), p50 of ${ITERATIONS} warm runs; each variant in its own process, variants in turn, ${values.rounds} rounds; the figure is the lower median over rounds.`,
  '',
  `| variant | ${questions.join(' | ')} | cache rows | RSS MB |`,
  `|---|${questions.map(() => '--:|').join('')}--:|--:|`,
  ...Object.keys(VARIANTS).map((v) => {
    const rs = runs.filter((r) => r.variant === v);
    return `| ${v} | ${questions.map((q) => median(rs.map((r) => r.p50_ms[q]!))).join(' | ')} | ${rs.at(-1)!.cache_rows} | ${median(rs.map((r) => r.rss_mb))} |`;
  }),
  '',
];
console.log(lines.join('\n'));
if (!values['no-write']) fs.writeFileSync(fromRoot('bench/results/api-warm-ab.md'), lines.join('\n'));
