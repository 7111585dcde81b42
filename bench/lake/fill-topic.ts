import { SCOPES } from '../../core/auth/scopes.js';
import { issueApiKey } from '../../core/control/api-keys.js';
import type { ControlDb } from '../../core/control/db.js';
import { createDimension } from '../../core/control/dimensions.js';
import { upsertEndUsers } from '../../core/control/end-users.js';
import { USAGE_EVENTS_TOPIC, type createKafka } from '../../core/kafka/client.js';
import type { createUsageEventCodec } from '../../core/registry/usage-event-codec.js';
import type { UsageEvent } from '../../schemas/usage-event.js';
import { END_USERS, FIRST_DAY } from '../api/bench-lake.js';
import { benchUsageEvent, spreadOrganizations } from '../processor/bench-event.js';

const TEAMS = ['sales', 'support', 'research', 'platform', 'growth', 'ops', 'legal'];
const REGIONS = ['eu', 'us', 'apac'];

export interface BenchOrganizations {
  /** Every organization; the first is the one bench/api's questions read. */
  organizations: string[];
  readApiKey: string;
}

/** `count` organizations, `count / partitions` on each partition (key = organization id, murmur2). */
export async function createBenchOrganizations(
  db: ControlDb,
  masterKey: Buffer,
  count: number,
  partitions: number,
): Promise<BenchOrganizations> {
  const organizations = await spreadOrganizations(db, count, partitions, 'bench-lake');
  const reader = organizations[0]!;
  const key = await issueApiKey(db, masterKey, reader, { scopes: SCOPES.filter((s) => s !== 'usage:write') });
  await createDimension(db, reader, { key: 'team', name: 'Team', valueType: 'string' });
  await createDimension(db, reader, { key: 'region', name: 'Region', valueType: 'string' });
  await createDimension(db, reader, { key: 'latency_ms', name: 'Latency (ms)', valueType: 'number' });
  await upsertEndUsers(
    db,
    reader,
    Array.from({ length: END_USERS }, (_, i) => `user-${i}`),
  );
  return { organizations, readApiKey: key.apiKey };
}

/** Event n of the benchmark: bench/processor's shape, spread over `days` days from bench/api's first day. */
export function lakeBenchEvent(org: string, n: number, days: number): UsageEvent {
  return benchUsageEvent(org, n, {
    timestamp: new Date(FIRST_DAY.getTime() + ((n * 7919) % (days * 86_400)) * 1000),
    user: `user-${n % END_USERS}`,
    metadata: JSON.stringify({ team: TEAMS[n % TEAMS.length], region: REGIONS[n % REGIONS.length], latency_ms: 100 + (n % 900) }),
  });
}

/** Produces `events` events round-robin over the organizations; returns the seconds it took. */
export async function fillTopic(
  kafka: ReturnType<typeof createKafka>,
  codec: Awaited<ReturnType<typeof createUsageEventCodec>>,
  organizations: string[],
  events: number,
  days: number,
): Promise<number> {
  const producer = kafka.producer();
  await producer.connect();
  const started = performance.now();
  const CHUNK = 5_000;
  try {
    for (let i = 0; i < events; i += CHUNK) {
      const messages = await Promise.all(
        Array.from({ length: Math.min(CHUNK, events - i) }, async (_, j) => {
          const e = lakeBenchEvent(organizations[(i + j) % organizations.length]!, i + j, days);
          return { key: e.organization_id, value: await codec.encode(e) };
        }),
      );
      await producer.send({ topic: USAGE_EVENTS_TOPIC, acks: -1, messages });
    }
  } finally {
    await producer.disconnect();
  }
  return (performance.now() - started) / 1000;
}
