// Group commit must not let one request fail its neighbours (issue 16): events that share a
// reservation transaction with a member the control plane refuses (here a NUL in the idempotency
// key or end-user id, which PostgreSQL text cannot hold; validation refuses both at the door, so
// this drives the committer directly) are reserved, charged and published as if alone; only the
// refused member fails. Real control plane (PGlite and PostgreSQL), real Kafka on a private topic.
import crypto from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { getCreditBalance } from '../../core/control/credits.js';
import { getEndUserByExternalId } from '../../core/control/end-users.js';
import { eventIdFor } from '../../core/ids.js';
import { createIdempotentProducer, createKafka } from '../../core/kafka/client.js';
import { createLogger } from '../../core/logger.js';
import { KafkaEventPublisher } from '../../ingest/event-publisher.js';
import { GroupCommitter, type PendingEvent } from '../../ingest/group-commit.js';
import { createTestTenant, describeEachControlDb } from '../support/control-db.js';
import { createPrivateTopic } from '../support/processor-fixtures.js';

const brokers = inject('kafkaBrokers').split(',');
const kafka = createKafka(brokers, 'group-commit-isolation-test', { logLevel: 'error' });
const producer = createIdempotentProducer(kafka);
let topic: string;

beforeAll(async () => {
  topic = await createPrivateTopic(kafka, 1);
  await producer.connect();
});
afterAll(async () => {
  await producer.disconnect();
});

function pending(organizationId: string, idempotencyKey: string, userId: string | null = null): PendingEvent {
  return {
    organizationId,
    idempotencyKey,
    eventId: eventIdFor(organizationId, idempotencyKey.replaceAll('\u0000', '')),
    payload: Buffer.from(`record ${crypto.randomUUID()}`),
    flagReason: null,
    userId,
  };
}

describeEachControlDb('group commit isolates a member the transaction refuses', ({ db }) => {
  it('the neighbours of a refused member in the same group are accepted and charged once each', async () => {
    const alice = await createTestTenant(db(), { credits: 10 });
    const mallory = await createTestTenant(db(), { credits: 10 });
    const committer = new GroupCommitter(db(), new KafkaEventPublisher(producer, topic), createLogger('silent'));
    // Submitted in one turn of the event loop, so all five share one reservation transaction.
    const outcomes = await committer.submit([
      pending(alice.organizationId, 'a-1', 'alice-user'),
      pending(mallory.organizationId, 'bad\u0000key'),
      pending(alice.organizationId, 'a-2'),
      pending(mallory.organizationId, 'm-ok', 'bad\u0000user'),
      pending(alice.organizationId, 'a-3'),
    ]);
    await committer.close();

    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true, false, true]);
    for (const o of outcomes) if (!o.ok) expect(o.error.status).toBe(503);
    // Alice paid three credits, Mallory none (both of hers were refused and rolled back).
    expect(await getCreditBalance(db(), alice.organizationId)).toBe(7);
    expect(await getCreditBalance(db(), mallory.organizationId)).toBe(10);
    const rows = await db().query<{ idempotency_key: string; state: string }>(
      'SELECT idempotency_key, state FROM ingest_ledger_states WHERE organization_id IN ($1, $2) ORDER BY idempotency_key',
      [alice.organizationId, mallory.organizationId],
    );
    expect(rows).toEqual([
      { idempotency_key: 'a-1', state: 'published' },
      { idempotency_key: 'a-2', state: 'published' },
      { idempotency_key: 'a-3', state: 'published' },
    ]);
  });

  it('a group whose members are all fine is still one transaction', async () => {
    const bob = await createTestTenant(db(), { credits: 5 });
    const committer = new GroupCommitter(db(), new KafkaEventPublisher(producer, topic), createLogger('silent'));
    const outcomes = await committer.submit([pending(bob.organizationId, 'b-1'), pending(bob.organizationId, 'b-2')]);
    await committer.close();
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const [groups] = await db().query<{ n: string }>(
      `SELECT count(DISTINCT group_id)::text AS n FROM ingest_ledger WHERE organization_id = $1`,
      [bob.organizationId],
    );
    expect(groups!.n).toBe('1');
  });
});

describeEachControlDb('a failed publish (503, credit refunded) leaves no end user behind', ({ db }) => {
  // A topic that does not exist, on a producer that may not create it: every send fails, as with
  // Kafka unavailable, so the committer releases the reservations and answers 503.
  // Its own client, silent: the refused sends are expected, their error logs would only be noise.
  const quietKafka = new Kafka({ clientId: 'group-commit-isolation-broken', brokers, logLevel: logLevel.NOTHING });
  const brokenProducer = createIdempotentProducer(quietKafka, {
    allowAutoTopicCreation: false,
    retry: { retries: 1, initialRetryTime: 100 },
  });
  beforeAll(async () => {
    await brokenProducer.connect();
  });
  afterAll(async () => {
    await brokenProducer.disconnect();
  });

  it('the end user first named by an event that was not queued does not exist; one named by an accepted event stays', async () => {
    const carol = await createTestTenant(db(), { credits: 10 });
    const working = new GroupCommitter(db(), new KafkaEventPublisher(producer, topic), createLogger('silent'));
    expect((await working.submit([pending(carol.organizationId, 'ok-1', 'real-user')]))[0]!.ok).toBe(true);
    await working.close();

    const failing = new GroupCommitter(
      db(),
      new KafkaEventPublisher(brokenProducer, `missing-${crypto.randomUUID()}`),
      createLogger('silent'),
    );
    const outcomes = await failing.submit([
      pending(carol.organizationId, 'lost-1', 'ghost-user'),
      pending(carol.organizationId, 'lost-2', 'real-user'),
    ]);
    await failing.close();
    expect(outcomes.map((o) => (o.ok ? 202 : o.error.status))).toEqual([503, 503]);
    expect(await getCreditBalance(db(), carol.organizationId)).toBe(9);
    expect(await getEndUserByExternalId(db(), carol.organizationId, 'ghost-user')).toBeNull();
    expect(await getEndUserByExternalId(db(), carol.organizationId, 'real-user')).not.toBeNull();
  });
});
