// bench/repricing: events re-priced per second by history re-pricing (processor/repricing-jobs.ts)
// over the bench's synthetic lake (bench/api/synthetic-lake.ts: one organization spread over 4
// partitions, the shape of real traffic) in the open lake (DuckLake, bench/lake/stores.ts: local
// disk or S3Proxy, a throwaway PostgreSQL catalog). It writes the lake, then re-prices every
// partition's whole range with the organization's cards plus a correction effective in the past,
// through the production path minus Kafka and the control plane: DuckLakeWriter.rewriteRows with
// repriceHistoryTransform (one DuckLake commit per partition), partitions one after another as one
// processor would. Prints the figures and writes bench/results/repricing.json and .md.
//
//   npx tsx bench/repricing/run.ts [--events 1000000] [--days 30] [--store local|s3] [--no-write]
//
// The issue names the 5M-event lake; the default is 1M to keep the run short on a shared machine
// (the rate per event is what is measured; --events 5000000 runs the full size).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config.js';
import { fromRoot } from '../../core/paths.js';
import { buildTokenRateIndex, buildUnitRateIndex } from '../../pricing/rate-card-match.js';
import type { TokenRateCard } from '../../pricing/pricing.types.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { emptyTally, repriceHistoryTransform } from '../../processor/repricing-jobs.js';
import { PARTITIONS, writeSyntheticLake } from '../api/synthetic-lake.js';
import { parseStore, setUpStore, useLakeEnvironment } from '../lake/stores.js';

const log = (msg: string) => console.log(`[bench] ${msg}`);
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    days: { type: 'string', default: '30' },
    store: { type: 'string', default: 'local' },
    'no-write': { type: 'boolean', default: false },
  },
});
const STORE = parseStore(values.store);
const EVENTS = Number(values.events);
const DAYS = Number(values.days);
const ORG = '5b0c7f0e-2d1a-4c3b-9e8f-7a6b5c4d3e21';
const FIRST_DAY = new Date('2026-09-01T00:00:00Z');

