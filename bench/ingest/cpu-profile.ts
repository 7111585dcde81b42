// Reads the V8 CPU profiles that `node --cpu-prof` wrote for the bench process and its worker
// threads, keeps the samples inside the measured window (profile timestamps and
// process.hrtime share the machine's monotonic clock) and charges each sample to one layer of the
// ingest path, so the report can say how many CPU microseconds each layer costs per event.
// A sample belongs to the innermost frame of a known layer; frames of Node's own HTTP, socket and
// stream code count as "node:http" only when no library that owns the I/O (kafkajs, the PGlite
// thread's messaging) is further up the stack. Worker threads are charged whole, by thread.
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface LayerRow {
  layer: string;
  cpuMs: number;
  usPerEvent: number;
}

export interface ProfileSummary {
  windowSeconds: number;
  events: number;
  /** Rows of the main thread (HTTP path), then one row per worker thread, busiest first. */
  rows: LayerRow[];
  mainThreadBusyShare: number;
}

/** Ordered: the first rule whose pattern matches a frame's URL names its layer. */
const LAYERS: Array<[layer: string, url: RegExp]> = [
  [
    'express (router, middlewares, body reading)',
    /node_modules\/(express|body-parser|raw-body|router|on-finished|type-is|content-type|iconv-lite|qs|finalhandler|parseurl|depd|media-typer|accepts|negotiator|mime-types|statuses|http-errors|bytes|unpipe|ee-first|setprototypeof|encodeurl|escape-html|merge-descriptors|utils-merge|path-to-regexp|cookie|vary|proxy-addr|forwarded|fresh|range-parser|etag|send|safe-buffer|compression)\//,
  ],
  ['tsoa (generated route, model check)', /node_modules\/@tsoa\/|\/generated\/routes/],
  ['event validation', /\/ingest\/validate-event|\/core\/text|\/ingest\/ingest-request/],
  ['HMAC signature', /\/ingest\/signature/],
  ['rate limit', /\/core\/http\/rate-limit/],
  ['authentication (key cache)', /\/core\/http\/authentication|\/core\/auth\//],
  ['Avro encoding', /node_modules\/(avsc|@kafkajs\/confluent-schema-registry)\/|\/core\/registry\//],
  ['Kafka producer (kafkajs)', /node_modules\/kafkajs\/|\/ingest\/event-publisher/],
  [
    'ledger (group commit, PGlite thread messaging)',
    /\/ingest\/group-commit|\/ingest\/ingest-ledger|\/core\/control\/|\/alerts\/credits\//,
  ],
  ['metrics (prom-client)', /node_modules\/(prom-client|tdigest|bintrees)\/|\/core\/metrics|\/ingest\/ingest-metrics/],
  ['logging (pino)', /node_modules\/(pino|sonic-boom|thread-stream)/],
  [
    'ingest service (record, flags, ids, settings)',
    /\/ingest\/(ingest|flags|org-settings|fast-path)\.ts|\/pricing\/|\/core\/ids|node_modules\/uuid\//,
  ],
  ['HTTP shell (request ids, guards, error envelope)', /\/core\/http\/|\/core\/app-context|\/core\/errors/],
  [
    'node:http, sockets, streams',
    /^node:(_http|http|net|stream|internal\/(streams|http|net|stream_base|js_stream)|buffer|events|internal\/(event_target|url|errors|validators))/,
  ],
  ['timers, promises, async hooks', /^node:(internal\/(timers|process\/task_queues|async_hooks|process\/promises)|timers)/],
  ['crypto (other than HMAC)', /^node:(crypto|internal\/crypto)/],
];
/** Layers that own the I/O they start: a node:* frame below them is theirs. */
const OWNERS = new Set(['Kafka producer (kafkajs)', 'ledger (group commit, PGlite thread messaging)', 'logging (pino)']);
const WEAK = new Set(['node:http, sockets, streams', 'timers, promises, async hooks']);

function layerOfUrl(url: string): string | null {
  for (const [layer, re] of LAYERS) if (re.test(url)) return layer;
  return null;
}

/** The layer of one sample, from its stack (leaf first). */
function layerOfStack(stack: CallFrame[]): string {
  const leaf = stack[0]!;
  if (leaf.functionName === '(garbage collector)') return 'garbage collection';
  if (leaf.functionName === '(program)') return 'V8 and native, no JS frame';
  // JSON.parse of a body is its own line: the bare server pays it too.
  if (leaf.url === '' && leaf.functionName === 'parse') return 'JSON.parse';
  let weak: string | null = null;
  for (const frame of stack) {
    const layer = layerOfUrl(frame.url);
    if (!layer) continue;
    if (WEAK.has(layer)) {
      weak ??= layer;
      continue;
    }
    return weak && !OWNERS.has(layer) ? weak : layer;
  }
  return weak ?? 'other JavaScript';
}

function readProfile(file: string): CpuProfile {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
}

/** Per node id: its stack, leaf first. */
function stacks(profile: CpuProfile): Map<number, CallFrame[]> {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = new Map<number, CallFrame[]>();
  for (const n of profile.nodes) {
    const stack: CallFrame[] = [];
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!.callFrame);
    out.set(n.id, stack);
  }
  return out;
}

/** Microseconds each layer used inside [fromUs, toUs], and the idle time. */
function chargeSamples(profile: CpuProfile, fromUs: number, toUs: number, layerOf: (stack: CallFrame[]) => string) {
  const byNode = stacks(profile);
  const used = new Map<string, number>();
  let idle = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    // A sample stands for the interval up to the next one.
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (t < fromUs || t > toUs) continue;
    const stack = byNode.get(profile.samples[i]!)!;
    if (stack[0]!.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    const layer = layerOf(stack);
    used.set(layer, (used.get(layer) ?? 0) + dt);
  }
  return { used, idle };
}

function threadName(profile: CpuProfile): string {
  const urls = profile.nodes.map((n) => n.callFrame.url);
  if (urls.some((u) => u.includes('bench/ingest/run.ts'))) return 'main';
  if (urls.some((u) => u.includes('pglite-worker'))) return 'PGlite control plane (worker thread)';
  if (urls.some((u) => u.includes('/processor/'))) return 'processor: Kafka → lake (worker thread)';
  return 'other worker thread';
}

/**
 * Summarizes every *.cpuprofile in `dir` over the window; `extra` adds rows measured outside V8
 * (the Kafka JVM, the load generator), in CPU milliseconds.
 */
export function summarizeProfiles(
  dir: string,
  window: { fromUs: number; toUs: number },
  events: number,
  extra: Record<string, number>,
): ProfileSummary {
  const per = (ms: number) => Math.round(((ms * 1000) / Math.max(1, events)) * 10) / 10;
  const main: LayerRow[] = [];
  const threads: LayerRow[] = [];
  let mainBusy = 0;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = readProfile(path.join(dir, file));
    const name = threadName(profile);
    const { used, idle } = chargeSamples(profile, window.fromUs, window.toUs, layerOfStack);
    const busyMs = [...used.values()].reduce((a, b) => a + b, 0) / 1000;
    if (name === 'main') {
      mainBusy = busyMs / (busyMs + idle / 1000);
      for (const [layer, us] of used)
        main.push({ layer: `main thread: ${layer}`, cpuMs: Math.round(us / 1000), usPerEvent: per(us / 1000) });
    } else if (busyMs > 0) {
      const existing = threads.find((r) => r.layer === name);
      if (existing) {
        existing.cpuMs += Math.round(busyMs);
        existing.usPerEvent = per(existing.cpuMs);
      } else threads.push({ layer: name, cpuMs: Math.round(busyMs), usPerEvent: per(busyMs) });
    }
  }
  for (const [layer, ms] of Object.entries(extra)) threads.push({ layer, cpuMs: Math.round(ms), usPerEvent: per(ms) });
  main.sort((a, b) => b.cpuMs - a.cpuMs);
  threads.sort((a, b) => b.cpuMs - a.cpuMs);
  return {
    windowSeconds: Math.round((window.toUs - window.fromUs) / 1e4) / 100,
    events,
    rows: [...main, ...threads],
    mainThreadBusyShare: Math.round(mainBusy * 100) / 100,
  };
}
