// A/B of each read-path cache layer (issue 23, "every read-path layer earns its place"): over
// bench/api's lake and endpoints, two fresh api processes (bench/api/fresh-api.ts) side by side,
// one with everything on and one with one layer switched off, their requests alternating (ABBA…)
// so the machine's varying load falls on both alike. Per pair: each endpoint's first request in
// turn (cold: the first of a fresh process for the first endpoint, later ones share what earlier
// ones built), then each endpoint's warm p50 (after two warm-ups), then each api's RSS. A layer's
// saving on an endpoint is 1 − on/off, the median over rounds.
// Writes bench/results/<--out>.md and .json. Reads the data directory bench/api left (or bench/api-part2's,
// for the session index and revenue cache: their sessions and revenue records); writes nothing there
// except the derived days the api persists (a first pass persists them). A layer that names its own
// endpoints is measured on those alone.
//   npx tsx bench/read-path-layers/main.ts --data-dir DIR [--rounds 2] [--iterations 5] [--layers a,b] [--out read-path-layers] [--no-write]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../../core/paths.js';
import { BENCH_META_FILE, benchNow, type BenchMeta } from '../api/bench-lake.js';
import { startFreshApi, type FreshApi, type FreshApiOptions } from '../api/fresh-api.js';
import { benchRanges, httpCases, pathOf } from '../api/http-cases.js';
import { median } from '../api/stats.js';
import { log, stopLakeCatalog, useBenchLake } from '../api/synthetic-lake-host.js';

type Case = readonly [name: string, pathAndQuery: string];
/** bench/api-part2's year (its lake starts 2025-01-01) and one month of it. */
const YEAR = 'start_date=2025-01-01&end_date=2026-01-01';
const MONTH = 'start_date=2025-06-01&end_date=2025-07-01';

/**
 * Each layer's off switch (as a FreshApiOptions change), what it turns off and, for a layer that
 * serves only some endpoints, those (default: bench/api's); `part2`: its endpoints need
 * bench/api-part2's data (sessions, revenue records), so it runs only when named in --layers.
 */
const LAYERS: Record<
  string,
  { off: (emptyDir: () => string) => Partial<FreshApiOptions>; what: string; cases?: (meta: BenchMeta) => Case[]; part2?: true }
