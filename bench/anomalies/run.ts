// Measures the cost-spike rule (api/anomalies/anomalies.ts) on generated daily cost series: weekly
// seasonality, trend, multiplicative noise and idle days, with spikes injected at 3× (and 2×, 4×
// for context) the day's expected cost. Counts recall of injected spikes and false alarms per
// 1,000 series-days without a spike, and writes bench/results/anomalies.md. Deterministic (seeded).
// The hourly case feeds one hour of day (14:00) of noisier series to detectHourlySpike instead.
// Run: npx tsx bench/anomalies/run.ts [--series 3000] [--days 150]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  detectHourlySpike,
  detectSpike,
  MIN_ACTIVE_DAYS,
  MIN_INCREASE,
  MIN_RATIO,
  MIN_Z,
  WINDOW_DAYS,
} from '../../api/anomalies/anomalies.js';
import { DAY_MS, utcDate } from '../../core/time.js';
import { gaussian, random } from '../seeded-random.js';

const { values } = parseArgs({ options: { series: { type: 'string', default: '3000' }, days: { type: 'string', default: '150' } } });
const SERIES = Number(values.series);
const DAYS = Number(values.days);
/** Chance that an evaluated day carries an injected spike. */
const SPIKE_CHANCE = 1 / 40;
const FIRST_DAY = Date.UTC(2026, 0, 5); // a Monday

interface Outcome {
  spikes: number;
  found: number;
  quietDays: number;
  falseAlarms: number;
}

/** Day-to-day noise (σ from `sigma[0]` to `sigma[1]`), the largest share of idle days, and whether the series is one hour of day. */
interface Shape {
  sigma: [number, number];
  maxIdle: number;
  hourly: boolean;
}
const DAILY_SHAPE: Shape = { sigma: [0.05, 0.3], maxIdle: 0.03, hourly: false };
const HOURLY_SHAPE: Shape = { sigma: [0.1, 0.5], maxIdle: 0.1, hourly: true };

/** One series: its expected costs, then noise, idle days and spikes of `factor`; every day after the window evaluated. */
function runSeries(rand: () => number, factor: number, levelRange: [number, number], shape: Shape, out: Outcome): void {
  const level = levelRange[0] * (levelRange[1] / levelRange[0]) ** rand();
  const weekend = 0.3 + 0.7 * rand();
  const weekdayShape = Array.from({ length: 7 }, (_, d) => (d >= 5 ? weekend : 1) * (0.9 + 0.2 * rand()));
  const trend = (rand() - 0.5) * 0.01; // ±0.5% a day
  const sigma = shape.sigma[0] + (shape.sigma[1] - shape.sigma[0]) * rand();
  const idle = rand() * shape.maxIdle;
  const keyOf = (i: number) =>
    shape.hourly ? `${utcDate(new Date(FIRST_DAY + i * DAY_MS))}T14:00:00Z` : utcDate(new Date(FIRST_DAY + i * DAY_MS));
  const history = new Map<string, string>();
  const spikeDays = new Set<number>();
  for (let i = 0; i < DAYS; i++) {
    if (rand() < idle) continue;
    const expected = level * weekdayShape[i % 7]! * (1 + trend) ** i;
    let cost = expected * Math.exp(sigma * gaussian(rand) - (sigma * sigma) / 2);
    if (i >= WINDOW_DAYS && rand() < SPIKE_CHANCE) {
      cost = expected * factor;
      spikeDays.add(i);
    }
    history.set(keyOf(i), cost.toFixed(6));
  }
  for (let i = WINDOW_DAYS; i < DAYS; i++) {
    const spike = (shape.hourly ? detectHourlySpike(keyOf(i), history) : detectSpike(keyOf(i), history)) !== null;
    if (spikeDays.has(i)) {
      out.spikes++;
      if (spike) out.found++;
    } else {
      out.quietDays++;
      if (spike) out.falseAlarms++;
    }
  }
}

function measure(factor: number, levelRange: [number, number], shape: Shape, seed: number): Outcome {
  const rand = random(seed);
  const out: Outcome = { spikes: 0, found: 0, quietDays: 0, falseAlarms: 0 };
  for (let s = 0; s < SERIES; s++) runSeries(rand, factor, levelRange, shape, out);
  return out;
}

