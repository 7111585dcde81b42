// bench/results/ingest.md from ingest.json: per configuration, our figures beside the bare-HTTP
// ceiling, the Kafka ProducerPerformance ceiling, and (when --profile ran) the CPU per event of
// each layer of the single-event path; first, the hand-written account in bench/ingest/analysis.md.

const met = (v: boolean) => (v ? 'met' : '**not met**');
const n = (x: number) => x.toLocaleString('en-US');

function targetText(x: any): string {
  const t = x.target;
  if (!t) return '';
  const ok = x.eventsPerSecond >= t.eventsPerSecond && (t.p99Ms === undefined || x.latencyMs.p99 <= t.p99Ms);
  return `≥ ${n(t.eventsPerSecond)}/s${t.p99Ms !== undefined ? ` at p99 ≤ ${t.p99Ms} ms` : ''}: ${met(ok)}`;
}

function row(name: string, x: any): string {
  if (!x || x.skipped) return `| ${name} | not run | | | | | | | | | | |`;
  const loadCpu = (x.cpuSeconds.user + x.cpuSeconds.system).toFixed(1);
  const opt = (v: unknown) => (v === undefined || v === null ? '–' : String(v));
  return `| ${name} | ${x.eventsPerSecond} | ${x.requestsPerSecond} | ${x.latencyMs.p50} | ${x.latencyMs.p99} | ${x.latencyMs.max} | ${x.rejectedEvents} | ${opt(x.serverPeakRssMiB)} | ${opt(x.serverEventLoopUtilization)} | ${opt(x.groupCommit?.meanEventsPerGroup)} | ${loadCpu} | ${targetText(x)} |`;
}

function ratio(ours: any, bare: any): string {
  if (!ours || ours.skipped || !bare || bare.skipped) return '–';
  return `${(ours.eventsPerSecond / bare.eventsPerSecond).toFixed(2)}`;
}

/** The run's server CPU (measured over warm-up + measured seconds) prorated to the measured seconds, per event. */
function serverUsPerEvent(x: any): string {
  if (x.serverCpuSecondsWholeRun === undefined || !x.acceptedEvents) return '–';
  const warmup = 3;
  return ((x.serverCpuSecondsWholeRun * (x.measuredSeconds / (x.measuredSeconds + warmup)) * 1e6) / x.acceptedEvents).toFixed(0);
}

function comparison(r: any): string[] {
  const s = r.single;
  const b = r.batch;
  const bare = r.bare;
  if (!bare) return ['Bare-HTTP ceiling: not measured in this run (--no-bare, or a run from before bench/ingest had it).', ''];
  const line = (name: string, ours: any, ceiling: any, unit: string) =>
    ours?.skipped || ceiling?.skipped
      ? `| ${name} | not run | | | | |`
      : `| ${name} | ${n(ours.eventsPerSecond)} ${unit} (p99 ${ours.latencyMs.p99} ms) | ${n(ceiling.eventsPerSecond)} ${unit} (p99 ${ceiling.latencyMs.p99} ms) | ${ratio(ours, ceiling)} | ${serverUsPerEvent(ours)} | ${serverUsPerEvent(ceiling)} |`;
  return [
    'Bare-HTTP ceiling (`bench/ingest/bare-server.ts`): a plain `node:http` server in its own process doing per request only the API-key lookup from memory, the same HMAC check (`ingest/signature.ts`) and `JSON.parse`, answering 202; measured right after our runs by the same load generator with the same clients, while the Kafka broker stayed up idle.',
    '',
    '| Load | Ours | Bare node:http | Ours / bare | Our server CPU µs per event | Bare server CPU µs per event |',
    '|---|---|---|---|---|---|',
    line(`Single events, ${s.clients ?? 64} clients`, s, bare.single, 'events/s'),
    line(`Batches of ${b.batchSize ?? 1000}, ${b.clients ?? 4} clients`, b, bare.batch, 'events/s'),
    '',
    'Server CPU per event: the server process’s CPU over warm-up and measured seconds, prorated to the measured seconds, over the events answered in them; ours is the whole service process (HTTP, ingest, PGlite thread, processor thread), without the Kafka broker JVM and the load generator.',
    '',
  ];
}