> = {
  footers: { off: () => ({ lake: { parquetMetadataCache: false } }), what: "DuckDB's Parquet footer cache (parquet_metadata_cache)" },
  'row projections': { off: () => ({ lake: { rowProjections: false } }), what: 'per-selection copies of cached days (row-projection.ts)' },
  'edge cache': { off: () => ({ lake: { edgeCacheSlices: 0 } }), what: 'kept sub-day slices (edge-cache.ts)' },
  'persisted days': { off: (emptyDir) => ({ derivedDir: emptyDir() }), what: 'derived days persisted in _derived (derived-store.ts)' },
  'in-memory copies': {
    off: () => ({ lake: { cacheMaxRows: 0 } }),
    what: 'persisted days copied into the DerivedCache (cacheMaxRows 0: read from their files each time)',
  },
  rollups: { off: () => ({ useRollups: false }), what: 'daily_costs / dimension rollups and every cache above them (raw events)' },
  'key cache': {
    off: () => ({ apiKeyCache: false }),
    what: 'API keys looked up once per 30 s (core/auth/api-key-authenticator.ts; off: ttl 0, a control-plane lookup per request)',
    cases: (meta) => [
      ['GET /ping', '/ping'],
      ['GET /usage/summary (90 days)', pathOf('/usage/summary', benchRanges(meta.days).full)],
      ['GET /cost-data/summary (current-period)', '/cost-data/summary'],
      ['GET /rates', '/rates'],
    ],
  },
  'rate book': {
    off: () => ({ rateBookCache: false }),
    what: 'merged rate cards per organization (pricing/rate-book.ts; off: read and indexed per request)',
    cases: () => [['GET /rates', '/rates']],
  },
  'session index': {
    part2: true,
    off: () => ({ lake: { sessionIndex: false } }),
    what: 'which session_spans files hold a session (api/sessions/session-index.ts; off: every file of the organization read filtered)',
    cases: () => [
      ['GET /attribution-data/sessions/{500 spans}/tree', '/attribution-data/sessions/bench-session-500/tree'],
      ['GET /attribution-data/sessions/{20 spans}/tree', '/attribution-data/sessions/s-150/tree'],
    ],
  },
  'revenue cache': {
    part2: true,
    off: () => ({ revenueCache: false }),
    what: 'revenue records margin reads, per organization (revenue/revenue-cache.ts; off: read and parsed per request)',
    cases: () => [
      ['GET /margin-data/by-end-user (12 months)', `/margin-data/by-end-user?${YEAR}`],
      ['GET /margin-data/by-end-user (30 days)', `/margin-data/by-end-user?${MONTH}`],
      ['GET /margin-data/trend (12 months, monthly)', `/margin-data/trend?${YEAR}`],
      ['GET /margin-data/summary (12 months)', `/margin-data/summary?${YEAR}`],
    ],
  },
};

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    rounds: { type: 'string', default: '2' },
    iterations: { type: 'string', default: '5' },
    layers: {
      type: 'string',
      default: Object.keys(LAYERS)
        .filter((l) => !LAYERS[l]!.part2)
        .join(','),
    },
    out: { type: 'string', default: 'read-path-layers' },
    'no-write': { type: 'boolean', default: false },
  },
});
const dataDir = path.resolve(values['data-dir'] ?? '');
// bench/api-part2's data directory names its meta differently and has one organization.
const metaFile = [BENCH_META_FILE, 'bench-part2-meta.json'].map((f) => path.join(dataDir, f)).find((f) => fs.existsSync(f))!;
const meta = { otherOrganizations: [], ...JSON.parse(fs.readFileSync(metaFile, 'utf8')) } as BenchMeta;
const ROUNDS = Number(values.rounds);
// The data directory's lake catalog, for the api processes (bench/api/synthetic-lake-host.ts).
await useBenchLake(dataDir);
const ITERATIONS = Number(values.iterations);
const layers = values.layers.split(',').filter((l) => l in LAYERS);
const { fullSubDay } = benchRanges(meta.days);
const CASES = [
  ...httpCases(meta.days),
  // bench/dimensions' sub-day breakdown: the edge cache's other reader (a dimension's sub-day slices).
  [
    'GET /dimension-data/cost-breakdown?dimension_key=team (90 days, sub-day bounds)',
    '/dimension-data/cost-breakdown',
    { ...fullSubDay, dimension_key: 'team' },
  ] as const,
].map(([name, p, q]): Case => [name, pathOf(p, q)]);
const casesOf = (layer: string): Case[] => LAYERS[layer]!.cases?.(meta) ?? CASES;
/** Every endpoint the chosen layers are measured on, once, in order. */
const ALL_CASES = [...new Map(layers.flatMap(casesOf).map((c) => [c[0], c])).values()];
const base: FreshApiOptions = { dataDir, now: benchNow(meta.days).toISOString() };
/**
 * One GET's milliseconds; a connection the server closed while idle (keep-alive) is asked again on
 * a new one, the retry timed alone.
 */
