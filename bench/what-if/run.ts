// POST /v1/what-if over 90 days of bench/api's 5M-event synthetic lake (issue 27: "answers within
// 2 s cold"): the organization and one heavy end user, the heaviest model substituted by a cheaper
// one with a token ratio. Cold is the first request of a fresh api process (bench/api/fresh-api.ts,
// derived days persisted as after any restart; the median of --rounds processes), warm the median of
// --iterations requests to one process. Every answer's totals are checked against a plain DuckDB
// over the lake's raw events (a read-only attach of the open lake, `lake.events`) with the two
// standard cards' rates (not the api's code). Writes
// bench/results/what-if.md.
//   npx tsx bench/what-if/run.ts [--data-dir DIR (reused, or built: 5M events)] [--rounds 3] [--iterations 3]
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { openLake } from '../../core/lake/lake-catalog.js';
import { Big } from '../../core/money.js';
import { fromRoot } from '../../core/paths.js';
import { benchLake, benchNow, FIRST_DAY } from '../api/bench-lake.js';
import { startFreshApi, type FreshApi, type FreshApiOptions } from '../api/fresh-api.js';
import { median } from '../api/stats.js';
import { log, startSyntheticLakeHost, stopLakeCatalog } from '../api/synthetic-lake-host.js';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    iterations: { type: 'string', default: '3' },
    events: { type: 'string', default: '5000000' },
  },
});
const DAYS = 90;
const ROUNDS = Number(values.rounds);
const ITERATIONS = Number(values.iterations);
// gpt-4o-2024-08-06 is one of the synthetic lake's six models; the standard gpt-4o-mini card
// (0.15 input, 0.6 output, 0.075 cache read USD per million) prices it after the move.
const FROM = 'gpt-4o-2024-08-06';
const TO = { model: 'gpt-4o-mini', input: '0.15', output: '0.6', cacheRead: '0.075' };
const RATIO = '1.2';
const start = FIRST_DAY.toISOString().slice(0, 10);
const end = new Date(FIRST_DAY.getTime() + DAYS * 86_400_000).toISOString().slice(0, 10);

const bench = await startSyntheticLakeHost({ label: 'bench-what-if', dataDir: values['data-dir'], api: {} });
const meta = await benchLake(bench, Number(values.events), DAYS);
const lakeSettings = bench.config.lake;
await bench.stop({ keepData: true });

// ---- the independent answer: DuckDB over the lake's raw events ---------------------------------

const oracle = await openLake(lakeSettings, { readOnly: true });
const duck = oracle.conn;
async function one(sql: string): Promise<Record<string, unknown>> {
  return (await duck.runAndReadAll(sql)).getRowObjectsJson()[0] as Record<string, unknown>;
}
const inRange = `organization_id = '${meta.organizationId}' AND status = 'completed' AND event_timestamp >= TIMESTAMPTZ '${start}' AND event_timestamp < TIMESTAMPTZ '${end}'`;
/** Actual and simulated cost of the range (and end user): moved events priced at the target card, tokens × ratio rounded half-up. */
async function expected(endUser: string | null): Promise<{ actual: string; simulated: string }> {
  const scope = endUser === null ? '' : ` AND end_user_id = '${endUser}'`;
  const scaled = (c: string) => `coalesce(round(CAST(${c} AS DECIMAL(18,0)) * ${RATIO}, 0), 0)`;
  const r = await one(
    `SELECT CAST(sum(total_cost) AS VARCHAR) AS actual,
            CAST(sum(total_cost) FILTER (WHERE model = '${FROM}') AS VARCHAR) AS moved_actual,
            CAST(sum(${scaled('input_tokens')} * ${TO.input} + ${scaled('output_tokens')} * ${TO.output}
                     + ${scaled('cache_read_input_tokens')} * ${TO.cacheRead}) FILTER (WHERE model = '${FROM}') AS VARCHAR) AS moved_simulated_micro
       FROM lake.events WHERE ${inRange}${scope}`,
  );
  const actual = new Big(String(r.actual));
  // USD per million tokens: the division in decimal here (DuckDB's decimal division is a double).
  const movedSimulated = new Big(String(r.moved_simulated_micro)).div(1_000_000);
  return { actual: actual.toFixed(), simulated: actual.minus(String(r.moved_actual)).plus(movedSimulated).toFixed() };
}
// The heaviest end user of the range (user-0 under the lake's skew).
const heavy = String(
  (await one(`SELECT end_user_id FROM lake.events WHERE ${inRange} GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`)).end_user_id,
);
const moved = await one(`SELECT count(*) AS n FROM lake.events WHERE ${inRange} AND model = '${FROM}'`);
log(`${moved.n} completed ${FROM} events in the range; heavy end user ${heavy}`);

// ---- the api ------------------------------------------------------------------------------------

