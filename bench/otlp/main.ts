// OTLP bench (issue 13): spans/s the all-in-one service accepts on POST /otlp/v1/traces from one
// exporter process (the JS SDK's OTLP protobuf exporter, batches of 512 spans, half of them priced
// usage and half structural), and the freshness from an export to its session tree being
// queryable with every span and cost. Starts the service as a child process (free ports, temp
// DATA_DIR, rate limits raised), one organization through the admin API, runs the exporter
// (bench/otlp/exporter.ts) in its own process, waits until the lake holds every usage event, then
// times single-trace exports until their tree is complete. Writes bench/results/otlp.{json,md}.
//   npx tsx bench/otlp/main.ts [--seconds 15] [--in-flight 4] [--batch 512] [--samples 5] [--no-write] [--cpu-prof <dir>]
// --cpu-prof writes V8 CPU profiles of the service (main thread and each worker thread) into <dir>
// when it stops (implies --no-write: a profiled service is slower).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { fromRoot, projectRoot } from '../../core/paths.js';
import { createServiceTenant, startLocalService, type LocalService, type ServiceTenant } from '../../scripts/local-service.js';
import type { ExporterConfig, ExporterResult } from './exporter.js';

/** CPU seconds used so far by a process and all its descendants (the service and its broker JVM), from /proc (Linux; 100 ticks/s). */
function treeCpuSeconds(rootPid: number): number {
  const stats = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const fields = fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return [{ pid: Number(d), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }];
      } catch {
        return [];
      }
    });
  const inTree = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats) {
      if (!inTree.has(s.pid) && inTree.has(s.ppid)) {
        inTree.add(s.pid);
        grew = true;
      }
    }
  }
  return stats.filter((s) => inTree.has(s.pid)).reduce((t, s) => t + s.ticks, 0) / 100;
}

function runExporter(cfg: ExporterConfig): Promise<ExporterResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fromRoot('bench', 'otlp', 'exporter.ts'), JSON.stringify(cfg)], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`exporter exited with ${code}`)),
    );
  });
}

async function getJson(svc: LocalService, key: string, path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.url}/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json() };
}

async function lakeEvents(svc: LocalService, t: ServiceTenant): Promise<number> {
  const day = 86_400_000;
  const q = `start_date=${new Date(Date.now() - day).toISOString()}&end_date=${new Date(Date.now() + day).toISOString()}`;
  return (await getJson(svc, t.apiKey, `/usage/summary?${q}`)).body.total_events as number;
}

