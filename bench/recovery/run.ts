// Recovery benchmark: how soon a crashed all-in-one service is back. Starts `npm start`'s program
// (dist/scripts/start.js when built, else the source through tsx) as a child on free ports with a
// temp DATA_DIR, makes an organization, then per round: sends 1000-event batches for a moment,
// SIGKILLs the service mid-load (mode `node`: the Node process only, its watchdog stops the JVM;
// mode `all`: the Kafka JVM too, as a power cut would, so the broker recovers its logs), starts it
// again on the same data and times, from that start: HTTP listening, the first 202 for a new event
// (accepting), and status_counts.pending reaching 0 (the lake holds every event the ledger has:
// caught up). Targets (issue 17): accepting ≤ 10 s, caught up ≤ 15 s. Writes
// bench/results/recovery.json and recovery.md.
//   npx tsx bench/recovery/run.ts [--rounds 3] [--modes node,all] [--load-seconds 2] [--source] [--no-write] [--keep]
//                                 [--root <another built checkout>]
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../../core/paths.js';
import { findFreePort } from '../../scripts/kafka/broker.js';
import { isBuilt, spawnService, waitUntilServing, type ServiceProcess } from '../../scripts/service-process.js';
import { signedIngestHeaders } from '../signed-ingest-headers.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    modes: { type: 'string', default: 'node,all' },
    'load-seconds': { type: 'string', default: '2' },
    source: { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    /** Another checkout's build to measure instead (e.g. the code before a change); results not written. */
    root: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds);
const MODES = values.modes!.split(',') as Array<'node' | 'all'>;
const LOAD_MS = Number(values['load-seconds']) * 1000;
const ROOT = values.root ? path.resolve(values.root) : undefined;
const BUILT = ROOT ? true : !values.source && isBuilt('scripts/start');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-recovery-'));
const dataDir = path.join(tmp, 'data');
const [port, kafkaPort, registryPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
const url = `http://127.0.0.1:${port}`;
const adminToken = `mk_admin_bench_${crypto.randomBytes(8).toString('hex')}`;
const env = {
  PORT: String(port),
  KAFKA_PORT: String(kafkaPort),
  SCHEMA_REGISTRY_PORT: String(registryPort),
  DATA_DIR: dataDir,
  MARGINAL_ADMIN_TOKEN: adminToken,
  MARGINAL_MASTER_KEY: crypto.randomBytes(32).toString('hex'),
  RATE_LIMIT_INGEST_PER_MINUTE: '1000000000',
  RATE_LIMIT_READ_PER_15_MINUTES: '1000000000',
  LOG_LEVEL: 'info',
};
let starts = 0;
const start = (): ServiceProcess =>
  spawnService({
    name: 'all-in-one',
    entry: 'scripts/start',
    env,
    logFile: path.join(tmp, `service-${++starts}.log`),
    built: BUILT,
    root: ROOT,
  });

async function json(method: string, p: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

let service = start();
await waitUntilServing(service, url, 300_000);
const org = (await json('POST', '/v1/admin/organizations', adminToken, { name: 'recovery bench' })).organization_id as string;
const key = await json('POST', `/v1/admin/organizations/${org}/api-keys`, adminToken, { scopes: ['usage:write', 'costs:read'] });
await json('POST', `/v1/admin/organizations/${org}/credits`, adminToken, { amount: 100_000_000 });

let sequence = 0;
const event = () => ({
  idempotency_key: `r-${++sequence}`,
  model: 'gpt-4o-mini',
  input_tokens: 1000,
  output_tokens: 100,
  user_id: `u-${sequence % 50}`,
});

/** POSTs `events`; the number answered 202 (0 on any failure, a crash included). */
async function post(pathName: string, body: unknown, timeoutMs: number): Promise<{ status: number; accepted: number }> {
  const raw = JSON.stringify(body);
  try {
    const res = await fetch(`${url}${pathName}`, {
      method: 'POST',
      headers: signedIngestHeaders(key.api_key, key.signing_secret, raw) as Record<string, string>,
      body: raw,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const parsed = (await res.json()) as { results?: Array<{ event_id?: string }> };
    const accepted = res.status === 202 ? 1 : res.status === 200 ? (parsed.results ?? []).filter((r) => r.event_id).length : 0;
    return { status: res.status, accepted };
  } catch {
    return { status: 0, accepted: 0 };
  }
}

/** Two clients sending 1000-event batches until `until`; resolves with the events answered 202. */
async function load(until: () => boolean): Promise<number> {
  let accepted = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (!until()) accepted += (await post('/v1/usage-events/batch', { events: Array.from({ length: 1000 }, event) }, 30_000)).accepted;
    }),
  );
  return accepted;
}

function brokerPid(): number | null {
  try {
    return (
      Number(
        fs
          .readFileSync(path.join(dataDir, 'kafka', 'broker.pid'), 'utf8')
          .trim()
          .split(/\s+/)[0],
      ) || null
    );
  } catch {
    return null;
  }
}

async function pending(): Promise<number | null> {
  try {
    const res = await fetch(`${url}/v1/cost-data/summary`, {
      headers: { authorization: `Bearer ${key.api_key}` },
      signal: AbortSignal.timeout(2_000),
    });
    if (res.status !== 200) return null;
    return ((await res.json()) as { status_counts: { pending: number } }).status_counts.pending;
  } catch {
    return null;
  }
}

/** Seconds from `since` (epoch ms) to the first log line with this message, or null. */
function loggedAt(logFile: string, msg: string, since: number): number | null {
  const line = fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .find((l) => l.includes(`"msg":"${msg}"`));
  const m = line ? /"time":(\d+)/.exec(line) : null;
  return m ? Number(((Number(m[1]) - since) / 1000).toFixed(2)) : null;
}

/** A number the service logged under `field` (its JSON log lines), or null. */
function logged(logFile: string, field: string): number | null {
  const m = new RegExp(`"${field}":([0-9.]+)`).exec(fs.readFileSync(logFile, 'utf8'));
  return m ? Number(m[1]) : null;
}

interface Round {
  mode: 'node' | 'all';
  accepted_before_kill: number;
  /** From the service's own log: its process start to the broker taking writes, and to serving. */
  broker_ready_s: number | null;
  service_ready_s: number | null;
  /** From the restart to the processor's "partitions assigned" log line. */
  processor_assigned_s: number | null;
  listening_s: number;
  accepting_s: number;
  caught_up_s: number;
}
const rounds: Round[] = [];
const seconds = (t0: number) => Number(((performance.now() - t0) / 1000).toFixed(2));

try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of MODES) {
      // Load, then a SIGKILL while batches are in flight.
      const loadEnds = performance.now() + LOAD_MS;
      let killed = false;
      const loading = load(() => killed);
      while (performance.now() < loadEnds) await new Promise((res) => setTimeout(res, 20));
      const jvm = brokerPid();
      service.kill('SIGKILL');
      if (mode === 'all' && jvm) process.kill(jvm, 'SIGKILL');
      killed = true;
      await service.exited;
      const acceptedBeforeKill = await loading;

      const t0 = performance.now();
      const t0Wall = Date.now();
      service = start();
      await waitUntilServing(service, url, 120_000);
      const listening = seconds(t0);
      while ((await post('/v1/usage-events', event(), 5_000)).status !== 202) {
        if (performance.now() - t0 > 120_000) throw new Error('no 202 within 120 s of the restart');
        await new Promise((res) => setTimeout(res, 50));
      }
      const accepting = seconds(t0);
      while ((await pending()) !== 0) {
        if (performance.now() - t0 > 180_000) throw new Error('the lake did not catch up within 180 s of the restart');
        await new Promise((res) => setTimeout(res, 100));
      }
      const caughtUp = seconds(t0);
      const round: Round = {
        mode,
        accepted_before_kill: acceptedBeforeKill,
        broker_ready_s: logged(service.logFile, 'brokerReadyInSeconds'),
        service_ready_s: logged(service.logFile, 'readyInSeconds'),
        processor_assigned_s: loggedAt(service.logFile, 'partitions assigned', t0Wall),
        listening_s: listening,
        accepting_s: accepting,
        caught_up_s: caughtUp,
      };
      rounds.push(round);
      console.log(JSON.stringify(round));
    }
  }
} finally {
  await service.stop();
}

