// The api process as deployed, warm, over bench/api's lake (issue 18: "Api RSS ≤ 400 MB after
// the whole bench/api run"): one api process answers every bench/api endpoint (2 warm-ups, then
// N measured requests each), then its RSS is read from /proc. Twice at the same load: on the
// all-in-one's embedded PGlite control plane, and on PostgreSQL as a distributed api runs (a
// local cluster holding a copy of the same control plane, bench/api/postgres-control.ts).
// Writes bench/results/api-rss.md.
//   npx tsx bench/api-rss/main.ts --data-dir DIR [--iterations 15] [--derived-tables memory|compressed|disk] [--idle-seconds 12] [--no-write]
// DIR must hold a bench/api lake (bench/api/main.ts --data-dir DIR writes one).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../../core/paths.js';
import { BENCH_META_FILE, benchNow, type BenchMeta } from '../api/bench-lake.js';
import { startFreshApi, type FreshApiOptions } from '../api/fresh-api.js';
import { httpCases, pathOf } from '../api/http-cases.js';
import { postgresCopyOfControlPlane } from '../api/postgres-control.js';
import { log, stopLakeCatalog, useBenchLake } from '../api/synthetic-lake-host.js';
import { median } from '../api/stats.js';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    iterations: { type: 'string', default: '15' },
    'derived-tables': { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    'idle-seconds': { type: 'string', default: '12' },
  },
});
if (!values['data-dir']) throw new Error('--data-dir is required (a bench/api lake)');
const dataDir = path.resolve(values['data-dir']);
const meta = JSON.parse(fs.readFileSync(path.join(dataDir, BENCH_META_FILE), 'utf8')) as BenchMeta;
// The data directory's lake catalog, for the api processes (bench/api/synthetic-lake-host.ts).
await useBenchLake(dataDir);
const ITERATIONS = Number(values.iterations);
const CASES = httpCases(meta.days);
const derivedTables = values['derived-tables'] as FreshApiOptions['derivedTables'];
// Freed memory goes back to the system over jemalloc's decay time (DuckDB's allocator, 10 s; lake-query.ts):
// RSS is read at the last response and again once the process idled this long.
const IDLE_SECONDS = Number(values['idle-seconds']);

interface Run {
  control: string;
  p50_ms: number[];
  rss_mb: number;
  peak_mb: number;
  idle_rss_mb: number;
}

async function warmRun(control: string, extra: Partial<FreshApiOptions>): Promise<Run> {
  const api = await startFreshApi({
    dataDir,
    now: benchNow(meta.days).toISOString(),
    ...(derivedTables ? { derivedTables } : {}),
    ...extra,
  });
  try {
    const p50: number[] = [];
    for (const [name, p, q] of CASES) {
      const url = pathOf(p, q);
      for (let i = 0; i < 2; i++) await api.get(url, meta.apiKey);
      const times: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) times.push((await api.get(url, meta.apiKey)).ms);
      p50.push(+median(times).toFixed(1));
      log(`${control.padEnd(10)} ${name.padEnd(80)} p50 ${String(p50.at(-1)).padStart(7)} ms`);
    }
    const { rss, peak } = api.rssMb();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idle = api.rssMb().rss;
    log(`${control}: api process RSS ${rss} MB at the last response (peak ${peak} MB), ${idle} MB after ${IDLE_SECONDS} s idle`);
    return { control, p50_ms: p50, rss_mb: rss, peak_mb: peak, idle_rss_mb: idle };
  } finally {
    await api.stop();
  }
}

const loadStart = os.loadavg().map((l) => +l.toFixed(2));
const runs: Run[] = [];
runs.push(await warmRun('PGlite', {}));
const pg = await postgresCopyOfControlPlane(dataDir);
try {
  runs.push(await warmRun('PostgreSQL', { databaseUrl: pg.url }));
} finally {
  await pg.stop();
  await stopLakeCatalog();
}
const loadEnd = os.loadavg().map((l) => +l.toFixed(2));
const lines = [
  '# bench/api-rss: the api process warm, on PGlite and on PostgreSQL (issue 18)',
  '',
  `\`npx tsx bench/api-rss/main.ts --data-dir ${values['data-dir']}${derivedTables ? ` --derived-tables ${derivedTables}` : ''}\`, ${new Date().toISOString()}; bench/api's lake (${meta.events} events, ${meta.days} days).`,
  `${os.cpus().length} cpus, Node ${process.version}; load average ${loadStart.join(' ')} at the start, ${loadEnd.join(' ')} at the end (shared machine).`,
  `One fresh api process per control plane answers every endpoint of bench/api over HTTP (2 warm-ups, then ${ITERATIONS} measured requests each, p50 client to last byte), then its RSS (/proc VmRSS, peak VmHWM) at the last response and after ${IDLE_SECONDS} s idle. Target: RSS ≤ 400 MB.`,
  '',
  `| endpoint | ${runs.map((r) => `${r.control} p50 ms`).join(' | ')} |`,
  `|---|${runs.map(() => '--:|').join('')}`,
  ...CASES.map(([name], i) => `| ${name} | ${runs.map((r) => r.p50_ms[i]).join(' | ')} |`),
  `| **p50 across endpoints** | ${runs.map((r) => `**${median(r.p50_ms)}**`).join(' | ')} |`,
  `| **api process RSS at the last response, MB (peak)** | ${runs.map((r) => `**${r.rss_mb}** (${r.peak_mb})`).join(' | ')} |`,
  `| **api process RSS after ${IDLE_SECONDS} s idle, MB** | ${runs.map((r) => `**${r.idle_rss_mb}**`).join(' | ')} |`,
  '',
];
console.log(lines.join('\n'));
if (!values['no-write']) fs.writeFileSync(fromRoot('bench/results/api-rss.md'), lines.join('\n'));