async function timed(api: FreshApi, p: string): Promise<number> {
  const once = () => api.get(p, meta.apiKey).then((r) => r.ms);
  return once().catch((e: unknown) => {
    if ((e as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw e;
    return once();
  });
}
const loadavg = () => os.loadavg().map((l) => +l.toFixed(1));

interface Side {
  variant: string;
  start_ms: number;
  cold_ms: Record<string, number>;
  warm_p50_ms: Record<string, number>;
  rss_mb: number;
  peak_rss_mb: number;
}

/**
 * A twin of the data directory for the "off" process: its own copy of the PGlite control plane
 * (one process per PGlite directory), the same lake (its catalog and LAKE_URL from this process's
 * environment; the symlink shares the folder of persisted days, written under new names, never over
 * another process's).
 */
function twinDataDir(): string {
  const twin = fs.mkdtempSync(path.join(os.tmpdir(), 'read-path-twin-'));
  fs.cpSync(path.join(dataDir, 'control'), path.join(twin, 'control'), { recursive: true });
  fs.cpSync(path.join(dataDir, 'instance-secrets.json'), path.join(twin, 'instance-secrets.json'));
  fs.symlinkSync(path.join(dataDir, 'lake'), path.join(twin, 'lake'));
  return twin;
}

/**
 * The "on" and "off" api processes side by side, their requests alternating (on, off, off, on, …)
 * so that the machine's load at any moment falls on both.
 */
async function pair(
  layer: string,
  round: number,
  off: FreshApiOptions,
): Promise<{ layer: string; round: number; load: number[]; on: Side; off: Side }> {
  const load = loadavg();
  const cases = casesOf(layer);
  const sides = [
    { variant: 'all on', api: await startFreshApi(base) },
    { variant: `${layer} off`, api: await startFreshApi(off) },
  ];
  try {
    const cold = sides.map(() => ({}) as Record<string, number>);
    const warm = sides.map(() => ({}) as Record<string, number>);
    for (const [i, [name, p]] of cases.entries()) {
      for (const s of i % 2 ? [1, 0] : [0, 1]) cold[s]![name] = +(await timed(sides[s]!.api, p)).toFixed(1);
    }
    for (const [name, p] of cases) {
      // Two warm-ups each: the edge cache keeps a slice on its second request.
      for (let i = 0; i < 2; i++) for (const s of sides) await timed(s.api, p);
      const times: number[][] = [[], []];
      for (let i = 0; i < ITERATIONS; i++) for (const s of i % 2 ? [1, 0] : [0, 1]) times[s]!.push(await timed(sides[s]!.api, p));
      for (const s of [0, 1]) warm[s]![name] = +median(times[s]!).toFixed(1);
    }
    const [on, offSide] = sides.map((s, i): Side => {
      const { rss, peak } = s.api.rssMb();
      return {
        variant: s.variant,
        start_ms: Math.round(s.api.startupMs),
        cold_ms: cold[i]!,
        warm_p50_ms: warm[i]!,
        rss_mb: rss,
        peak_rss_mb: peak,
      };
    });
    const sum = (m: Record<string, number>) => Math.round(Object.values(m).reduce((a, b) => a + b, 0));
    log(
      `round ${round} ${layer.padEnd(18)} load ${load[0]}  cold Σ on ${sum(on!.cold_ms)} / off ${sum(offSide!.cold_ms)} ms  warm Σ on ${sum(on!.warm_p50_ms)} / off ${sum(offSide!.warm_p50_ms)} ms  rss on ${on!.rss_mb} / off ${offSide!.rss_mb} MB`,
    );
    return { layer, round, load, on: on!, off: offSide! };
  } finally {
    for (const s of sides) await s.api.stop();
  }
}

const loadStart = loadavg();
log(`${meta.events} events over ${meta.days} days in ${dataDir}; layers ${layers.join(', ')}; load ${loadStart.join(' ')}`);
/** A pair again from the start when one of its api processes died (a shared machine: out of memory, a stray kill). */
async function retried<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (e) {
      if (i >= attempts) throw e;
      log(`attempt ${i} failed (${(e as Error).message}); again`);
    }
  }
}

// Persist pass: every endpoint once, so the "on" processes find their derived days persisted.
await retried(async () => {
  const api = await startFreshApi(base);
  try {
    for (const [, p] of ALL_CASES) await timed(api, p);
  } finally {
    await api.stop();
  }
});
const scratch: string[] = [];
const emptyDir = () => {
  scratch.push(fs.mkdtempSync(path.join(os.tmpdir(), 'read-path-derived-')));
  return scratch.at(-1)!;
};
const pairs: Array<Awaited<ReturnType<typeof pair>>> = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const layer of layers) {
      const twin = twinDataDir();
      scratch.push(twin);
      const offOptions = LAYERS[layer]!.off(emptyDir);
      pairs.push(await retried(() => pair(layer, round, { ...base, ...offOptions, dataDir: twin })));
    }
    // After every round, so that a run cut short still leaves its figures.
    report(round);
  }
} finally {
  for (const d of scratch) fs.rmSync(d, { recursive: true, force: true });
  await stopLakeCatalog();
}

/** What bench/api-part2 adds beside its events: sessions and revenue records. */
function part2Extras(): string {
  const extra = meta as { sessionEvents?: number; revenueRecords?: number };
  return extra.sessionEvents === undefined
    ? ''
    : ` (+ ${extra.sessionEvents} session events: one session of 500 spans, 300 of 20; ${extra.revenueRecords} revenue records)`;
}

