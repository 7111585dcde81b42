// The synthetic usage event of the processor benchmarks (bench/processor, bench/lake): standard-card
// models, input/output/cache tokens, a session and span on every third, an agent and a feature,
// all derived from the event's number n so a run is repeatable. Where and for whom it happened
// (timestamp, end user, metadata) is the caller's: each benchmark spreads events its own way.
import { endUserIdFor } from '../../core/ids.js';
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
