// The synthetic usage event of the processor benchmarks (bench/processor, bench/lake): standard-card
// models, input/output/cache tokens, a session and span on every third, an agent and a feature,
// all derived from the event's number n so a run is repeatable. Where and for whom it happened
// (timestamp, end user, metadata) is the caller's: each benchmark spreads events its own way.
import { Partitioners } from 'kafkajs';
import type { ControlDb } from '../../core/control/db.js';
import { createOrganization } from '../../core/control/organizations.js';
import { endUserIdFor } from '../../core/ids.js';
import { USAGE_EVENTS_TOPIC } from '../../core/kafka/client.js';
import type { UsageEvent } from '../../schemas/usage-event.js';
import { usageEvent } from '../../test/support/usage-event-builder.js';

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'gpt-4.1-mini', 'gemini-2.5-flash'];

export function benchUsageEvent(org: string, n: number, at: { timestamp: Date; user: string; metadata: string }): UsageEvent {
  return usageEvent({
    organization_id: org,
    idempotency_key: `bench-${n}`,
    api_key_id: 'bench-key',
    timestamp: at.timestamp,
    user_id: at.user,
    end_user_id: endUserIdFor(org, at.user),
    model: MODELS[n % MODELS.length]!,
    input_tokens: 500 + (n % 1500),
    output_tokens: 50 + (n % 400),
    cache_read_input_tokens: n % 4 === 0 ? 100 : null,
    session_id: n % 3 === 0 ? `sess-${Math.floor(n / 30)}` : null,
    span_id: n % 3 === 0 ? `span-${n % 10}` : null,
    agent_id: `agent-${n % 7}`,
    feature: n % 2 ? 'chat' : 'search',
    metadata: at.metadata,
  });
}

/**
 * `count` organizations spread evenly over `partitions` (key = organization id, murmur2 as the
 * producers use), so a drain measures the processor, not one overloaded partition.
 */
export async function spreadOrganizations(db: ControlDb, count: number, partitions: number, namePrefix: string): Promise<string[]> {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
    offlineReplicas: [],
    partitionErrorCode: 0,
  }));
  const perPartition = new Map<number, number>();
  const wanted = Math.ceil(count / partitions);
  const organizations: string[] = [];
  for (let i = 0; organizations.length < count; i++) {
    const org = (await createOrganization(db, { name: `${namePrefix}-${i}` })).id;
    const p = partitioner({ topic: USAGE_EVENTS_TOPIC, partitionMetadata, message: { key: org, value: null } });
    if ((perPartition.get(p) ?? 0) >= wanted) continue;
    perPartition.set(p, (perPartition.get(p) ?? 0) + 1);
    organizations.push(org);
  }
  return organizations;
}