const started = performance.now();
const cases = [
  { name: '3× spikes, $3–$500 a day', factor: 3, levels: [3, 500] as [number, number], shape: DAILY_SHAPE },
  { name: '2× spikes, $3–$500 a day', factor: 2, levels: [3, 500] as [number, number], shape: DAILY_SHAPE },
  { name: '4× spikes, $3–$500 a day', factor: 4, levels: [3, 500] as [number, number], shape: DAILY_SHAPE },
  { name: '3× spikes, $0.02–$0.30 a day (cents)', factor: 3, levels: [0.02, 0.3] as [number, number], shape: DAILY_SHAPE },
  { name: 'hourly: 3× spikes at 14:00, $3–$100 an hour', factor: 3, levels: [3, 100] as [number, number], shape: HOURLY_SHAPE },
];
const rows = cases.map((c, i) => ({ ...c, ...measure(c.factor, c.levels, c.shape, 1000 + i) }));
const ms = Math.round(performance.now() - started);

const pct = (a: number, b: number) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(2)}%`);
const perThousand = (a: number, b: number) => ((1000 * a) / b).toFixed(3);
const table = rows
  .map(
    (r) =>
      `| ${r.name} | ${r.spikes.toLocaleString('en')} | ${r.found.toLocaleString('en')} | ${pct(r.found, r.spikes)} | ${r.quietDays.toLocaleString('en')} | ${r.falseAlarms} | ${perThousand(r.falseAlarms, r.quietDays)} |`,
  )
  .join('\n');
const report = `# Cost anomalies: the spike rule on generated series

\`npx tsx bench/anomalies/run.ts --series ${SERIES} --days ${DAYS}\` (${new Date().toISOString().slice(0, 10)}, ${ms} ms). Rule:
\`api/anomalies/anomalies.ts\` (window ${WINDOW_DAYS} days, same-weekday median baseline, at least
${MIN_ACTIVE_DAYS} active days, cost ≥ ${MIN_RATIO}× baseline, robust z ≥ ${MIN_Z}, increase ≥ ${MIN_INCREASE.toString()}).

Each series: a level drawn log-uniformly from the range, a weekend factor 0.3–1.0 and ±10% per
weekday, a trend of ±0.5% a day, multiplicative log-normal noise with σ 5–30% (drawn per series),
up to 3% idle days (no cost), ${DAYS} days of which the first ${WINDOW_DAYS} are history only. On each
later day a spike replaces the day's cost by the factor × its expected cost with chance 1/40 (so
windows also hold earlier spikes). A quiet day is any evaluated day without an injected spike.
The hourly row is the series of one hour of day (14:00 each day, judged by \`detectHourlySpike\`):
noisier (σ 10–50%) and idler (up to 10% of days without cost at that hour) than a whole day.

| Case | Spikes | Found | Recall | Quiet series-days | False alarms | per 1,000 series-days |
|---|---:|---:|---:|---:|---:|---:|
${table}

Targets: recall ≥ 95% of 3× spikes, ≤ 1 false alarm per 1,000 series-days. The cents row shows
the absolute floor at work: a spike alarms only when its increase reaches ${MIN_INCREASE.toString()} (the few found are
series the trend grew to over $0.50 a day); no false alarm however large the ratio.
The hourly row misses both targets: one hour of day is noisier than a day, and the daily constants
are used unchanged (one rule; decision 0155). Retuning them for hours is left open.

Constants chosen on these series (400 series each, 3× recall / false alarms per 1,000): ratio 2
and z 4 with idle days counted as 0 (the first draft) 98.8% / 4.9; idle days left out, ratio 2.25,
z 4: 97.3% / 1.24; ratio 2.25, z 6: 95.4% / 0.84; ratio 2.3, z 5: 96.4% / 0.95; ratio 2.4, z 4:
95.9% / 0.65 (kept). A z on week-over-week log changes (tried) did worse at every threshold.
Spikes of 2× are mostly not reported by design (below the ratio).
`;
writeFileSync(new URL('../results/anomalies.md', import.meta.url), report);
console.log(report);