const apiOptions: FreshApiOptions = { dataDir: bench.dataDir, now: benchNow(DAYS).toISOString() };
const body = (endUser: string | null) => ({
  start_date: start,
  end_date: end,
  ...(endUser === null ? {} : { end_user_id: endUser }),
  substitutions: [{ from_model: FROM, to_model: TO.model, token_ratio: Number(RATIO) }],
});

/** CPU milliseconds a process has used, every thread (utime + stime of /proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** One request: wall-clock ms, the api process's CPU ms meanwhile (the machine's load does not inflate it), the answer. */
async function whatIf(
  api: FreshApi,
  endUser: string | null,
): Promise<{ ms: number; cpu: number; answer: { actual_cost: string; simulated_cost: string } }> {
  const cpu0 = cpuMs(api.pid);
  const t = performance.now();
  const res = await fetch(`${api.url}/v1/what-if`, {
    method: 'POST',
    headers: { authorization: `Bearer ${meta.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body(endUser)),
  });
  const text = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`what-if: HTTP ${res.status} ${text.slice(0, 300)}`);
  return { ms, cpu: cpuMs(api.pid) - cpu0, answer: JSON.parse(text) };
}

const scopes: Array<[string, string | null]> = [
  ['organization', null],
  ['one end user (the heaviest)', heavy],
];
const rows: string[] = [];
for (const [name, endUser] of scopes) {
  const want = await expected(endUser);
  const check = (a: { actual_cost: string; simulated_cost: string }) => {
    if (!new Big(a.actual_cost).eq(want.actual) || !new Big(a.simulated_cost).eq(want.simulated)) {
      throw new Error(`${name}: api ${a.actual_cost} → ${a.simulated_cost}, DuckDB ${want.actual} → ${want.simulated}`);
    }
  };
  const cold: number[] = [];
  const coldCpu: number[] = [];
  const starts: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const api = await startFreshApi(apiOptions);
    try {
      const first = await whatIf(api, endUser);
      check(first.answer);
      log(`${name}: cold round ${i + 1}: first request ${first.ms.toFixed(0)} ms, ${first.cpu} ms CPU`);
      cold.push(first.ms);
      coldCpu.push(first.cpu);
      starts.push(api.startupMs);
    } finally {
      await api.stop();
    }
  }
  const api = await startFreshApi(apiOptions);
  const warm: number[] = [];
  const warmCpu: number[] = [];
  try {
    await whatIf(api, endUser);
    for (let i = 0; i < ITERATIONS; i++) {
      const r = await whatIf(api, endUser);
      check(r.answer);
      warm.push(r.ms);
      warmCpu.push(r.cpu);
    }
  } finally {
    await api.stop();
  }
  const ms = (x: number) => x.toFixed(0);
  log(`${name}: cold ${ms(median(cold))} ms (${cold.map(ms).join(' ')}), warm ${ms(median(warm))} ms; ${want.actual} → ${want.simulated}`);
  rows.push(
    `| ${name} | ${ms(median(starts))} | ${ms(median(cold))} (${cold.map(ms).join(', ')}) | ${median(coldCpu)} | ${ms(median(warm))} | ${median(warmCpu)} | ${want.actual} | ${want.simulated} |`,
  );
}
oracle.close();
await stopLakeCatalog();

const load = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' / ');
const out = `# What-if over the 5M-event benchmark lake

\`npx tsx bench/what-if/run.ts\` (${new Date().toISOString().slice(0, 16)}Z), ${os.cpus().length} vCPU shared with other work,
load average at the end ${load}. The lake: bench/api's synthetic lake, ${meta.events.toLocaleString('en-US')} events of the
large organization over ${DAYS} days (${start} to ${end}, end exclusive), ${Number(moved.n).toLocaleString('en-US')} of them
completed \`${FROM}\` events in the range.

The scenario: \`${FROM}\` → \`${TO.model}\`, \`token_ratio\` ${RATIO}, over the whole ${DAYS} days
(\`POST /v1/what-if\`). Cold: the first request of a fresh api process (derived days persisted,
as after a restart), the median of ${ROUNDS} processes (each value in brackets); start-up is spawn to
listening. Warm: the median of ${ITERATIONS} requests to one process after one more. CPU: what the api
process (every thread: node and DuckDB) used meanwhile, which the machine's load does not inflate. Every answer's
\`actual_cost\` and \`simulated_cost\` equalled a plain DuckDB's over the lake's raw events (the moved events'
tokens × ${RATIO} rounded half-up, at ${TO.input} / ${TO.output} / ${TO.cacheRead} USD per million).

| scope | start-up ms | cold first request ms | cold CPU ms | warm ms | warm CPU ms | actual cost | simulated cost |
|---|--:|--:|--:|--:|--:|--:|--:|
${rows.join('\n')}

Target: within 2 s cold over 90 days (issue 27).
`;
fs.writeFileSync(fromRoot('bench', 'results', 'what-if.md'), out);
log('wrote bench/results/what-if.md');