/** Writes (or prints) the table of the rounds run so far. */
function report(rounds: number): void {
  const loadEnd = loadavg();

  const pct = (on: number, off: number) => +((1 - on / off) * 100).toFixed(1);
  const summary = layers.map((layer) => {
    const mine = pairs.filter((p) => p.layer === layer);
    const side = (kind: 'cold_ms' | 'warm_p50_ms') =>
      casesOf(layer).map(([name]) => {
        const on = median(mine.map((p) => p.on[kind][name]!));
        const off = median(mine.map((p) => p.off[kind][name]!));
        return { endpoint: name, on_ms: on, off_ms: off, saving_pct: median(mine.map((p) => pct(p.on[kind][name]!, p.off[kind][name]!))) };
      });
    const warm = side('warm_p50_ms');
    const cold = side('cold_ms');
    const rssOn = median(mine.map((p) => p.on.rss_mb));
    const rssOff = median(mine.map((p) => p.off.rss_mb));
    const earns = [...warm, ...cold].some((e) => e.saving_pct >= 10);
    return { layer, what: LAYERS[layer]!.what, warm, cold, rss_on_mb: rssOn, rss_off_mb: rssOff, memory_cost_mb: rssOn - rssOff, earns };
  });

  const saves = (es: Array<{ endpoint: string; saving_pct: number }>) =>
    es
      .filter((e) => e.saving_pct >= 10)
      .map((e) => `${e.endpoint.replace(/^GET /, '')} ${e.saving_pct}%`)
      .join('; ') || 'none';
  /** One section: every endpoint's on → off figure (and saving) for each layer. */
  const perEndpoint = (title: string, kind: 'warm' | 'cold') => [
    `## Per endpoint: ${title} ms on → off (saving)`,
    '',
    `| endpoint | ${summary.map((s) => s.layer).join(' | ')} |`,
    `|---|${summary.map(() => '--:|').join('')}`,
    ...ALL_CASES.map(([name]) => {
      const cells = summary
        .map((s) => s[kind].find((e) => e.endpoint === name))
        .map((e) => (e ? `${e.on_ms} → ${e.off_ms} (${e.saving_pct}%)` : ''));
      return `| ${name} | ${cells.join(' | ')} |`;
    }),
    '',
  ];
  const md = [
    '# bench/read-path-layers: what each read-path cache layer saves (issue 23)',
    '',
    `\`npx tsx bench/read-path-layers/main.ts --data-dir ${values['data-dir']} --rounds ${ROUNDS} --iterations ${ITERATIONS} --layers '${layers.join(',')}' --out ${values.out}\`, ${new Date().toISOString()}.`,
    `${path.basename(metaFile)}'s lake: ${meta.events} events of the large organization (+ ${meta.otherOrganizations.length} × 100k) over ${meta.days} days${part2Extras()}, ${ALL_CASES.length} endpoints over HTTP.`,
    `${os.cpus().length} cpus, Node ${process.version}; load average ${loadStart.join(' ')} at the start, ${loadEnd.join(' ')} at the end (a machine shared by seven agents: small differences are noise).`,
    `Per layer and round two fresh api processes side by side (prepared before listening, no background warm-up), all on and the layer off, requests alternating; cold = each endpoint's first request in turn (only the first is a fresh process's very first); warm = p50 of ${ITERATIONS} after 2 warm-ups; RSS after the warm pass.`,
    `${rounds} of ${ROUNDS} round(s); saving = 1 − on/off, the median over rounds; a layer earns its place at ≥ 10% on some endpoint.`,
    '',
    '| layer (off switch) | endpoints it saves ≥ 10% warm | endpoints it saves ≥ 10% cold | RSS on / off MB | verdict |',
    '|---|---|---|---|---|',
    ...summary.map(
      (s) =>
        `| ${s.layer}: ${s.what} | ${saves(s.warm)} | ${saves(s.cold)} | ${s.rss_on_mb} / ${s.rss_off_mb} | ${s.earns ? 'earns its place' : 'saves < 10% everywhere'} |`,
    ),
    '',
    ...perEndpoint('warm p50', 'warm'),
    ...perEndpoint('cold (first request)', 'cold'),
    '',
  ];
  console.log(md.join('\n'));
  if (!values['no-write']) {
    fs.writeFileSync(fromRoot(`bench/results/${values.out}.md`), md.join('\n'));
    const json = { events: meta.events, days: meta.days, rounds, iterations: ITERATIONS, load_start: loadStart, load_end: loadEnd };
    fs.writeFileSync(fromRoot(`bench/results/${values.out}.json`), `${JSON.stringify({ ...json, summary, runs: pairs }, null, 1)}\n`);
  }
}
