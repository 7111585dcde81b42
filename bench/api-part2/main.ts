// Read API part 2 benchmark: p50/p95 latency over HTTP of the attribution, session and margin
// endpoints on bench/api's synthetic lake (bench/api/synthetic-lake.ts: skewed customers, fixed use
// cases per customer, statuses, metadata), written here over 12 months so 12-month ranges hold 12
// months of data; plus what part 2 needs beside it: sessions (one of 500 spans, 300 of 20 spans
// spread over the year) and a year of monthly revenue records per end user (with refunds and
// unattributed records) in the PGlite control plane. The api runs as in production (derived-row
// cache on) in a process of its own (bench/api/fresh-api.ts): after a pass that persists the
// derived days, each endpoint's first request is timed in a fresh api process (`first`), then one
// process answers every endpoint: 2 warm-up requests and N measured.
// Writes bench/results/api-part2.json and .md.
//   npx tsx bench/api-part2/main.ts [--events 5000000] [--days 365] [--iterations 15] [--cold-rounds 1]
//                                   [--data-dir DIR (reused when it holds a lake from an earlier run)]
//                                   [--no-write]
import fs from 'node:fs';
import os from 'node:os';
import { issueApiKey } from '../../core/control/api-keys.js';
import { upsertEndUsers } from '../../core/control/end-users.js';
import { createOrganization } from '../../core/control/organizations.js';
import { importRevenueRecords, type RevenueRecordInput } from '../../revenue/revenue.store.js';
import { endUserIdFor } from '../../core/ids.js';
import type { LakeEventRow } from '../../core/lake/events-schema.js';
import { fromRoot } from '../../core/paths.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';
import { lakeEvent } from '../../test/support/lake-event-builder.js';
import { firstRequests, startFreshApi, type FreshApi } from '../api/fresh-api.js';
import { median, percentile } from '../api/stats.js';
import { log, readBenchOptions, startSyntheticLakeHost, stopLakeCatalog } from '../api/synthetic-lake-host.js';
import { PARTITIONS, writeSyntheticLake } from '../api/synthetic-lake.js';

const options = readBenchOptions(365);
const { events: EVENTS, days: DAYS, iterations: ITERATIONS } = options;
const FIRST_DAY = new Date('2025-01-01T00:00:00.000Z');
const END_USERS = 1000;
const BIG_SESSION = 'bench-session-500';
const SMALL_SESSIONS = 300;
/** Sessions go to a partition of their own, beside the synthetic lake's. */
const SESSION_PARTITION = PARTITIONS;

interface Meta {
  organizationId: string;
  apiKey: string;
  events: number;
  days: number;
  sessionEvents: number;
  revenueRecords: number;
  writtenMs: number;
}

/** The 500-span session: a tree (parent of k is (k−1)/4) in one morning, two events per span. */
function bigSession(org: string, t0: number): LakeEventRow[] {
  const rows: LakeEventRow[] = [];
  for (let k = 0; k < 500; k++) {
    for (let e = 0; e < 2; e++) {
      const start = t0 + k * 1000 + e * 200;
      rows.push(
        lakeEvent({
          kafka_partition: SESSION_PARTITION,
          kafka_offset: rows.length,
          organization_id: org,
          idempotency_key: `big-${k}-${e}`,
          event_timestamp: new Date(start + 800),
          received_at: new Date(start + 900),
          priced_at: new Date(start + 900),
          user_id: 'user-1',
          end_user_id: endUserIdFor(org, 'user-1'),
          total_cost: '0.000123',
          session_id: BIG_SESSION,
          span_id: `big-${k}`,
          parent_span_id: k === 0 ? null : `big-${Math.floor((k - 1) / 4)}`,
          span_kind: k % 2 ? 'llm' : 'tool',
          started_at: new Date(start),
          agent_id: `agent-${k % 12}`,
        }),
      );
    }
  }
  return rows;
}

