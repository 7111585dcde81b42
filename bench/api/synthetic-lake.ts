// The benchmark's synthetic lake: one large organization (default 5M events over 90 days) beside
// a few smaller ones, written straight through the processor's lake writer (DuckLakeWriter, not
// Kafka) into the open lake of the given settings, one flush (one DuckLake commit) per Kafka
// partition and UTC day. Deterministic (seeded), with the shape of real traffic: a skewed
// customer base, a fixed set of use cases (agent, workflow, feature, model) per customer,
// optional token classes, a few pending and failed events, and metadata with string and number
// dimensions.
import { endUserIdFor, eventIdFor } from '../../core/ids.js';
import { NO_PROVENANCE, type LakeEventRow } from '../../core/lake/events-schema.js';
import type { DimensionSource } from '../../core/lake/dimension-rollups.js';
import type { LakeSettings } from '../../core/lake/lake-settings.js';
import { DuckLakeWriter } from '../../processor/lake/ducklake-writer.js';

export const PARTITIONS = 4;
export const TEAMS = ['search', 'support', 'sales', 'growth', 'infra', 'research', 'mobile', 'web'];
const REGIONS = ['eu-west', 'us-east', 'us-west', 'ap-south'];
const FEATURES = ['chat', 'summarize', 'search', 'classify', 'extract', 'translate', 'draft', 'review', 'code', 'voice'];

/** Model, provider and USD-per-million rates in thousandths (so costs are integer nano-USD). */
const MODELS = [
  { model: 'gpt-4o-2024-08-06', provider: 'openai', input: 2500, output: 10000, cacheRead: 1250, reasoning: null },
  { model: 'gpt-4o-mini', provider: 'openai', input: 150, output: 600, cacheRead: 75, reasoning: null },
  { model: 'o3-mini', provider: 'openai', input: 1100, output: 4400, cacheRead: 550, reasoning: 4400 },
  { model: 'claude-sonnet-4', provider: 'anthropic', input: 3000, output: 15000, cacheRead: 300, reasoning: null },
  { model: 'claude-haiku-3.5', provider: 'anthropic', input: 800, output: 4000, cacheRead: 80, reasoning: null },
  { model: 'gemini-2.0-flash', provider: 'google', input: 100, output: 400, cacheRead: 25, reasoning: null },
];

const USE_CASES = Array.from({ length: 24 }, (_, i) => ({
  agent: `agent-${i % 12}`,
  workflow: `workflow-${i % 8}`,
  feature: FEATURES[i % FEATURES.length]!,
  model: MODELS[i % MODELS.length]!,
}));

/** xorshift32: fast and deterministic. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

/** Nano-USD (integer) → decimal string with 9 fractional digits. */
function nanoUsd(n: number): string {
  const whole = Math.floor(n / 1e9);
  return `${whole}.${String(n - whole * 1e9).padStart(9, '0')}`;
}

export interface OrgPlan {
  organizationId: string;
  events: number;
  /** Distinct end users (external ids user-0 … user-(n-1)). */
  endUsers: number;
}

export interface SyntheticLakeOptions {
  /** The open lake written (Config.lake, from loadConfig in this thread). */
  lake: LakeSettings;
  orgs: OrgPlan[];
  days: number;
  /** First UTC day (midnight). */
  firstDay: Date;
  onProgress?: (message: string) => void;
  /** Organizations' defined dimensions, rolled up by the writer as the processor does. */
  dimensions?: DimensionSource;
}

/** Writes the lake; returns rows written per organization. */
export async function writeSyntheticLake(opts: SyntheticLakeOptions): Promise<Map<string, number>> {
  const writer = await DuckLakeWriter.open(opts.lake, { dimensions: opts.dimensions });
  const written = new Map<string, number>();
  const offsets = new Array<number>(PARTITIONS).fill(0);
  const started = performance.now();
  let total = 0;
  try {
    for (let day = 0; day < opts.days; day++) {
      const dayStart = opts.firstDay.getTime() + day * 86_400_000;
      const byPartition: LakeEventRow[][] = Array.from({ length: PARTITIONS }, () => []);
      for (const [o, org] of opts.orgs.entries()) {
        const perDay = Math.floor(org.events / opts.days) + (day < org.events % opts.days ? 1 : 0);
        const random = rng(day * 7919 + o * 104729 + 1);
        // Kafka keys by organization, so one organization's events share one partition in
        // production; spreading the big one over all partitions is the harder case for readers.
        for (let i = 0; i < perDay; i++) {
          const p = o === 0 ? i % PARTITIONS : o % PARTITIONS;
          const row = syntheticRow(org, random, dayStart, p, offsets[p]!);
          offsets[p]!++;
          byPartition[p]!.push(row);
        }
        written.set(org.organizationId, (written.get(org.organizationId) ?? 0) + perDay);
      }
      for (let p = 0; p < PARTITIONS; p++) {
        const rows = byPartition[p]!.sort((a, b) => a.kafka_offset - b.kafka_offset);
        if (rows.length === 0) continue;
        await writer.flush(p, rows, offsets[p]!);
        total += rows.length;
      }
      if (day % 10 === 9 || day === opts.days - 1) {
        const s = (performance.now() - started) / 1000;
        opts.onProgress?.(`day ${day + 1}/${opts.days}: ${total} rows in ${s.toFixed(0)} s (${Math.round(total / s)} rows/s)`);
      }
    }
  } finally {
    await writer.close();
  }
  return written;
}