const card = (
  slug: string,
  input: string,
  output: string,
  cacheRead: string | null,
  reasoning: string | null,
  from = '2020-01-01',
): TokenRateCard => ({
  model_slug: slug,
  input_cost_per_million: input,
  output_cost_per_million: output,
  cache_creation_cost_per_million: null,
  cache_read_cost_per_million: cacheRead,
  reasoning_cost_per_million: reasoning,
  effective_from: new Date(from),
});
// The synthetic lake's own rates, then two corrections effective half way through its range.
const CARDS: TokenRateCard[] = [
  card('gpt-4o', '2.5', '10', '1.25', null),
  card('gpt-4o-mini', '0.15', '0.6', '0.075', null),
  card('o3-mini', '1.1', '4.4', '0.55', '4.4'),
  card('claude-sonnet-4', '3', '15', '0.3', null),
  card('claude-haiku-3.5', '0.8', '4', '0.08', null),
  card('gemini-2.0-flash', '0.1', '0.4', '0.025', null),
  card('claude-sonnet-4', '3.3', '16.5', '0.33', null, '2026-09-16'),
  card('gpt-4o-mini', '0.165', '0.66', '0.0825', null, '2026-09-16'),
];

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-repricing-'));
  // The catalog's PostgreSQL runs as the postgres user when this runs as root: it must reach its folder.
  fs.chmodSync(tmp, 0o755);
  const store = await setUpStore(STORE, tmp);
  try {
    useLakeEnvironment(store.env);
    const lake = loadConfig({ ...process.env, DATA_DIR: tmp }).lake;
    log(`writing ${EVENTS} events over ${DAYS} days into ${PARTITIONS} partitions (DuckLake, ${STORE})…`);
    const t0 = performance.now();
    await writeSyntheticLake({
      lake,
      orgs: [{ organizationId: ORG, events: EVENTS, endUsers: 2000 }],
      days: DAYS,
      firstDay: FIRST_DAY,
      onProgress: log,
    });
    const writeSeconds = (performance.now() - t0) / 1000;

    const rates = { tokenCards: buildTokenRateIndex(CARDS), unitRates: buildUnitRateIndex([]) };
    const range = { start: FIRST_DAY, end: new Date(FIRST_DAY.getTime() + DAYS * 86_400_000) };
    const writer = await DuckLakeWriter.open(lake);
    const tally = emptyTally();
    const cpu0 = process.cpuUsage();
    const t1 = performance.now();
    let groups = 0;
    const perPartition: { partition: number; seconds: number; examined: number }[] = [];
    try {
      for (let p = 0; p < PARTITIONS; p++) {
        const before = tally.examined;
        const tp = performance.now();
        const result = await writer.rewriteRows(
          p,
          { organizationId: ORG, statuses: ['completed', 'pending_rate_card'], fromDate: '2026-09-01', toDate: '2026-12-31' },
          repriceHistoryTransform(rates, range, new Date(), tally),
        );
        groups += result.groups;
        perPartition.push({
          partition: p,
          seconds: Number(((performance.now() - tp) / 1000).toFixed(2)),
          examined: tally.examined - before,
        });
        log(`partition ${p}: ${tally.examined - before} events in ${((performance.now() - tp) / 1000).toFixed(1)} s`);
      }
    } finally {
      await writer.close();
    }
    const seconds = (performance.now() - t1) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const results = {
      benchmark: 'repricing',
      date: new Date().toISOString(),
      store: STORE === 'local' ? 'DuckLake on local disk, PostgreSQL catalog' : 'DuckLake on S3Proxy (loopback), PostgreSQL catalog',
      machine: {
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model,
        node: process.version,
        loadAverageAtEnd: os.loadavg().map((l) => Number(l.toFixed(2))),
      },
      notes:
        "History re-pricing of one organization over its whole range, every partition one after another (as one processor owning them would), through DuckLakeWriter.rewriteRows + repriceHistoryTransform (the production path without Kafka and the control plane). Rows are read from the lake's events, priced in JS, and the changed rows replace their originals with their days' rollups recomputed in one DuckLake commit per partition.",
      lake: { events: EVENTS, days: DAYS, partitions: PARTITIONS, writeSeconds: Number(writeSeconds.toFixed(1)) },
      repricing: {
        eventsRepriced: tally.examined,
        eventsChanged: tally.changed,
        groupsRewritten: groups,
        seconds: Number(seconds.toFixed(2)),
        eventsPerSecond: Math.round(tally.examined / seconds),
        cpuSeconds: Number(cpuSeconds.toFixed(1)),
        cpuMicrosecondsPerEvent: Number(((cpuSeconds / tally.examined) * 1e6).toFixed(1)),
        costBefore: tally.before.toFixed(),
        costAfter: tally.after.toFixed(),
        perPartition,
      },
    };
    log(
      `re-priced ${tally.examined} events (${tally.changed} changed, ${groups} groups) in ${seconds.toFixed(1)} s: ${results.repricing.eventsPerSecond} events/s, ${results.repricing.cpuMicrosecondsPerEvent} µs CPU per event`,
    );
    if (values['no-write']) return;
    fs.mkdirSync(fromRoot('bench', 'results'), { recursive: true });
    fs.writeFileSync(fromRoot('bench', 'results', 'repricing.json'), `${JSON.stringify(results, null, 2)}\n`);
    fs.writeFileSync(
      fromRoot('bench', 'results', 'repricing.md'),
      [
        '# bench/repricing',
        '',
        `${results.date}, ${results.machine.cpus} × ${results.machine.cpuModel}, Node ${results.machine.node}, load average at the end ${results.machine.loadAverageAtEnd.join(' / ')}.`,
        '',
        `Synthetic lake: ${EVENTS.toLocaleString('en-US')} events of one organization over ${DAYS} days in ${PARTITIONS} partitions (written in ${results.lake.writeSeconds} s); ${results.store}.`,
        '',
        '| figure | value |',
        '|---|---|',
        `| events re-priced | ${tally.examined.toLocaleString('en-US')} |`,
        `| events rewritten (the synthetic rows carry no card id, so each is rewritten to record its card; corrections from 2026-09-16 change the cost of two models) | ${tally.changed.toLocaleString('en-US')} |`,
        `| (organization, date) groups rewritten (days with a changed row, summed over partitions) | ${groups} |`,
        `| wall time | ${results.repricing.seconds} s |`,
        `| **events re-priced per second** | **${results.repricing.eventsPerSecond.toLocaleString('en-US')}** |`,
        `| CPU per event | ${results.repricing.cpuMicrosecondsPerEvent} µs |`,
        `| cost before → after | ${results.repricing.costBefore} → ${results.repricing.costAfter} USD |`,
        '',
        results.notes,
        '',
      ].join('\n'),
    );
  } finally {
    await store.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