/** Sessions of 20 spans (a chain of 4 under a root, fanned out), one every ~day of the year. */
function smallSessions(org: string, firstOffset: number): LakeEventRow[] {
  const rows: LakeEventRow[] = [];
  for (let s = 0; s < SMALL_SESSIONS; s++) {
    const t0 = FIRST_DAY.getTime() + Math.floor((s * DAYS) / SMALL_SESSIONS) * 86_400_000 + 12 * 3_600_000;
    for (let k = 0; k < 20; k++) {
      const start = t0 + k * 500;
      rows.push(
        lakeEvent({
          kafka_partition: SESSION_PARTITION,
          kafka_offset: firstOffset + rows.length,
          organization_id: org,
          idempotency_key: `small-${s}-${k}`,
          event_timestamp: new Date(start + 400),
          received_at: new Date(start + 450),
          priced_at: new Date(start + 450),
          user_id: `user-${s % END_USERS}`,
          end_user_id: endUserIdFor(org, `user-${s % END_USERS}`),
          total_cost: '0.0042',
          session_id: `s-${s}`,
          span_id: `sp-${k}`,
          parent_span_id: k === 0 ? null : `sp-${Math.floor((k - 1) / 4)}`,
          started_at: new Date(start),
        }),
      );
    }
  }
  return rows;
}

/** Monthly invoices per end user over 13 months, a refund in 1 of 20, one unattributed record a month. */
function revenueRecords(): RevenueRecordInput[] {
  const out: RevenueRecordInput[] = [];
  for (let m = 0; m < 13; m++) {
    const periodStart = new Date(Date.UTC(2024, 11 + m, 1));
    const periodEnd = new Date(Date.UTC(2024, 12 + m, 1));
    for (let u = 0; u < END_USERS; u++) {
      out.push({
        id: `inv-${m}-${u}`,
        userId: `user-${u}`,
        customerName: `Customer ${u}`,
        amount: `${20 + (u % 80)}.${String(u % 100).padStart(2, '0')}`,
        periodStart,
        periodEnd,
      });
      if ((u + m) % 20 === 0) out.push({ id: `ref-${m}-${u}`, userId: `user-${u}`, amount: '-5.5', periodStart, periodEnd });
    }
    out.push({ id: `misc-${m}`, userId: null, amount: '199', periodStart, periodEnd });
  }
  return out;
}

const bench = await startSyntheticLakeHost({
  label: 'bench-api-part2',
  dataDir: options.dataDir,
  api: { revenue: { checkIntervalMs: 0 } },
});
const { host, config } = bench;
const db = host.ctx.db;

const meta: Meta = await bench.dataOnce('bench-part2-meta.json', async () => {
  const org = await createOrganization(db, { name: 'bench-part2' });
  const key = await issueApiKey(db, host.ctx.masterKey, org.id, { scopes: ['costs:read', 'revenue:read'] });
  await upsertEndUsers(
    db,
    org.id,
    Array.from({ length: END_USERS }, (_, i) => `user-${i}`),
  );
  log(`writing ${EVENTS} events over ${DAYS} days into ${config.lake.dataPath}`);
  const t = performance.now();
  await writeSyntheticLake({
    lake: config.lake,
    orgs: [{ organizationId: org.id, events: EVENTS, endUsers: END_USERS }],
    days: DAYS,
    firstDay: FIRST_DAY,
    onProgress: log,
  });
  const sessions = [...bigSession(org.id, Date.UTC(2025, 6, 1, 9)), ...smallSessions(org.id, 1000)];
  // One commit of the session events; then DuckLake's own upkeep (merge of small adjacent files), as in steady state.
  const writer = await DuckLakeWriter.open(config.lake, { maintenanceEveryMs: 0 });
  await writer.flush(SESSION_PARTITION, sessions, sessions.length);
  await writer.compactPartition();
  await writer.close();
  const records = revenueRecords();
  await importRevenueRecords(db, org.id, records);
  const writtenMs = Math.round(performance.now() - t);
  log(
    `lake and revenue written in ${(writtenMs / 1000).toFixed(0)} s (${sessions.length} session events, ${records.length} revenue records)`,
  );
  return {
    organizationId: org.id,
    apiKey: key.apiKey,
    events: EVENTS,
    days: DAYS,
    sessionEvents: sessions.length,
    revenueRecords: records.length,
    writtenMs,
  };
});