function syntheticRow(org: OrgPlan, random: () => number, dayStart: number, partition: number, offset: number): LakeEventRow {
  const ts = new Date(dayStart + Math.floor(random() * 86_400_000));
  // Skewed customers: a few large ones carry most of the traffic.
  const userIndex = Math.floor(org.endUsers * random() ** 3);
  const user = random() < 0.04 ? null : `user-${userIndex}`;
  const useCase = USE_CASES[(userIndex * 7 + Math.floor(random() * 3)) % USE_CASES.length]!;
  const m = useCase.model;
  const input = 200 + Math.floor(random() * 3800);
  const output = 50 + Math.floor(random() * 750);
  const cacheRead = random() < 0.3 ? Math.floor(random() * 2000) : null;
  const reasoning = m.reasoning !== null && random() < 0.5 ? Math.floor(random() * 1500) : null;
  const statusDraw = random();
  const status = statusDraw < 0.005 ? 'failed' : statusDraw < 0.02 ? 'pending_rate_card' : 'completed';
  const priced = status === 'completed';
  // tokens × (USD per million × 1000) = nano-USD.
  const inputCost = input * m.input;
  const outputCost = output * m.output;
  const cacheCost = cacheRead === null ? null : cacheRead * m.cacheRead;
  const reasoningCost = reasoning === null ? null : reasoning * m.reasoning!;
  const totalCost = inputCost + outputCost + (cacheCost ?? 0) + (reasoningCost ?? 0);
  const team = random() < 0.03 ? null : TEAMS[(userIndex + Math.floor(random() * 2)) % TEAMS.length]!;
  const metadata: Record<string, unknown> = {
    region: REGIONS[userIndex % REGIONS.length],
    latency_ms: Math.round(200 + random() * 5000) / 10,
    trace_id: `tr-${offset.toString(36)}-${partition}`,
  };
  if (team !== null) metadata.team = team;
  const key = `bench-${partition}-${offset}`;
  return {
    event_id: eventIdFor(org.organizationId, key),
    organization_id: org.organizationId,
    idempotency_key: key,
    api_key_id: 'bench-key',
    owner_user_id: null,
    subscription_id: null,
    received_at: ts,
    event_timestamp: ts,
    user_id: user,
    end_user_id: user === null ? null : endUserIdFor(org.organizationId, user),
    model: m.model,
    provider: m.provider,
    metric: null,
    unit: null,
    quantity: null,
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: cacheRead,
    reasoning_tokens: reasoning,
    input_cost: priced ? nanoUsd(inputCost) : null,
    output_cost: priced ? nanoUsd(outputCost) : null,
    cache_creation_cost: null,
    cache_read_cost: priced && cacheCost !== null ? nanoUsd(cacheCost) : null,
    reasoning_cost: priced && reasoningCost !== null ? nanoUsd(reasoningCost) : null,
    unit_cost: null,
    total_cost: priced ? nanoUsd(totalCost) : '0',
    cost_override: null,
    status,
    status_reason: priced ? null : status === 'failed' ? 'bench: failed' : 'bench: no rate card',
    rate_card_slug: priced ? m.model : null,
    session_id: null,
    span_id: null,
    parent_span_id: null,
    span_name: null,
    span_kind: null,
    started_at: null,
    timestamp_provided: true,
    agent_id: useCase.agent,
    workflow_id: useCase.workflow,
    feature: useCase.feature,
    metadata: JSON.stringify(metadata),
    flag_reason: null,
    kafka_partition: partition,
    kafka_offset: offset,
    priced_at: ts,
    service_tier: null,
    cache_creation_1h_input_tokens: null,
    cache_creation_1h_cost: null,
    ...NO_PROVENANCE,
  };
}