/** Polls until the lake holds `count` events of the organization; ms waited. */
async function drain(svc: LocalService, t: ServiceTenant, count: number, timeoutMs = 180_000): Promise<number> {
  const start = performance.now();
  for (;;) {
    const n = await lakeEvents(svc, t);
    if (n >= count) return performance.now() - start;
    if (performance.now() - start > timeoutMs) throw new Error(`lake holds ${n} of ${count} events after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One agent → tool → chat trace exported alone; ms until its tree shows all 3 spans and the chat's cost. */
async function freshness(svc: LocalService, t: ServiceTenant): Promise<number> {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer('freshness');
  const now = Date.now() - 1000;
  const agent = tracer.startSpan('invoke_agent', { startTime: now, attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
  const tool = tracer.startSpan(
    'execute_tool',
    { startTime: now + 10, attributes: { 'gen_ai.operation.name': 'execute_tool' } },
    trace.setSpan(context.active(), agent),
  );
  tracer
    .startSpan(
      'chat',
      {
        startTime: now + 20,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 10,
        },
      },
      trace.setSpan(context.active(), tool),
    )
    .end(now + 50);
  tool.end(now + 60);
  agent.end(now + 70);
  const exporter = new OTLPTraceExporter({ url: `${svc.url}/otlp/v1/traces`, headers: { Authorization: `Bearer ${t.apiKey}` } });
  const start = performance.now();
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(memory.getFinishedSpans(), resolve));
  if (result.code !== 0) throw new Error(`freshness export failed: ${result.error}`);
  const traceId = agent.spanContext().traceId;
  for (;;) {
    const res = await getJson(svc, t.apiKey, `/attribution-data/sessions/${traceId}/tree`);
    if (res.status === 200 && res.body.span_count === 3 && res.body.roots[0]?.subtree_cost !== '0') {
      await exporter.shutdown();
      return performance.now() - start;
    }
    if (performance.now() - start > 60_000) throw new Error(`tree of ${traceId} incomplete after 60 s: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const round = (x: number, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '15' },
      'in-flight': { type: 'string', default: '4' },
      batch: { type: 'string', default: '512' },
      samples: { type: 'string', default: '5' },
      'no-write': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
    },
  });
  const cfg = { seconds: Number(values.seconds), inFlight: Number(values['in-flight']), batch: Number(values.batch) };
  const loadBefore = os.loadavg()[0]!;
  const profileDir = values['cpu-prof'];
  const svc = await startLocalService({
    env: {
      RATE_LIMIT_INGEST_PER_MINUTE: '1000000000',
      RATE_LIMIT_READ_PER_15_MINUTES: '1000000000',
    },
    ...(profileDir ? { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
  });
  try {
    const t = await createServiceTenant(svc, 'otlp-bench', 100_000_000);
    // Warm-up: JIT, connections, the first Kafka sends and lake files.
    const warm = await runExporter({ url: svc.url, apiKey: t.apiKey, seconds: 3, inFlight: cfg.inFlight, batch: cfg.batch });
    const serviceCpuBefore = treeCpuSeconds(svc.pid);
    const run = await runExporter({ url: svc.url, apiKey: t.apiKey, ...cfg });
    const serviceCpu = treeCpuSeconds(svc.pid) - serviceCpuBefore;
    const serviceUsPerSpan = (serviceCpu * 1e6) / run.spansAccepted;
    const exporterUsPerSpan = (run.cpuSeconds * 1e6) / run.spansAccepted;
    const loadDuring = os.loadavg()[0]!;
    const usageEvents = (warm.spansAccepted + run.spansAccepted) / 2; // two of every four spans are priced
    const drainMs = await drain(svc, t, usageEvents);
    const fresh: number[] = [];
    for (let i = 0; i < Number(values.samples); i++) fresh.push(await freshness(svc, t));
    fresh.sort((a, b) => a - b);
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, loadavg_1m_before: round(loadBefore, 2), loadavg_1m_after_run: round(loadDuring, 2) },
      config: cfg,
      spans_per_second: round(run.spansAccepted / run.seconds),
      // CPU per span: the service (with its broker JVM) and the exporter; inflated by a busy machine's contention.
      service_cpu_us_per_span: round(serviceUsPerSpan, 1),
      exporter_cpu_us_per_span: round(exporterUsPerSpan, 1),
      spans_accepted: run.spansAccepted,
      exports_ok: run.exportsOk,
      exports_failed: run.exportsFailed,
      first_error: run.firstError,
      lake_drain_after_run_ms: round(drainMs),
      freshness_ms: { samples: fresh.map((x) => round(x)), median: round(fresh[Math.floor(fresh.length / 2)]!), max: round(fresh.at(-1)!) },
    };
    console.log(JSON.stringify(result, null, 2));
    if (!values['no-write'] && !profileDir) {
      fs.writeFileSync(fromRoot('bench', 'results', 'otlp.json'), `${JSON.stringify(result, null, 2)}\n`);
      fs.writeFileSync(
        fromRoot('bench', 'results', 'otlp.md'),
        [
          '# OTLP ingestion bench',
          '',
          `Run ${result.date} with \`npx tsx bench/otlp/main.ts --seconds ${cfg.seconds} --in-flight ${cfg.inFlight} --batch ${cfg.batch}\` on ${result.machine.cpus} cores`,
          `(1-minute load average ${result.machine.loadavg_1m_before} before, ${result.machine.loadavg_1m_after_run} after the run; the machine is shared).`,
          '',
          '| Figure | Value |',
          '|---|---|',
          `| Spans/s accepted (one exporter process, protobuf, ${cfg.batch} spans per export, ${cfg.inFlight} in flight) | ${result.spans_per_second} |`,
          `| Spans accepted / exports ok / exports failed | ${run.spansAccepted} / ${run.exportsOk} / ${run.exportsFailed} |`,
          `| CPU per span: the service (with its Kafka broker JVM) / the exporter process | ${result.service_cpu_us_per_span} µs / ${result.exporter_cpu_us_per_span} µs |`,
          `| Lake holds every usage event, after the run ended | ${result.lake_drain_after_run_ms} ms |`,
          `| Freshness: export of one trace → its tree complete (median / max of ${fresh.length}) | ${result.freshness_ms.median} ms / ${result.freshness_ms.max} ms |`,
          '',
          'Half the spans are priced (chat spans with GenAI usage: usage events through ingest, one',
          'credit each) and half structural (agent and tool spans, stored for the call tree).',
          '',
        ].join('\n'),
      );
    }
  } finally {
    await svc.stop();
  }
}

await main();