interface Timing {
  name: string;
  target_p50_ms: number | null;
  first_ms: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
  bytes: number;
}

let api: FreshApi;
const get = async (pathAndQuery: string, headers: Record<string, string> = {}): Promise<number> =>
  (await api.get(pathAndQuery, meta.apiKey, { headers })).bytes;

async function measure(
  name: string,
  pathAndQuery: string,
  target: number | null,
  first: number,
  headers: Record<string, string> = {},
): Promise<Timing> {
  let bytes = await get(pathAndQuery, headers);
  await get(pathAndQuery, headers);
  let t: number;
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    t = performance.now();
    bytes = await get(pathAndQuery, headers);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const r: Timing = {
    name,
    target_p50_ms: target,
    first_ms: +first.toFixed(1),
    p50_ms: +percentile(times, 0.5).toFixed(1),
    p95_ms: +percentile(times, 0.95).toFixed(1),
    max_ms: +times.at(-1)!.toFixed(1),
    bytes,
  };
  const verdict = target === null ? '' : r.p50_ms <= target ? `  ≤ ${target} ok` : `  > ${target} MISSED`;
  log(
    `${name.padEnd(64)} first ${String(r.first_ms).padStart(7)}  p50 ${String(r.p50_ms).padStart(7)}  p95 ${String(r.p95_ms).padStart(7)} ms${verdict}`,
  );
  return r;
}

const year = `start_date=2025-01-01&end_date=2026-01-01`;
const month = `start_date=2025-06-01&end_date=2025-07-01`;
const CASES: Array<[string, string, number | null, Record<string, string>?]> = [
  ['GET /attribution-data/by-agent (12 months)', `/attribution-data/by-agent?${year}`, 200],
  ['GET /attribution-data/by-agent (30 days)', `/attribution-data/by-agent?${month}`, 200],
  ['GET /attribution-data/agents (12 months)', `/attribution-data/agents?${year}`, 200],
  ['GET /attribution-data/workflows (12 months)', `/attribution-data/workflows?${year}`, 200],
  ['GET /attribution-data/by-dimension?dimension=feature (12 months)', `/attribution-data/by-dimension?dimension=feature&${year}`, 200],
  ['GET /attribution-data/by-dimension?dimension=team (12 months)', `/attribution-data/by-dimension?dimension=team&${year}`, 200],
  [
    'GET /attribution-data/by-dimension team, filter agent_id (12 months)',
    `/attribution-data/by-dimension?dimension=team&filter_key=agent_id&filter_value=agent-3&${year}`,
    200,
  ],
  [
    'GET /attribution-data/by-dimension workflow_id, CSV (12 months)',
    `/attribution-data/by-dimension?dimension=workflow_id&format=csv&${year}`,
    200,
  ],
  ['GET /attribution-data/dimension-values?dimension=team (12 months)', `/attribution-data/dimension-values?dimension=team&${year}`, 200],
  ['GET /attribution-data/sessions (12 months, first 100)', `/attribution-data/sessions?${year}`, null],
  ['GET /attribution-data/sessions/{500 spans}/tree', `/attribution-data/sessions/${BIG_SESSION}/tree`, 50],
  ['GET /attribution-data/sessions/{20 spans}/tree', `/attribution-data/sessions/s-150/tree`, 50],
  ['GET /margin-data/by-end-user (12 months)', `/margin-data/by-end-user?${year}`, 200],
  ['GET /margin-data/by-end-user (30 days)', `/margin-data/by-end-user?${month}`, 200],
  ['GET /margin-data/trend (12 months, monthly)', `/margin-data/trend?${year}`, 200],
  ['GET /margin-data/trend (30 days, daily)', `/margin-data/trend?${month}`, 200],
  [
    'GET /margin-data/trend?end_user_id (12 months)',
    `/margin-data/trend?${year}&end_user_id=${endUserIdFor(meta.organizationId, 'user-7')}`,
    200,
  ],
  ['GET /margin-data/summary (12 months)', `/margin-data/summary?${year}`, 200],
];

