// First requests of fresh api processes, repeated (issue 18, "cold equals warm"): bench/api times
// each endpoint's first request once, which on a shared 2-core machine swings by ±100 ms; this
// times the chosen endpoints `--rounds` times, each in a fresh api process (bench/api/fresh-api.ts),
// and prints the median start-up (spawn to listening: what a process prepares before it reports
// ready counts here) and first request, with derived days persisted; with --unprepared the same
// with nothing prepared before listening (api/lake/prepare-reads.ts off: the state before it), in
// turn with the first, so both see the same load; with --raw the DuckDB raw scan (rollups off).
// Reads the data directory bench/api or bench/api-part2 left (their lakes and control planes);
// writes nothing there except the derived days the api persists.
//   npx tsx bench/api-cold/main.ts --data-dir DIR [--match REGEX] [--rounds 5] [--unprepared] [--raw]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { endUserIdFor } from '../../core/ids.js';
import { BENCH_META_FILE, benchNow } from '../api/bench-lake.js';
import { firstRequests, type FreshApiOptions } from '../api/fresh-api.js';
import { httpCases, pathOf } from '../api/http-cases.js';
import { log, stopLakeCatalog, useBenchLake } from '../api/synthetic-lake-host.js';
import { median as medianOf } from '../api/stats.js';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    match: { type: 'string', default: '' },
    rounds: { type: 'string', default: '5' },
    raw: { type: 'boolean', default: false },
    unprepared: { type: 'boolean', default: false },
  },
});
const dataDir = path.resolve(values['data-dir'] ?? '');
const rounds = Number(values.rounds);
// The data directory's lake catalog, for the api processes (bench/api/synthetic-lake-host.ts).
await useBenchLake(dataDir);
const part1 = fs.existsSync(path.join(dataDir, BENCH_META_FILE));
const meta = JSON.parse(fs.readFileSync(path.join(dataDir, part1 ? BENCH_META_FILE : 'bench-part2-meta.json'), 'utf8')) as {
  organizationId: string;
  apiKey: string;
  days: number;
};

/** bench/api's endpoints over its lake; bench/api-part2's margin endpoints over its 12-month lake. */
function cases(): Array<[string, string]> {
  if (part1) return httpCases(meta.days).map(([name, p, q]) => [name, pathOf(p, q)]);
  const year = 'start_date=2025-01-01&end_date=2026-01-01';
  const month = 'start_date=2025-06-01&end_date=2025-07-01';
  return [
    ['GET /margin-data/by-end-user (12 months)', `/margin-data/by-end-user?${year}`],
    ['GET /margin-data/by-end-user (30 days)', `/margin-data/by-end-user?${month}`],
    ['GET /margin-data/trend (12 months, monthly)', `/margin-data/trend?${year}`],
    ['GET /margin-data/trend (30 days, daily)', `/margin-data/trend?${month}`],
    [
      'GET /margin-data/trend?end_user_id (12 months)',
      `/margin-data/trend?${year}&end_user_id=${endUserIdFor(meta.organizationId, 'user-7')}`,
    ],
    ['GET /margin-data/summary (12 months)', `/margin-data/summary?${year}`],
  ];
}

const median = (xs: number[]) => +medianOf(xs).toFixed(1);
const base: FreshApiOptions = { dataDir, ...(part1 ? { now: benchNow(meta.days).toISOString() } : {}) };

const firstRequest = (o: FreshApiOptions, pathAndQuery: string) => firstRequests(o, pathAndQuery, meta.apiKey);

log(
  `${os.cpus().length} cpus; load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${rounds} rounds per endpoint`,
);
const rows: string[] = [];
for (const [name, pq] of cases().filter(([n]) => new RegExp(values.match!).test(n))) {
  const persisted: Array<{ startMs: number; firstMs: number }> = [];
  const unprepared: Array<{ startMs: number; firstMs: number }> = [];
  const raw: number[] = [];
  for (let i = 0; i < rounds; i++) {
    persisted.push(await firstRequest(base, pq));
    if (values.unprepared) unprepared.push(await firstRequest({ ...base, prepare: false }, pq));
    if (values.raw) raw.push((await firstRequest({ ...base, useRollups: false }, pq)).firstMs);
  }
  const figures = (xs: Array<{ startMs: number; firstMs: number }>) =>
    `${median(xs.map((x) => x.startMs))} | ${median(xs.map((x) => x.firstMs))} |`;
  const each = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' ');
  log(
    `${name.padEnd(80)} start ${median(persisted.map((x) => x.startMs))}  first ${median(persisted.map((x) => x.firstMs))} (${each(persisted.map((x) => x.firstMs))})` +
      (values.unprepared
        ? `  unprepared: start ${median(unprepared.map((x) => x.startMs))} first ${median(unprepared.map((x) => x.firstMs))} (${each(unprepared.map((x) => x.firstMs))})`
        : '') +
      (values.raw ? `  raw ${median(raw)} (${each(raw)})` : '') +
      ' ms',
  );
  rows.push(
    `| ${name} | ${figures(persisted)}${values.unprepared ? ` ${figures(unprepared)}` : ''}${values.raw ? ` ${median(raw)} |` : ''}`,
  );
}
log(
  `load at the end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const head = `| endpoint | start-up ms | first ms |${values.unprepared ? ' unprepared start-up ms | unprepared first ms |' : ''}${values.raw ? ' raw scan first ms |' : ''}`;
const rule = `|---|--:|--:|${values.unprepared ? '--:|--:|' : ''}${values.raw ? '--:|' : ''}`;
console.log(`\n${head}\n${rule}\n${rows.join('\n')}`);
await stopLakeCatalog();
