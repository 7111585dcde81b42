// bench/lake/run.ts's report: bench/results/lake.md (a table per size × store, the ratios against
// issue 24's targets, how each figure grows with the events, every question's cold and warm
// figures) and lake.json (the same figures, raw).
import fs from 'node:fs';
import { median } from '../api/stats.js';
import type { Store } from './stores.js';

/** Today's files-lake drain (bench/results/processor.json), the throughput target's reference. */
const TODAY_PRICED_EVENTS_PER_SECOND = 62_396;

/**
 * Bytes stored per event by the files lake (our own format, retired by issue 24), the storage
 * target's reference, as bench/lake/run.ts recorded them beside DuckLake in the committed
 * bench/results/lake.md (1M, 18:51Z) and lake-5m.md (5M, 20:00Z) at e2aac9f.
 */
const FILES_LAKE_BYTES_PER_EVENT: ReadonlyMap<number, number> = new Map([
  [1_000_000, 163.7],
  [5_000_000, 290.3],
]);

export interface StoreResult {
  events: number;
  store: Store;
  fill_seconds: number;
  priced_events_per_second: number;
  drain_seconds: number;
  group_join_seconds: number;
  load_average_after_drain: number[];
  /** Bytes in the data folder or under the bucket after the drain (files awaiting DuckLake's cleanup included). */
  bytes_stored: number;
  bytes_per_event: number;
  /** The live data and delete files the catalog names. */
  live_data_file_bytes: number;
  /** pg_database_size of the catalog. */
  catalog_bytes: number;
  /** cold_ms null: not measured (--cold-every). */
  reads: Array<{ name: string; cold_ms: number | null; warm_p50_ms: number }>;
  load_average_after_reads: number[];
}

export interface LakeReport {
  command: string;
  date: string;
  cpus: number;
  results: StoreResult[];
}

const STORE_NAMES: Record<Store, string> = { local: 'DuckLake, local disk', s3: 'DuckLake, S3Proxy' };
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? '–' : `${(a / b).toFixed(2)}×`;
const colds = (r: StoreResult) => r.reads.flatMap((x) => (x.cold_ms === null ? [] : [x.cold_ms]));
const coldP50 = (r: StoreResult) => (colds(r).length ? median(colds(r)) : undefined);
const warmP50 = (r: StoreResult) => (r.reads.length ? median(r.reads.map((x) => x.warm_p50_ms)) : undefined);
const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' / ');

function sizeSection(events: number, rows: StoreResult[]): string[] {
  const filesBytes = FILES_LAKE_BYTES_PER_EVENT.get(events);
  const local = rows.find((r) => r.store === 'local');
  const s3 = rows.find((r) => r.store === 's3');
  const lines = [
    `## ${events.toLocaleString('en')} events`,
    '',
    `| Store | Priced events/s | vs 62,396 (target ≥ 0.80×) | Bytes stored per event (live data files) | vs the files lake (${filesBytes === undefined ? 'no record at this size' : `${filesBytes} recorded`}; target ≤ 1.00×) | Cold p50 across questions | Warm p50 across questions | Load after drain / after reads |`,
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const live = ` (${(r.live_data_file_bytes / events).toFixed(1)}; catalog ${(r.catalog_bytes / 2 ** 20).toFixed(1)} MB)`;
    lines.push(
      `| ${STORE_NAMES[r.store]} | ${r.priced_events_per_second.toLocaleString('en')} | ${ratio(r.priced_events_per_second, TODAY_PRICED_EVENTS_PER_SECOND)} | ${r.bytes_per_event}${live} | ${ratio(r.bytes_per_event, filesBytes)} | ${coldP50(r)?.toFixed(1) ?? '–'} ms | ${warmP50(r)?.toFixed(1) ?? '–'} ms | ${load(r.load_average_after_drain)} ; ${load(r.load_average_after_reads)} |`,
    );
  }
  if (local && s3 && local.reads.length && s3.reads.length) {
    const perQuestion = (k: 'cold_ms' | 'warm_p50_ms') =>
      median(s3.reads.flatMap((r, i) => (r[k] === null || local.reads[i]![k] === null ? [] : [r[k] / Math.max(0.1, local.reads[i]![k])])));
    lines.push(
      '',
      `S3 against local disk (DuckLake): warm p50 ${ratio(warmP50(s3), warmP50(local))} (median of per-question ratios ${perQuestion('warm_p50_ms').toFixed(2)}×; target ≤ 1.5×), ` +
        `cold ${ratio(coldP50(s3), coldP50(local))} (per-question ${perQuestion('cold_ms').toFixed(2)}×; target ≤ 2×).`,
    );
  }
  const named = rows.filter((r) => r.reads.length);
  if (named.length) {
    lines.push(
      '',
      `| Question | ${named.map((r) => `${r.store} cold | ${r.store} warm p50`).join(' | ')} |`,
      `|---|${named.map(() => '---|---').join('|')}|`,
    );
    named[0]!.reads.forEach((q, i) => {
      lines.push(`| ${q.name} | ${named.map((r) => `${r.reads[i]!.cold_ms ?? '–'} | ${r.reads[i]!.warm_p50_ms}`).join(' | ')} |`);
    });
  }
  lines.push('');
  return lines;
}