const summary = MODES.map((mode) => {
  const of = rounds.filter((r) => r.mode === mode);
  const max = (f: (r: Round) => number) => Math.max(...of.map(f));
  const median = (f: (r: Round) => number) => of.map(f).sort((a, b) => a - b)[Math.floor(of.length / 2)]!;
  return {
    mode,
    rounds: of.length,
    accepting_s: { median: median((r) => r.accepting_s), max: max((r) => r.accepting_s) },
    caught_up_s: { median: median((r) => r.caught_up_s), max: max((r) => r.caught_up_s) },
  };
});
console.log(JSON.stringify({ summary }, null, 2));

if (!values['no-write'] && !ROOT) {
  const result = {
    bench: 'recovery',
    date: new Date().toISOString(),
    program: BUILT ? 'node --max-semi-space-size=32 dist/scripts/start.js' : 'node --import tsx scripts/start.ts',
    machine: { cpus: os.cpus().length, load_avg_1m: Number(os.loadavg()[0]!.toFixed(2)), node: process.version },
    load_before_kill: `2 clients sending 1000-event batches for ${LOAD_MS / 1000} s`,
    targets: { accepting_s: 10, caught_up_s: 15 },
    summary,
    rounds,
  };
  fs.mkdirSync(fromRoot('bench', 'results'), { recursive: true });
  fs.writeFileSync(fromRoot('bench', 'results', 'recovery.json'), `${JSON.stringify(result, null, 2)}\n`);
  const lines = [
    '# Recovery after a SIGKILL (bench/recovery)',
    '',
    `${result.date}, ${result.program}, ${result.machine.cpus} cores, load ${result.machine.load_avg_1m}. ${result.load_before_kill}, then SIGKILL;`,
    'times from the restart. `node`: only the Node process is killed (its watchdog stops the JVM);',
    '`all`: the Kafka JVM is SIGKILLed too (the broker recovers its logs). Targets: accepting ≤ 10 s, caught up ≤ 15 s.',
    '',
    "Broker ready and service ready are from the service's own log (its process start, after Node loaded).",
    '',
    '| mode | events accepted before the kill | broker ready (s) | service ready (s) | listening (s) | accepting (s) | processor assigned (s) | caught up (s) |',
    '|---|---|---|---|---|---|---|---|',
    ...rounds.map(
      (r) =>
        `| ${r.mode} | ${r.accepted_before_kill} | ${r.broker_ready_s} | ${r.service_ready_s} | ${r.listening_s} | ${r.accepting_s} | ${r.processor_assigned_s} | ${r.caught_up_s} |`,
    ),
    '',
    ...summary.map(
      (s) =>
        `- \`${s.mode}\`: accepting median ${s.accepting_s.median} s (max ${s.accepting_s.max}), caught up median ${s.caught_up_s.median} s (max ${s.caught_up_s.max}).`,
    ),
    '',
  ];
  fs.writeFileSync(fromRoot('bench', 'results', 'recovery.md'), lines.join('\n'));
}
if (values.keep) console.log(`kept ${tmp}`);
else fs.rmSync(tmp, { recursive: true, force: true });
