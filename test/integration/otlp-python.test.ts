// OTLP from Python: otlp/python/export_traces.py (OpenTelemetry Python SDK, its OTLP/HTTP
// protobuf exporter configured only by OTEL_EXPORTER_OTLP_ENDPOINT / _HEADERS, OpenLLMetry's
// OpenAI instrumentation around the official openai client and a local fake provider) exports one
// agent → tool → openai.chat trace twice. The expected event, cost and tree are worked out here
// from the usage the fake provider reported and the span times the script printed.
// Needs .venv with otlp/python/requirements.txt (.ci/run installs it and runs this file with
// MARGINAL_OTLP_PYTHON_REQUIRED=1); without it the file is skipped locally, with the reason.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import { fromRoot } from '../../core/paths.js';
import { admin } from '../support/http.js';
import { apiGet, createTenant, startPipeline, waitForLake, type Pipeline, type Tenant } from '../support/pipeline.js';

const PYTHON = fromRoot('.venv', 'bin', 'python');
const SCRIPT = fromRoot('otlp', 'python', 'export_traces.py');
const required = process.env.MARGINAL_OTLP_PYTHON_REQUIRED === '1';

function pythonReady(): string | null {
  if (!fs.existsSync(PYTHON)) return `${PYTHON} is missing (bash .ci/run creates it)`;
  const probe = spawnSync(PYTHON, ['-c', 'import opentelemetry.instrumentation.openai, opentelemetry.exporter.otlp.proto.http, openai'], {
    encoding: 'utf8',
  });
  return probe.status === 0
    ? null
    : `.venv lacks otlp/python/requirements.txt (.venv/bin/pip install -r otlp/python/requirements.txt): ${probe.stderr.trim().split('\n').pop()}`;
}

const missing = pythonReady();
if (missing && required) throw new Error(`MARGINAL_OTLP_PYTHON_REQUIRED=1 but ${missing}`);
if (missing) console.warn(`skipping the Python OTLP test: ${missing}`);

const RATES = { input: '2.5', output: '10', cacheRead: '1.25', reasoning: '10' };
const perToken = (perMillion: string) => new Big(perMillion).div(1_000_000);

interface ScriptSpan {
  name: string;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  start_ns: string;
  end_ns: string;
}
interface ScriptOutput {
  export_results: string[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
  };
  spans: ScriptSpan[];
}

const ms = (ns: string) => Number(BigInt(ns) / 1_000_000n);

describe.skipIf(missing !== null)('OTLP from the Python SDK and OpenLLMetry', () => {
  let p: Pipeline;
  let t: Tenant;
  let out: ScriptOutput;

  beforeAll(async () => {
    p = await startPipeline();
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
    // Asynchronously: the service answering the exports runs on this process's event loop.
    const run = await promisify(execFile)(PYTHON, [SCRIPT], {
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '',
        OTEL_EXPORTER_OTLP_ENDPOINT: `${p.url}/otlp`,
        OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${t.writer.apiKey}`,
        // Message contents stay out of the spans; usage does not depend on them.
        TRACELOOP_TRACE_CONTENT: 'false',
      },
    });
    out = JSON.parse(run.stdout.trim().split('\n').pop()!);
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('both exports succeed; agent → tool → openai.chat; one event, one credit', async () => {
    expect(out.export_results).toEqual(['SUCCESS', 'SUCCESS']);
    expect(out.spans.map((s) => s.name).sort()).toEqual(['execute_tool lookup', 'invoke_agent researcher', 'openai.chat']);
    await waitForLake(p, t.organizationId, 1);
    const credits = await admin<{ balance: number }>(p.host, 'GET', `/organizations/${t.organizationId}/credits`);
    expect(credits.body.balance).toBe(100_000 - 1); // exported twice, charged once
  });

  it('the session tree: timing from the spans, cost from the disjoint token classes', async () => {
    const byName = new Map(out.spans.map((s) => [s.name, s]));
    const agent = byName.get('invoke_agent researcher')!;
    const tool = byName.get('execute_tool lookup')!;
    const chat = byName.get('openai.chat')!;
    expect(tool.parent_span_id).toBe(agent.span_id);
    expect(chat.parent_span_id).toBe(tool.span_id);

    // OpenAI reports inclusive counts: cached input inside prompt_tokens, reasoning inside completion_tokens.
    const u = out.usage;
    const cached = u.prompt_tokens_details.cached_tokens;
    const reasoning = u.completion_tokens_details.reasoning_tokens;
    const cost = perToken(RATES.input)
      .times(u.prompt_tokens - cached)
      .plus(perToken(RATES.cacheRead).times(cached))
      .plus(perToken(RATES.output).times(u.completion_tokens - reasoning))
      .plus(perToken(RATES.reasoning).times(reasoning));
    expect(cost.toFixed()).toBe('0.0059'); // 800 × 2.5e-6 + 400 × 1.25e-6 + 300 × 1e-5 + 40 × 1e-5

    const res = await apiGet(p, t.readKey, `/attribution-data/sessions/${agent.trace_id}/tree`);
    expect(res.status).toBe(200);
    const node = (s: ScriptSpan, kind: string, own: string, subtree: string, children: unknown[]) => ({
      span_id: s.span_id,
      kind,
      own_cost: own,
      subtree_cost: subtree,
      started_at: new Date(ms(s.start_ns)).toISOString(),
      duration_ms: ms(s.end_ns) - ms(s.start_ns),
      orphaned: false,
      children,
    });
    const pick = (n: any): unknown => ({
      span_id: n.span_id,
      kind: n.kind,
      own_cost: n.own_cost,
      subtree_cost: n.subtree_cost,
      started_at: n.started_at,
      duration_ms: n.duration_ms,
      orphaned: n.orphaned,
      children: n.children.map(pick),
    });
    const c = cost.toFixed();
    expect(res.body.roots.map(pick)).toEqual([node(agent, 'agent', '0', c, [node(tool, 'tool', '0', c, [node(chat, 'llm', c, c, [])])])]);

    const events = await apiGet(p, t.readKey, '/usage/events', {
      start_date: new Date(ms(agent.start_ns) - 60_000).toISOString(),
      end_date: new Date(ms(agent.end_ns) + 60_000).toISOString(),
    });
    expect(events.body.total).toBe(1);
    expect(events.body.events[0].quantity).toBe(u.prompt_tokens - cached + (u.completion_tokens - reasoning));
    expect(events.body.events[0].metadata.provider).toBe('openai');
  });
});
