// Backtests the month-end cost forecast (costFigure, what GET /v1/forecasts runs) on bench/api's
// synthetic 5M-event lake: the daily cost of completed events, read with DuckDB straight from the
// lake's Parquet files, for the organization and for each end user whose month cost at least $10,
// cut at 00:00 UTC of several days of August 2026 (the lake's one whole month with history before
// it: it runs from 2026-07-01 for 90 days) and compared with August's real total.
// Writes bench/results/forecasts-lake.md.
//   npx tsx bench/forecasts/lake-backtest.ts --data-dir DIR (a data directory bench/api or bench/what-if built)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { costFigure, epochDay, horizonWindow } from '../../api/forecasts/forecasts.js';
import { openLake } from '../../core/lake/lake-catalog.js';
import { sqlStringLiteral } from '../../core/lake/parquet-sql.js';
import { Big } from '../../core/money.js';
import { fromRoot } from '../../core/paths.js';
import { DAY_MS } from '../../core/time.js';
import { BENCH_META_FILE, type BenchMeta } from '../api/bench-lake.js';
import { stopLakeCatalog, useBenchLake } from '../api/synthetic-lake-host.js';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' } } });
const dataDir = path.resolve(values['data-dir'] ?? '');
const meta = JSON.parse(fs.readFileSync(path.join(dataDir, BENCH_META_FILE), 'utf8')) as BenchMeta;
const MONTH_START = Date.UTC(2026, 7, 1);
const MONTH_DAYS = 31;
const CUT_DAYS = [1, 5, 8, 10, 15, 20, 25];
const MIN_MONTH_COST = new Big(10);

// The lake's raw events through a read-only attach (a plain DuckDB, not the api's code).
const lake = await openLake(await useBenchLake(dataDir), { readOnly: true });
const rows = (
  await lake.conn.runAndReadAll(
    `SELECT coalesce(end_user_id, '') AS end_user, CAST(CAST(event_timestamp AS DATE) AS VARCHAR) AS day, CAST(sum(total_cost) AS VARCHAR) AS cost
       FROM lake.events WHERE organization_id = ${sqlStringLiteral(meta.organizationId)} AND status = 'completed' GROUP BY ALL`,
  )
).getRowObjectsJson() as Array<{ end_user: string; day: string; cost: string }>;
lake.close();
await stopLakeCatalog();

/** Cost per epoch day, per series: '' the organization, else an end user's id. */
const series = new Map<string, Map<number, Big>>();
const add = (key: string, day: number, cost: Big) => {
  const s = series.get(key) ?? new Map<number, Big>();
  s.set(day, (s.get(day) ?? new Big(0)).plus(cost));
  series.set(key, s);
};
for (const r of rows) {
  const day = Date.parse(`${r.day}T00:00:00Z`) / DAY_MS;
  add('org', day, new Big(r.cost));
  if (r.end_user !== '') add(r.end_user, day, new Big(r.cost));
}

const monthTotal = (costs: Map<number, Big>) => {
  let total = new Big(0);
  for (let d = MONTH_START / DAY_MS; d < MONTH_START / DAY_MS + MONTH_DAYS; d++) total = total.plus(costs.get(d) ?? 0);
  return total;
};

/** |forecast − actual| / actual of each cut, and whether the actual fell inside the interval. */
function backtest(costs: Map<number, Big>): Array<{ ape: number; covered: boolean }> {
  const actual = monthTotal(costs);
  return CUT_DAYS.map((cut) => {
    const now = new Date(MONTH_START + (cut - 1) * DAY_MS);
    const known = new Map([...costs].filter(([d]) => d < epochDay(now)));
    const f = costFigure(known, now, horizonWindow('month-end', now));
    return { ape: f.value.minus(actual).abs().div(actual).toNumber(), covered: f.low.lte(actual) && f.high.gte(actual) };
  });
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
const org = backtest(series.get('org')!);
const endUsers = [...series].filter(([k, s]) => k !== 'org' && monthTotal(s).gte(MIN_MONTH_COST)).map(([, s]) => backtest(s));
const table = CUT_DAYS.map((cut, i) => {
  const ape = endUsers.map((u) => u[i]!.ape);
  const covered = endUsers.filter((u) => u[i]!.covered).length;
  return `| ${cut} | ${cut - 1} | ${pct(org[i]!.ape)} | ${org[i]!.covered ? 'yes' : 'no'} | ${pct(ape.reduce((a, b) => a + b, 0) / ape.length)} | ${pct(covered / endUsers.length)} |`;
});
const load = os
  .loadavg()
  .map((l) => l.toFixed(2))
  .join(' / ');
const report = `# Forecasts: month-end cost backtested on the benchmark lake

\`npx tsx bench/forecasts/lake-backtest.ts --data-dir …\` (${new Date().toISOString().slice(0, 10)}, load ${load}). The lake:
bench/api's synthetic lake, ${meta.events.toLocaleString('en-US')} events of its large organization over ${meta.days} days from
2026-07-01. Daily cost of completed events read with DuckDB from the lake's events (a read-only attach); August 2026
(${MONTH_DAYS} days; the lake holds the 31 days of July before it) forecast by \`costFigure\`, what \`GET /v1/forecasts?horizon=month-end\`
runs, cut at 00:00 UTC of each cut day (the days before it known), and compared with August's real
total. APE = |forecast − actual| / actual; for end users, MAPE is the mean over the
${endUsers.length} end users whose August cost at least $10. Coverage: actual totals inside [low, high].

The generator spreads each customer's events uniformly over the days (no weekly seasonality, no
trend; skewed customers, random token counts), so this measures the method on flat, noisy
histories with a short past, beside the generated histories of [\`forecasts.md\`](forecasts.md).

| Cut day | Days observed | Organization APE | Organization inside interval | End-user MAPE | End users inside interval |
|---:|---:|---:|---:|---:|---:|
${table.join('\n')}
`;
fs.writeFileSync(fromRoot('bench', 'results', 'forecasts-lake.md'), report);
console.log(report);