/** How each figure changes from the smallest size to each larger one, per store. */
function growthSection(results: StoreResult[]): string[] {
  const sizes = [...new Set(results.map((r) => r.events))].sort((a, b) => a - b);
  if (sizes.length < 2)
    return [
      '## Growth with the events',
      '',
      `One size only (${sizes[0]?.toLocaleString('en')} events): no growth figures yet; rerun with \`--events 1000000,5000000\`.`,
      '',
    ];
  const lines = [
    '## Growth with the events (each figure at N over the same figure at the smallest size)',
    '',
    '| Store | N | Events ×| Events/s × | Bytes per event × | Cold p50 × | Warm p50 × |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const store of ['local', 's3'] as const) {
    const first = results.find((r) => r.store === store && r.events === sizes[0]);
    if (!first) continue;
    for (const n of sizes.slice(1)) {
      const r = results.find((x) => x.store === store && x.events === n);
      if (!r) continue;
      lines.push(
        `| ${store} | ${n.toLocaleString('en')} | ${(n / sizes[0]!).toFixed(0)} | ${ratio(r.priced_events_per_second, first.priced_events_per_second)} | ${ratio(r.bytes_per_event, first.bytes_per_event)} | ${ratio(coldP50(r), coldP50(first))} | ${ratio(warmP50(r), warmP50(first))} |`,
      );
    }
  }
  lines.push('');
  return lines;
}

export function writeLakeReport(outBase: string, report: LakeReport): void {
  const sizes = [...new Set(report.results.map((r) => r.events))].sort((a, b) => a - b);
  const md = [
    '# The open lake (bench/lake/run.ts)',
    '',
    `Command: \`${report.command}\`; ${report.date}; ${report.cpus} cores. The machine was shared with a CI run while this ran ` +
      '(load averages in each row: 1 / 5 / 15 minutes), so every figure is pessimistic; rerun the command on a quiet machine for a fair one.',
    '',
    'Per size one topic (4 partitions, 8 organizations, bench/processor’s events spread over `--days` days from bench/api’s first day, 90 unless the command says otherwise; the question names keep bench/api’s "90 days" but ask for the whole spread) is drained by the processor ' +
      '(flushes of 10,000 rows, dimension rollups on) into a fresh lake per store; events/s counts from the group assignment to every ' +
      'partition’s resume offset at the topic’s end. Bytes stored: the data folder or the objects under the ' +
      'bucket (S3Proxy’s filesystem backend) right after the drain, files DuckLake has merged but not yet removed included; in brackets the live ' +
      'files the catalog names, and the catalog’s PostgreSQL database. Reads: bench/api’s 27 questions for the first organization ' +
      '(an eighth of the events) — cold is the first request of a fresh api process (after one process asked every question once, as ' +
      'bench/api does), warm the p50 of one process after 2 warm-ups. Medians across questions in the tables.',
    '',
    'The files lake (our own format, retired by issue 24) no longer runs here: its figures beside DuckLake’s are in ' +
      '`git show e2aac9f:bench/results/lake.md` (1M events) and `lake-5m.md` (5M); its bytes per event at those sizes are the storage column’s reference.',
    '',
    ...sizes.flatMap((n) =>
      sizeSection(
        n,
        report.results.filter((r) => r.events === n),
      ),
    ),
    ...growthSection(report.results),
  ].join('\n');
  fs.writeFileSync(`${outBase}.md`, md);
  fs.writeFileSync(`${outBase}.json`, `${JSON.stringify(report, null, 2)}\n`);
}
