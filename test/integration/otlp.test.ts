// OTLP ingestion through the whole pipeline: spans made by the OpenTelemetry JS SDK, exported by
// its OTLP protobuf exporter (gzip) and its OTLP JSON exporter to POST /otlp/v1/traces, then
// read back as usage events, credits and the session call tree. Costs are worked out in the test
// from the rate card and the inclusive token counts sent; a re-sent export must change nothing;
// bad payloads get OTLP error answers (google.rpc.Status / its JSON form, partial_success).
import { context, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import { admin, http } from '../support/http.js';
import {
  apiGet,
  createTenant,
  ingest,
  issueKey,
  lakeEventCount,
  llmEvent,
  startPipeline,
  waitForLake,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';

// gpt-4o card of this tenant, USD per million tokens.
const RATES = { input: '2.5', output: '10', cacheRead: '1.25', reasoning: '10' };
const perToken = (perMillion: string) => new Big(perMillion).div(1_000_000);
/** Cost of one call from disjoint classes, worked out here (not by the service's pricing). */
function cost(c: { input: number; output: number; cacheRead?: number; reasoning?: number }): Big {
  return perToken(RATES.input)
    .times(c.input)
    .plus(perToken(RATES.output).times(c.output))
    .plus(perToken(RATES.cacheRead).times(c.cacheRead ?? 0))
    .plus(perToken(RATES.reasoning).times(c.reasoning ?? 0));
}

// Second-aligned, one hour ago: span times are T0 plus offsets in ms.
const T0 = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
const at = (ms: number) => new Date(T0 + ms);
const RATE_LIMIT = 40;

let p: Pipeline;
let t: Tenant;
let otlpKey: string;

beforeAll(async () => {
  p = await startPipeline({ env: { RATE_LIMIT_INGEST_PER_MINUTE: String(RATE_LIMIT) } });
  t = await createTenant(p, {
    rateCards: [
      {
        model_slug: 'gpt-4o',
        input_cost_per_million: RATES.input,
        output_cost_per_million: RATES.output,
        cache_read_cost_per_million: RATES.cacheRead,
        reasoning_cost_per_million: RATES.reasoning,
        effective_from: '2020-01-01T00:00:00Z',
      },
    ],
  });
  otlpKey = t.writer.apiKey;
});

afterAll(async () => {
  await p?.stop();
});

/** Spans made by the SDK, kept in memory so the very same spans can be exported twice. */
function recordSpans(
  build: (start: (name: string, startMs: number, attrs: Record<string, string | number>, parent?: Span) => Span) => void,
): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'otlp-test', 'user.id': 'carol' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('marginal-otlp-test');
  build((name, startMs, attributes, parent) =>
    tracer.startSpan(name, { startTime: at(startMs), attributes }, parent ? trace.setSpan(context.active(), parent) : context.active()),
  );
  return memory.getFinishedSpans();
}

function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  return new Promise((resolve, reject) =>
    exporter.export(spans, (r) => (r.code === 0 ? resolve() : reject(r.error ?? new Error(`export failed with code ${r.code}`)))),
  );
}

const exporterOptions = () => ({ url: `${p.url}/otlp/v1/traces`, headers: { Authorization: `Bearer ${otlpKey}` } });

async function creditBalance(): Promise<number> {
  return (await admin<{ balance: number }>(p.host, 'GET', `/organizations/${t.organizationId}/credits`)).body.balance;
}