function profileSection(p: any, cpus: number): string[] {
  if (!p) return [];
  const total = p.rows.reduce((a: number, r: any) => a + r.usPerEvent, 0);
  const outside = p.rows.filter((r: any) => /load generator|Kafka broker/.test(r.layer)).reduce((a: number, r: any) => a + r.usPerEvent, 0);
  return [
    `### Where the CPU of ${p.mode === 'batch' ? `an event in batches of ${p.batchSize}` : 'a single event'} goes (\`${p.command}\`, ${p.date})`,
    '',
    `The ${p.mode === 'batch' ? 'batch' : 'single-event'} load once more (${p.clients} clients) in a child started with \`node --cpu-prof\`; samples cut to the ${p.windowSeconds} s measured window (${n(p.events)} events, ${n(p.eventsPerSecond)}/s under the profiler, p99 ${p.latencyMs.p99} ms; load average ${p.loadAverageAtStart} at start, ${p.loadAverageAtEnd} at end). Each main-thread sample is charged to the innermost frame of a known layer (\`bench/ingest/cpu-profile.ts\`); worker threads whole; the Kafka JVM and the load generator from their CPU time over the window. The main thread was busy ${Math.round(p.mainThreadBusyShare * 100)}% of the window.`,
    '',
    '| Layer | CPU ms in window | CPU µs per event |',
    '|---|---|---|',
    ...p.rows.map((r: any) => `| ${r.layer} | ${n(r.cpuMs)} | ${r.usPerEvent} |`),
    `| **Total** | ${n(p.rows.reduce((a: number, r: any) => a + r.cpuMs, 0))} | ${total.toFixed(1)} |`,
    '',
    `At ${total.toFixed(0)} µs of CPU per event over the whole machine (the profiler's own cost included), ${cpus} cores allow at most ${n(Math.round((cpus * 1e6) / total))} events/s with nothing else running; ${outside.toFixed(0)} µs of it are the load generator's and the Kafka JVM's, which share the cores.`,
    '',
  ];
}

/** `analysis`: the hand-written account of the latest work (bench/ingest/analysis.md), put first. */
export function ingestMarkdown(runs: Record<string, any>, analysis = ''): string {
  const out = [
    '# Ingest benchmark',
    '',
    'Written by `npm run bench:ingest` (see bench/ingest/run.ts for options); the same data is in `ingest.json`.',
    '',
  ];
  if (analysis.trim()) out.push(analysis.trim(), '');
  for (const [label, r] of Object.entries(runs)) {
    const s = r.single;
    const b = r.batch;
    out.push(
      `## ${label}`,
      '',
      `\`${r.command}\` — ${r.date}`,
      '',
      `Machine: ${r.machine.cpus} cores (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB, Node ${r.machine.node}, Kafka ${r.machine.kafka}, ${r.machine.java}. Load average (1/5/15 min) ${r.machine.loadAverageAtStart} at start, ${r.machine.loadAverageAtEnd} at end. ${r.machine.note}`,
      '',
      `Setup: ${r.setup.services} in one process on 127.0.0.1; control plane ${r.setup.controlPlane}; local single-node Kafka (acks=all, idempotent producer); dev schema registry. ${r.setup.rateLimitNote} Load generator: ${r.setup.loadGenerator}. Server node flags: ${(r.nodeFlags ?? []).join(' ') || 'none'}.`,
      '',
      '| Run | Events/s | Requests/s | p50 ms | p99 ms | max ms | Rejected | Server peak RSS MiB | Server event-loop busy | Events per group commit | Load generator CPU s | Target |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      row(`Single events, ${s.clients ?? 64} clients, ${s.measuredSeconds ?? '–'} s`, s),
      row(`Batches of ${b.batchSize ?? 1000}, ${b.clients ?? 4} clients, ${b.measuredSeconds ?? '–'} s`, b),
      ...(r.bare
        ? [
            row(`Bare node:http ceiling: single events, ${r.bare.single.clients ?? 64} clients`, r.bare.single),
            row(`Bare node:http ceiling: batches of ${r.bare.batch.batchSize ?? 1000}, ${r.bare.batch.clients ?? 4} clients`, r.bare.batch),
          ]
        : []),
      '',
      ...comparison(r),
      `Peak RSS over the whole run (VmHWM): server process ${r.peakRssMiB.server} MiB, Kafka broker JVM ${r.peakRssMiB.kafkaBroker} MiB. After the runs: ${r.consistency.creditsSpent} credits spent, ${r.consistency.ledgerPublished} ledger rows published, ${r.consistency.ledgerReserved} left reserved.${
        r.lakeCatchUp
          ? ` The processor (same process${
              Object.keys(r.processorSettings ?? {}).length
                ? `, ${Object.entries(r.processorSettings)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(', ')}`
                : ''
            }) had every accepted event in the lake ${r.lakeCatchUp.seconds === null ? `**not within 120 s** (${r.lakeCatchUp.pendingAtEnd} pending)` : `${r.lakeCatchUp.seconds} s after the last response`}.`
          : ''
      }`,
      '',
      r.kafkaProducerPerformance
        ? `Bare broker ceiling, Kafka's own ProducerPerformance from the same jars against the same broker with the services stopped: **${r.kafkaProducerPerformance.recordsPerSec} records/s** (\`${r.kafkaProducerPerformance.command}\`).\n\n> ${r.kafkaProducerPerformance.summary}`
        : 'Kafka ProducerPerformance: not run in this configuration (--no-perf).',
      '',
      ...profileSection(r.profile, r.machine.cpus),
      ...profileSection(r.profileBatch, r.machine.cpus),
    );
  }
  return out.join('\n');
}