// The api runs in processes of its own from here on; they open the control plane this one held.
await bench.stop({ keepData: true });
const apiOptions = { dataDir: bench.dataDir };
log(
  `${ITERATIONS} iterations after 2 warm-ups; ${os.cpus().length} cpus; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
// Persist pass: every endpoint once, so the derived days are persisted (as after any deploy).
api = await startFreshApi(apiOptions);
for (const [, q, , headers] of CASES) await get(q, headers);
await api.stop();
// First request of a fresh api process, per endpoint (the median of --cold-rounds processes).
const firsts: number[] = [];
for (const [name, q, , headers] of CASES) {
  const rounds: number[] = [];
  for (let i = 0; i < options.coldRounds; i++) rounds.push((await firstRequests(apiOptions, q, meta.apiKey, { headers })).firstMs);
  firsts.push(median(rounds));
  log(
    `${name.padEnd(64)} first request of a fresh api process ${firsts.at(-1)!.toFixed(1)} ms (${rounds.map((r) => r.toFixed(0)).join(' ')})`,
  );
}
const results: Timing[] = [];
api = await startFreshApi(apiOptions);
try {
  for (const [i, [name, q, target, headers]] of CASES.entries()) results.push(await measure(name, q, target, firsts[i]!, headers));
} finally {
  await api.stop();
  await stopLakeCatalog();
  if (options.dataDir === undefined) fs.rmSync(bench.dataDir, { recursive: true, force: true });
}

if (options.write) {
  const env = { cpus: os.cpus().length, node: process.version, loadavg_at_end: os.loadavg().map((l) => +l.toFixed(1)) };
  fs.mkdirSync(fromRoot('bench/results'), { recursive: true });
  fs.writeFileSync(
    fromRoot('bench/results/api-part2.json'),
    `${JSON.stringify({ meta: { ...meta, apiKey: undefined }, env, iterations: ITERATIONS, cold_rounds: options.coldRounds, http: results }, null, 2)}\n`,
  );
  const md = [
    '# bench/api-part2 — results',
    '',
    `\`npx tsx bench/api-part2/main.ts --events ${meta.events} --days ${meta.days} --iterations ${ITERATIONS} --cold-rounds ${options.coldRounds}\` — ${env.cpus} vCPU, Node ${env.node},`,
    `load average at the end ${env.loadavg_at_end.join(' ')} (the machine is shared with other builds and tests).`,
    `Lake: bench/api's synthetic organization, ${meta.events} events over ${meta.days} days from 2025-01-01, plus ${meta.sessionEvents} session`,
    `events (one session of 500 spans, ${SMALL_SESSIONS} of 20); ${meta.revenueRecords} revenue records. Latency per HTTP request, client to`,
    'last byte: `first` is the first request of a fresh api process (the median of --cold-rounds processes; derived days persisted by an earlier one, api/lake/derived-store.ts), p50/p95 over the measured requests of one process after 2 warm-ups.',
    '',
    '| endpoint | first ms | p50 ms | p95 ms | max ms | bytes | target p50 |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${r.first_ms} | ${r.p50_ms} | ${r.p95_ms} | ${r.max_ms} | ${r.bytes} | ${r.target_p50_ms === null ? '' : `≤ ${r.target_p50_ms} ${r.p50_ms <= r.target_p50_ms ? 'ok' : '**missed**'}`} |`,
    ),
    '',
  ];
  fs.writeFileSync(fromRoot('bench/results/api-part2.md'), md.join('\n'));
  log('wrote bench/results/api-part2.json and api-part2.md');
}
