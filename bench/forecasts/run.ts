// Backtests the month-end cost forecast (api/forecasts: costFigure over forecast-method.ts, the
// functions GET /v1/forecasts runs) on generated daily cost histories with a known level, weekly
// seasonality, trend and noise: each history is cut at several days of a 30-day month, the
// month-end figure forecast from what precedes the cut, and compared with the month's real total.
// Writes bench/results/forecasts.md: MAPE by cut day, the interval's coverage and width, and a
// run-rate forecast for context. Deterministic (seeded). No service.
// Run: npx tsx bench/forecasts/run.ts [--series 2000]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HISTORY_DAYS } from '../../api/forecasts/forecast-method.js';
import { costFigure, epochDay, horizonWindow } from '../../api/forecasts/forecasts.js';
import { Big } from '../../core/money.js';
import { DAY_MS } from '../../core/time.js';
import { gaussian, random } from '../seeded-random.js';

const { values } = parseArgs({ options: { series: { type: 'string', default: '2000' } } });
const SERIES = Number(values.series);
/** June 2026: 30 days from a Monday. */
const MONTH_START = Date.UTC(2026, 5, 1);
const MONTH_DAYS = 30;
/** Days of history generated before the month (more than the method reads). */
const BEFORE = 84;
const CUT_DAYS = [1, 5, 8, 10, 15, 20, 25];

interface Case {
  name: string;
  sigma: [number, number];
  trend: number;
}

/** One generated history: cost per epoch day over BEFORE days and the month. */
function generate(rand: () => number, c: Case): Map<number, Big> {
  const level = 5 * (500 / 5) ** rand();
  const weekend = 0.3 + 0.7 * rand();
  const shape = Array.from({ length: 7 }, (_, d) => (d >= 5 ? weekend : 1) * (0.9 + 0.2 * rand()));
  const trend = (rand() - 0.5) * 2 * c.trend;
  const sigma = c.sigma[0] + (c.sigma[1] - c.sigma[0]) * rand();
  const first = MONTH_START / DAY_MS - BEFORE;
  const costs = new Map<number, Big>();
  for (let i = 0; i < BEFORE + MONTH_DAYS; i++) {
    // Day 0 of the shape is a Monday: MONTH_START is one and BEFORE is whole weeks.
    const expected = level * shape[i % 7]! * (1 + trend) ** i;
    costs.set(first + i, new Big((expected * Math.exp(sigma * gaussian(rand) - (sigma * sigma) / 2)).toFixed(6)));
  }
  return costs;
}

interface CutResult {
  ape: number[];
  runRateApe: number[];
  covered: number;
  width: number[];
}

function measure(c: Case, seed: number): Map<number, CutResult> {
  const rand = random(seed);
  const out = new Map(CUT_DAYS.map((d) => [d, { ape: [], runRateApe: [], covered: 0, width: [] } as CutResult]));
  for (let s = 0; s < SERIES; s++) {
    const costs = generate(rand, c);
    const monthStart = MONTH_START / DAY_MS;
    let actual = new Big(0);
    for (let d = monthStart; d < monthStart + MONTH_DAYS; d++) actual = actual.plus(costs.get(d)!);
    for (const cut of CUT_DAYS) {
      // As of 00:00 UTC on the cut day: the days before it are known, nothing after.
      const now = new Date(MONTH_START + (cut - 1) * DAY_MS);
      const known = new Map([...costs].filter(([d]) => d < epochDay(now)));
      const f = costFigure(known, now, horizonWindow('month-end', now));
      const r = out.get(cut)!;
      r.ape.push(f.value.minus(actual).abs().div(actual).toNumber());
      if (f.low.lte(actual) && f.high.gte(actual)) r.covered++;
      r.width.push(f.high.minus(f.low).div(actual).toNumber());
      // Run rate: the last 7 days' mean for every day still to come.
      let week = new Big(0);
      for (let d = epochDay(now) - 7; d < epochDay(now); d++) week = week.plus(known.get(d)!);
      const runRate = f.observed.plus(week.div(7).times(MONTH_DAYS - (cut - 1)));
      r.runRateApe.push(runRate.minus(actual).abs().div(actual).toNumber());
    }
  }
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

const started = performance.now();
const cases: Case[] = [
  { name: 'noise σ 5–30%, trend ±0.5%/day', sigma: [0.05, 0.3], trend: 0.005 },
  { name: 'noise σ 5–15%, trend ±0.5%/day', sigma: [0.05, 0.15], trend: 0.005 },
  { name: 'noise σ 30–50%, trend ±1%/day', sigma: [0.3, 0.5], trend: 0.01 },
];
const sections = cases.map((c, i) => {
  const results = measure(c, 2000 + i);
  const rows = CUT_DAYS.map((cut) => {
    const r = results.get(cut)!;
    return `| ${cut} | ${cut - 1} | ${pct(mean(r.ape))} | ${pct(r.covered / SERIES)} | ${pct(mean(r.width))} | ${pct(mean(r.runRateApe))} |`;
  });
  return { c, results, table: rows.join('\n') };
});
const ms = Math.round(performance.now() - started);
const midMonth = sections[0]!.results.get(15)!;

const report = `# Forecasts: month-end cost backtested on generated histories

\`npx tsx bench/forecasts/run.ts --series ${SERIES}\` (${new Date().toISOString().slice(0, 10)}, ${ms} ms). Method:
\`api/forecasts/forecast-method.ts\` through \`costFigure\` (\`api/forecasts/forecasts.ts\`), what
\`GET /v1/forecasts?horizon=month-end\` runs: the month so far exact, the rest from the last
${HISTORY_DAYS} complete days (Theil–Sen trend × weekday factors), interval from the backtest.

Each history: a level drawn log-uniformly from $5–$500 a day, a weekend factor 0.3–1.0 and ±10%
per weekday, a compound daily trend drawn from the case's range, multiplicative log-normal noise
with σ drawn per history from the case's range; ${BEFORE} days before a 30-day month (June 2026).
Each history is cut at 00:00 UTC of the cut day (the days before it known), the month-end figure
forecast, and compared with the month's real total. APE = |forecast − actual| / actual; MAPE is
its mean over ${SERIES.toLocaleString('en')} histories. Coverage: share of actual totals inside [low, high] (the
API's interval, meant as 80%); width: (high − low) / actual. Run rate, for context: the month so far plus the last
7 days' mean for each remaining day.

Target: MAPE ≤ 10% by mid-month on these histories. Measured (first case, cut on the 15th):
**${pct(mean(midMonth.ape))}**.

${sections
  .map(
    (s) => `## ${s.c.name}

| Cut day | Days observed | MAPE | Interval coverage | Interval width | Run-rate MAPE |
|---:|---:|---:|---:|---:|---:|
${s.table}`,
  )
  .join('\n\n')}

The benchmark lake (\`bench/api\`, 5M events) cut at several days of a month:
\`bench/forecasts/lake-backtest.ts\`, [\`forecasts-lake.md\`](forecasts-lake.md).
`;
writeFileSync(new URL('../results/forecasts.md', import.meta.url), report);
console.log(report);
