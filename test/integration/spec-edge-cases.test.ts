// Spec edge cases of issue 16 over HTTP, against the real service (ingest + processor + api on one
// host, real broker and registry), each quoting the spec. Ingest here caches organization settings
// for a minute, as a busy replica would, so only an explicit invalidation makes an admin change
// visible to the next request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { apiComponent } from '../../api/component.js';
import { createIngest } from '../../ingest/component.js';
import { startProcessor } from '../../processor/component.js';
import { admin, startTestHost } from '../support/http.js';
import { signedPost } from '../support/ingest-harness.js';
import { apiGet, createTenant, llmEvent, testHostLake, waitForLake, type Pipeline } from '../support/pipeline.js';

let p: Pipeline;

beforeAll(async () => {
  const lake = await testHostLake();
  const host = await startTestHost({
    components: [createIngest({ settingsTtlMs: 60_000, sweeper: { intervalMs: 60_000 } }), startProcessor, apiComponent({})],
    infra: { kafkaBrokers: inject('kafkaBrokers').split(','), schemaRegistryUrl: inject('schemaRegistryUrl') },
    env: {
      RATE_LIMIT_READ_PER_15_MINUTES: '100000',
      RATE_LIMIT_INGEST_PER_MINUTE: '100000',
      PROCESSOR_FLUSH_MAX_DELAY_MS: '200',
      ...lake.env,
    },
  });
  p = { host, url: host.url, lakeDir: lake.mark(host.dataDir), stop: () => host.stop() };
});
afterAll(async () => {
  await p?.stop();
});

describe('ingestion', () => {
  it('"Retrying later with the same idempotency_key is safe": an accepted key answers 202 with its event_id after the subscription became inactive', async () => {
    const t = await createTenant(p, { name: 'inactive-later' });
    const first = await signedPost(p.url, t.writer, '/v1/usage-events', llmEvent('kept-1'));
    expect(first.status).toBe(202);
    const patched = await admin(p.host, 'PATCH', `/organizations/${t.organizationId}/subscriptions/${t.subscriptionId}`, {
      status: 'canceled',
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);

    const retry = await signedPost(p.url, t.writer, '/v1/usage-events', llmEvent('kept-1'));
    expect(retry.status, JSON.stringify(retry.body)).toBe(202);
    expect(retry.body.event_id).toBe(first.body.event_id);
    // A new key is refused at once: the admin change reached this process's ingest cache.
    const fresh = await signedPost(p.url, t.writer, '/v1/usage-events', llmEvent('new-1'));
    expect(fresh.status).toBe(402);
    expect(fresh.body.error.code).toBe('SUBSCRIPTION_INACTIVE');
    // In a batch, the same: the accepted key answers its 202 body, the new one its 402.
    const batch = await signedPost(p.url, t.writer, '/v1/usage-events/batch', { events: [llmEvent('kept-1'), llmEvent('new-2')] });
    expect(batch.body.results[0].event_id).toBe(first.body.event_id);
    expect(batch.body.results[1].error.code).toBe('SUBSCRIPTION_INACTIVE');
  });

  it('"Events missing a dimension key marked is_required are rejected": enforced by the next request after the admin API defines it', async () => {
    const t = await createTenant(p, { name: 'required-dimension' });
    expect((await signedPost(p.url, t.writer, '/v1/usage-events', llmEvent('before'))).status).toBe(202);
    const dim = await admin(p.host, 'POST', `/organizations/${t.organizationId}/dimensions`, {
      key: 'team',
      name: 'Team',
      value_type: 'string',
      is_required: true,
    });
    expect(dim.status, JSON.stringify(dim.body)).toBe(201);
    const missing = await signedPost(p.url, t.writer, '/v1/usage-events', llmEvent('after'));
    expect(missing.status, JSON.stringify(missing.body)).toBe(400);
    expect(missing.body.error.details.field).toBe('metadata.team');
    expect((await signedPost(p.url, t.writer, '/v1/usage-events', llmEvent('after-ok', { metadata: { team: 'search' } }))).status).toBe(
      202,
    );
  });
});

describe('sessions', () => {
  it('"sessionId … the session_id metadata value": metadata.session_id builds the tree; the top-level field wins', async () => {
    const t = await createTenant(p, {
      name: 'meta-session',
      rateCards: [
        { model_slug: 'gpt-4o', input_cost_per_million: '2', output_cost_per_million: '8', effective_from: '2024-01-01T00:00:00Z' },
      ],
    });
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const events = [
      llmEvent('s-1', { timestamp: at, span_id: 'root', metadata: { session_id: 'meta-sess' } }),
      llmEvent('s-2', { timestamp: at, span_id: 'child', parent_span_id: 'root', metadata: { session_id: 'meta-sess' } }),
      llmEvent('s-3', { timestamp: at, span_id: 'elsewhere', session_id: 'top-sess', metadata: { session_id: 'meta-sess' } }),
    ];
    for (const e of events) expect((await signedPost(p.url, t.writer, '/v1/usage-events', e)).status).toBe(202);
    await waitForLake(p, t.organizationId, 3);
    const tree = await apiGet(p, t.readKey, '/attribution-data/sessions/meta-sess/tree');
    expect(tree.status, JSON.stringify(tree.body)).toBe(200);
    expect(tree.body.span_count).toBe(2);
    expect(tree.body.roots.map((r: { span_id: string }) => r.span_id)).toEqual(['root']);
    expect(tree.body.roots[0].children.map((c: { span_id: string }) => c.span_id)).toEqual(['child']);
    // Each event costs 100 × 2/1e6 + 10 × 8/1e6 = 0.00028; the tree holds two of them.
    expect(tree.body.roots[0].subtree_cost).toBe('0.00056');
    const top = await apiGet(p, t.readKey, '/attribution-data/sessions/top-sess/tree');
    expect(top.body.span_count).toBe(1);
  });
});
