// One exporter process of the OTLP bench: the OpenTelemetry JS SDK makes agent traces (per trace
// an invoke_agent span, an execute_tool span and two chat spans with GenAI usage: half the spans
// priced, half structural), and its OTLP protobuf exporter sends them in batches of `batch` spans,
// `inFlight` exports at a time, for `seconds`. Every batch holds new trace ids. Prints one JSON
// line: spans and exports sent, accepted and failed.
//   node --import tsx bench/otlp/exporter.ts '<ExporterConfig JSON>'
import { context, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface ExporterConfig {
  url: string;
  apiKey: string;
  seconds: number;
  batch: number;
  inFlight: number;
}

export interface ExporterResult {
  seconds: number;
  spansAccepted: number;
  exportsOk: number;
  exportsFailed: number;
  firstError: string | null;
  /** CPU seconds this process used (user + system) while sending. */
  cpuSeconds: number;
}

const SPANS_PER_TRACE = 4;

function makeBatch(tracer: ReturnType<BasicTracerProvider['getTracer']>, memory: InMemorySpanExporter, spans: number): ReadableSpan[] {
  memory.reset();
  const now = Date.now() - 10_000;
  for (let i = 0; i < spans / SPANS_PER_TRACE; i++) {
    const agent = tracer.startSpan('invoke_agent bench', {
      startTime: now,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'bench' },
    });
    const inAgent = trace.setSpan(context.active(), agent);
    const tool = tracer.startSpan(
      'execute_tool search',
      { startTime: now + 10, attributes: { 'gen_ai.operation.name': 'execute_tool' } },
      inAgent,
    );
    for (const [start, parent] of [
      [now + 20, trace.setSpan(context.active(), tool)],
      [now + 60, inAgent],
    ] as const) {
      tracer
        .startSpan(
          'chat gpt-4o',
          {
            startTime: start,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': 'openai',
              'gen_ai.request.model': 'gpt-4o',
              'gen_ai.usage.input_tokens': 1200,
              'gen_ai.usage.cache_read.input_tokens': 200,
              'gen_ai.usage.output_tokens': 300,
            },
          },
          parent,
        )
        .end(start + 30);
    }
    tool.end(now + 55);
    agent.end(now + 100);
  }
  return memory.getFinishedSpans();
}

async function main(cfg: ExporterConfig): Promise<ExporterResult> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'otlp-bench' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('marginal-otlp-bench');
  const exporter = new OTLPTraceExporter({
    url: `${cfg.url}/otlp/v1/traces`,
    headers: { Authorization: `Bearer ${cfg.apiKey}` },
    concurrencyLimit: cfg.inFlight * 2,
  });
  const result: ExporterResult = { seconds: 0, spansAccepted: 0, exportsOk: 0, exportsFailed: 0, firstError: null, cpuSeconds: 0 };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + cfg.seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const spans = makeBatch(tracer, memory, cfg.batch);
      const code = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
      if (code.code === 0) {
        result.exportsOk++;
        result.spansAccepted += spans.length;
      } else {
        result.exportsFailed++;
        result.firstError ??= String(code.error);
      }
    }
  };
  await Promise.all(Array.from({ length: cfg.inFlight }, loop));
  result.seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  result.cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await exporter.shutdown();
  return result;
}

main(JSON.parse(process.argv[2]!) as ExporterConfig).then(
  (r) => console.log(JSON.stringify(r)),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