async function tree(sessionId: string): Promise<any> {
  const res = await apiGet(p, t.readKey, `/attribution-data/sessions/${encodeURIComponent(sessionId)}/tree`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Node fields the test states, children included. */
function shape(n: any): unknown {
  return {
    name: n.name,
    kind: n.kind,
    own_cost: n.own_cost,
    subtree_cost: n.subtree_cost,
    event_count: n.event_count,
    orphaned: n.orphaned,
    started_at: n.started_at,
    duration_ms: n.duration_ms,
    children: n.children.map(shape),
  };
}

describe('OTLP from the OpenTelemetry JS SDK', () => {
  // agent → tool → llm, agent → llm, and an llm span whose parent was never sent (orphan).
  const llm1 = { input: 1000 - 200, cacheRead: 200, output: 300 }; // sent inclusive: input 1000 (200 cached)
  const llm2 = { input: 500, output: 80 - 30, reasoning: 30 }; // sent inclusive: output 80 (30 reasoning)
  const orphan = { input: 100, output: 10 };
  let spans: ReadableSpan[];

  beforeAll(() => {
    spans = recordSpans((start) => {
      const session = { 'gen_ai.conversation.id': 'conv-js' };
      const agent = start('invoke_agent planner', 0, {
        ...session,
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'planner',
      });
      const tool = start(
        'execute_tool search',
        1000,
        { ...session, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' },
        agent,
      );
      const chat1 = start(
        'chat gpt-4o',
        1500,
        {
          ...session,
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 1000,
          'gen_ai.usage.cache_read.input_tokens': 200,
          'gen_ai.usage.output_tokens': 300,
        },
        tool,
      );
      chat1.end(at(2500));
      tool.end(at(3000));
      const chat2 = start(
        'chat gpt-4o',
        3000,
        {
          ...session,
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.response.model': 'gpt-4o-2024-08-06',
          'gen_ai.usage.input_tokens': 500,
          'gen_ai.usage.output_tokens': 80,
          'gen_ai.usage.reasoning.output_tokens': 30,
        },
        agent,
      );
      chat2.end(at(4500));
      agent.end(at(5000));
      // A parent that never reaches Marginal (another service's span): its child is an orphan.
      const lost = start('lost parent', 5500, session);
      const child = start(
        'chat gpt-4o',
        6000,
        {
          ...session,
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.usage.input_tokens': 100,
          'gen_ai.usage.output_tokens': 10,
        },
        lost,
      );
      child.end(at(7000));
    });
    expect(spans).toHaveLength(5); // the lost parent never ended, so it was never exported
  });

  it('protobuf export (gzip): three usage events, three credits, the call tree with structural spans', async () => {
    const before = await creditBalance();
    await exportWith(new ProtoExporter({ ...exporterOptions(), compression: 'gzip' as never }), spans);
    await waitForLake(p, t.organizationId, 3);
    expect(before - (await creditBalance())).toBe(3);

    const events = await apiGet(p, t.readKey, '/usage/events', {
      start_date: at(-60_000).toISOString(),
      end_date: at(60_000).toISOString(),
    });
    expect(events.status).toBe(200);
    expect(events.body.total).toBe(3);
    // quantity = input + output tokens of the disjoint classes stored.
    expect(events.body.events.map((e: any) => e.quantity).sort((a: number, b: number) => a - b)).toEqual([110, 550, 1100]);

    const c1 = cost(llm1);
    const c2 = cost(llm2);
    const c3 = cost(orphan);
    expect(c1.toFixed()).toBe('0.00525'); // 800 × 2.5e-6 + 200 × 1.25e-6 + 300 × 1e-5
    const got = await tree('conv-js');
    expect(got.span_count).toBe(5);
    expect(got.untraced).toEqual({ total_cost: '0', event_count: 0 });
    expect(got.run_wall_ms).toBe(7000);
    expect(got.roots.map(shape)).toEqual([
      {
        name: 'invoke_agent planner',
        kind: 'agent',
        own_cost: '0',
        subtree_cost: c1.plus(c2).toFixed(),
        event_count: 0,
        orphaned: false,
        started_at: at(0).toISOString(),
        duration_ms: 5000,
        children: [
          {
            name: 'execute_tool search',
            kind: 'tool',
            own_cost: '0',
            subtree_cost: c1.toFixed(),
            event_count: 0,
            orphaned: false,
            started_at: at(1000).toISOString(),
            duration_ms: 2000,
            children: [
              {
                name: 'chat gpt-4o',
                kind: 'llm',
                own_cost: c1.toFixed(),
                subtree_cost: c1.toFixed(),
                event_count: 1,
                orphaned: false,
                started_at: at(1500).toISOString(),
                duration_ms: 1000,
                children: [],
              },
            ],
          },
          {
            name: 'chat gpt-4o',
            kind: 'llm',
            own_cost: c2.toFixed(),
            subtree_cost: c2.toFixed(),
            event_count: 1,
            orphaned: false,
            started_at: at(3000).toISOString(),
            duration_ms: 1500,
            children: [],
          },
        ],
      },
      {
        name: 'chat gpt-4o',
        kind: 'llm',
        own_cost: c3.toFixed(),
        subtree_cost: c3.toFixed(),
        event_count: 1,
        orphaned: true,
        started_at: at(6000).toISOString(),
        duration_ms: 1000,
        children: [],
      },
    ]);
  });

  it('the same spans re-sent through the JSON exporter change nothing', async () => {
    const before = await creditBalance();
    const treeBefore = await tree('conv-js');
    await exportWith(new JsonExporter(exporterOptions()), spans);
    expect(await creditBalance()).toBe(before);
    const events = await apiGet(p, t.readKey, '/usage/events', {
      start_date: at(-60_000).toISOString(),
      end_date: at(60_000).toISOString(),
    });
    expect(events.body.total).toBe(3);
    expect(await tree('conv-js')).toEqual(treeBefore);
  });

  it('a new trace through the JSON exporter: session = trace id without a conversation id, end user from the resource', async () => {
    const fresh = recordSpans((start) => {
      start('chat gpt-4o', 10_000, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 40,
        'gen_ai.usage.output_tokens': 4,
      }).end(at(10_250));
    });
    await exportWith(new JsonExporter(exporterOptions()), fresh);
    await waitForLake(p, t.organizationId, 4);
    const traceId = fresh[0]!.spanContext().traceId;
    const got = await tree(traceId);
    expect(got.roots).toHaveLength(1);
    expect(got.roots[0]).toMatchObject({
      span_id: fresh[0]!.spanContext().spanId,
      own_cost: cost({ input: 40, output: 4 }).toFixed(),
      duration_ms: 250,
    });
    const byUser = await apiGet(p, t.readKey, '/end-user-costs/carol/by-dimension', {
      dimension: 'feature',
      start_date: at(-60_000).toISOString(),
      end_date: at(60_000).toISOString(),
    });
    expect(byUser.status).toBe(200);
    expect(byUser.body.items[0].event_count).toBe(4); // every span above carried the resource's user.id
  });
});

describe('OTLP sessions in the sessions list', () => {
  const list = async (from: number, to: number) => {
    const res = await apiGet(p, t.readKey, '/attribution-data/sessions', {
      start_date: at(from).toISOString(),
      end_date: at(to).toISOString(),
      limit: 1000,
    });
    expect(res.status).toBe(200);
    return res.body as { sessions: any[]; total: number };
  };

  it('a session made only of structural spans is listed: zero cost and events, its spans, their start to end', async () => {
    const spans = recordSpans((start) => {
      const session = { 'gen_ai.conversation.id': 'conv-structural' };
      const agent = start('invoke_agent router', 40_000, { ...session, 'gen_ai.operation.name': 'invoke_agent' });
      start('execute_tool lookup', 41_000, { ...session, 'gen_ai.operation.name': 'execute_tool' }, agent).end(at(42_000));
      agent.end(at(45_000));
    });
    await exportWith(new ProtoExporter(exporterOptions()), spans);
    // Stored before the 200: listed at once, with the tree's span count.
    expect((await tree('conv-structural')).span_count).toBe(2);
    const entry = {
      session_id: 'conv-structural',
      total_cost: '0',
      event_count: 0,
      span_count: 2,
      untraced_event_count: 0,
      first_event_at: at(40_000).toISOString(),
      last_event_at: at(45_000).toISOString(),
    };
    expect((await list(40_000, 45_001)).sessions).toContainEqual(entry);
    // Active from its first span's start to its last span's end: a window inside that lists it, one after does not.
    expect((await list(43_000, 44_000)).sessions).toEqual([entry]);
    expect((await list(45_001, 50_000)).sessions.map((s) => s.session_id)).not.toContain('conv-structural');
    expect((await list(39_000, 40_000)).sessions.map((s) => s.session_id)).not.toContain('conv-structural');
  });

  it("a session with both counts every span of its tree and keeps its events' cost; the window sees the agent span's start", async () => {
    const got = await tree('conv-js');
    const row = (await list(-60_000, 60_000)).sessions.find((s) => s.session_id === 'conv-js');
    // 3 priced spans (lake) + 2 structural (agent, tool); cost from the events only.
    expect(row).toEqual({
      session_id: 'conv-js',
      total_cost: cost({ input: 800, cacheRead: 200, output: 300 })
        .plus(cost({ input: 500, output: 50, reasoning: 30 }))
        .plus(cost({ input: 100, output: 10 }))
        .toFixed(),
      event_count: 3,
      span_count: got.span_count,
      untraced_event_count: 0,
      first_event_at: at(0).toISOString(), // the agent span's start; the first event is at 2500
      last_event_at: at(7000).toISOString(),
    });
    expect(row.span_count).toBe(5);
    // [0, 1000) holds no event of the session, only the agent's start.
    expect((await list(0, 1000)).sessions.map((s) => s.session_id)).toEqual(['conv-js']);
  });

  it('a span both structural (OTLP, no usage) and priced (an event with its span id) is counted once, in the list as in the tree', async () => {
    let shared = '';
    const spans = recordSpans((start) => {
      const agent = start('invoke_agent planner', 50_000, {
        'gen_ai.conversation.id': 'conv-shared',
        'gen_ai.operation.name': 'invoke_agent',
      });
      shared = agent.spanContext().spanId;
      agent.end(at(52_000));
    });
    await exportWith(new ProtoExporter(exporterOptions()), spans);
    const before = await lakeEventCount(p, t.organizationId);
    await ingest(p, t, [
      llmEvent('shared-span-1', { session_id: 'conv-shared', span_id: shared, cost_override: '0.5', timestamp: at(51_000).toISOString() }),
    ]);
    await waitForLake(p, t.organizationId, before + 1);
    expect((await tree('conv-shared')).span_count).toBe(1);
    const row = (await list(49_000, 53_000)).sessions.find((s) => s.session_id === 'conv-shared');
    expect(row).toMatchObject({
      span_count: 1,
      event_count: 1,
      total_cost: '0.5',
      first_event_at: at(50_000).toISOString(),
      last_event_at: at(52_000).toISOString(),
    });
  });
});

describe('OTLP attribute mappings (admin)', () => {
  it('a mapped resource attribute lands in the event metadata; the mapping reads back', async () => {
    const base = `/organizations/${t.organizationId}/otlp-attribute-mappings`;
    const put = await admin(p.host, 'PUT', base, { mappings: [{ attribute: 'deployment.environment', metadata_key: 'env' }] });
    expect(put.status).toBe(200);
    expect((await admin(p.host, 'GET', base)).body).toEqual({ mappings: [{ attribute: 'deployment.environment', metadata_key: 'env' }] });
    const bad = await admin(p.host, 'PUT', base, { mappings: [{ attribute: 'x', metadata_key: 'Not Snake' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('mappings[0].metadata_key');

    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'deployment.environment': 'staging' }),
      spanProcessors: [new SimpleSpanProcessor(memory)],
    });
    provider
      .getTracer('t')
      .startSpan('chat', {
        startTime: at(30_000),
        attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 1, 'gen_ai.conversation.id': 'conv-env' },
      })
      .end(at(30_100));
    // The admin change binds the next export of this process (the all-in-one's ingest is here).
    await exportWith(new JsonExporter(exporterOptions()), memory.getFinishedSpans());
    const deadline = Date.now() + 60_000;
    let event: any;
    while (!event && Date.now() < deadline) {
      const res = await apiGet(p, t.readKey, '/usage/events', { start_date: at(29_000).toISOString(), end_date: at(31_000).toISOString() });
      event = res.body.events?.[0];
      if (!event) await new Promise((r) => setTimeout(r, 200));
    }
    expect(event.metadata.env).toBe('staging');
  });
});

describe('OTLP answers', () => {
  const traceId = 'aaaabbbbccccddddeeeeffff00001111';
  const jsonSpan = (spanId: string, attrs: Array<[string, unknown]>) => ({
    traceId,
    spanId,
    name: 'chat',
    kind: 3,
    startTimeUnixNano: String(BigInt(T0 + 20_000) * 1_000_000n),
    endTimeUnixNano: String(BigInt(T0 + 21_000) * 1_000_000n),
    attributes: attrs.map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } })),
  });
  const body = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] });
  const post = (payload: Buffer | string, contentType: string, key = otlpKey) =>
    fetch(`${p.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${key}` },
      body: payload,
    });

  it('partial_success names the rejected span and why; the good span is accepted', async () => {
    const res = await post(
      JSON.stringify(
        body([
          jsonSpan('1111111111111111', [
            ['gen_ai.request.model', 'gpt-4o'],
            ['gen_ai.usage.input_tokens', 10],
            ['gen_ai.usage.output_tokens', 1],
          ]),
          jsonSpan('2222222222222222', [['gen_ai.usage.input_tokens', 10]]),
        ]),
      ),
      'application/json',
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage: '1 of 2 spans rejected: span 2222222222222222: usage without a model (gen_ai.response.model or gen_ai.request.model)',
      },
    });
    const metrics = await (await fetch(`${p.url}/metrics`)).text();
    expect(metrics).toMatch(/marginal_otlp_spans_rejected_total\{reason="mapping"\} [1-9]/);
    expect(metrics).toMatch(/marginal_otlp_spans_structural_total [1-9]/);
    expect(metrics).toMatch(/marginal_otlp_spans_mapped_total [1-9]/);
    expect(metrics).toMatch(/marginal_otlp_spans_accepted_total [1-9]/);
  });

  it('credits run out: the spans beyond the balance are rejected in partial_success (402 reason); structural spans need none', async () => {
    const poor = await createTenant(p, { credits: 1 });
    const res = await post(
      JSON.stringify(
        body([
          jsonSpan('4444444444444441', [
            ['gen_ai.request.model', 'gpt-4o'],
            ['gen_ai.usage.input_tokens', 10],
          ]),
          jsonSpan('4444444444444442', [
            ['gen_ai.request.model', 'gpt-4o'],
            ['gen_ai.usage.input_tokens', 10],
          ]),
          jsonSpan('4444444444444443', [['gen_ai.operation.name', 'execute_tool']]),
        ]),
      ),
      'application/json',
      poor.writer.apiKey,
    );
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(answer.partialSuccess.rejectedSpans).toBe('1');
    expect(answer.partialSuccess.errorMessage).toMatch(/^1 of 3 spans rejected: span 444444444444444[12]: Event credit balance is zero/);
    expect((await admin<{ balance: number }>(p.host, 'GET', `/organizations/${poor.organizationId}/credits`)).body.balance).toBe(0);
  });

  it('undecodable protobuf: 400 with a google.rpc.Status body', async () => {
    const res = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff]), 'application/x-protobuf');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/x-protobuf/);
    const Status = new protobuf.Type('Status').add(new protobuf.Field('code', 1, 'int32')).add(new protobuf.Field('message', 2, 'string'));
    const status = Status.toObject(Status.decode(Buffer.from(await res.arrayBuffer()))) as { code: number; message: string };
    expect(status.code).toBe(3); // INVALID_ARGUMENT
    expect(status.message).toMatch(/not an ExportTraceServiceRequest in binary protobuf/);
    // Counted under the route's own path.
    expect(await (await fetch(`${p.url}/metrics`)).text()).toMatch(
      /marginal_http_requests_total\{method="POST",route="\/otlp\/v1\/traces",status="400"\} [1-9]/,
    );
  });

  it('bad JSON: 400 with Status fields and the error envelope; bad hex id names the field', async () => {
    const res = await post('{"resourceSpans": [', 'application/json');
    expect(res.status).toBe(400);
    const b = await res.json();
    expect(b).toMatchObject({ code: 3, success: false, error: { code: 'VALIDATION_ERROR', details: { field: 'body' } } });
    const badId = await post(JSON.stringify(body([{ ...jsonSpan('zz', []) }])), 'application/json');
    expect(badId.status).toBe(400);
    expect(((await badId.json()) as any).message).toBe(
      'resourceSpans[0].scopeSpans[0].spans[0].spanId: must be a hex string (OTLP/JSON encodes ids as hex)',
    );
  });

  it('401 without a key, 403 without usage:write, 415 for another media type', async () => {
    expect((await post('{}', 'application/json', 'mk_live_nope')).status).toBe(401);
    const reader = await post('{}', 'application/json', t.readKey);
    expect(reader.status).toBe(403);
    expect(await reader.json()).toMatchObject({ code: 7, error: { code: 'FORBIDDEN' } });
    const text = await post('hello', 'text/plain');
    expect(text.status).toBe(415);
  });

  it('429 with Retry-After past the ingest rate limit (a key of its own)', async () => {
    const key = await issueKey(p, t, ['usage:write']);
    let last: Response | null = null;
    for (let i = 0; i <= RATE_LIMIT; i++) last = await post('{}', 'application/json', key);
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await last!.json()).toMatchObject({ code: 8, error: { code: 'RATE_LIMIT_EXCEEDED' } });
  });

  it('a gzip body is inflated (Content-Encoding: gzip)', async () => {
    const zipped = gzipSync(JSON.stringify(body([jsonSpan('3333333333333333', [['gen_ai.operation.name', 'execute_tool']])])));
    const res = await fetch(`${p.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', authorization: `Bearer ${otlpKey}` },
      body: zipped,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    const got = await tree(traceId);
    expect(got.roots.map((n: any) => [n.span_id, n.kind, n.own_cost])).toContainEqual(['3333333333333333', 'tool', '0']);
  });

  it('an empty export is a success', async () => {
    const res = await post('{}', 'application/json');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
  });
});

it('the OTLP path takes only POST (405 with Allow, as every documented path), and is in the OpenAPI document at the origin', async () => {
  const res = await http(p.url, 'GET', '/otlp/v1/traces');
  expect(res.status).toBe(405);
  expect(res.headers.get('allow')).toBe('POST');
  const doc = (await (await fetch(`${p.url}/openapi.json`)).json()) as any;
  const item = doc.paths['/otlp/v1/traces'];
  expect(item.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  expect(Object.keys(item.post.requestBody.content)).toEqual(['application/x-protobuf', 'application/json']);
  expect(Object.keys(item.post.responses)).toEqual(['200', '400', '401', '403', '413', '415', '429', '503']);
  expect(item.post.responses['429'].headers['Retry-After'].required).toBe(true);
  // Under /v1 the path is not a route.
  expect((await http(p.url, 'GET', '/v1/otlp/v1/traces')).status).toBe(404);
});
