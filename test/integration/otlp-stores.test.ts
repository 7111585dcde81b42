// The OTLP capability's control-plane SQL on both control planes (PGlite and real PostgreSQL):
// structural spans are stored once per span however often an export is re-sent, read back by
// session with their timing; attribute mappings are replaced whole and read back by attribute.
import { expect, it } from 'vitest';
import { listAttributeMappings, replaceAttributeMappings } from '../../otlp/attribute-mappings.store.js';
import type { StructuralSpan } from '../../otlp/span-mapping.js';
import { storeStructuralSpans, structuralSessionSummaries, structuralSpansOfSession } from '../../otlp/structural-spans.store.js';
import { StructuralSpanRetention } from '../../otlp/structural-span-retention.js';
import { createLogger } from '../../core/logger.js';
import { createTestTenant, describeEachControlDb } from '../support/control-db.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, s));

function span(spanId: string, fields: Partial<StructuralSpan> = {}): StructuralSpan {
  return {
    traceId: TRACE,
    spanId,
    parentSpanId: null,
    sessionId: 'conv-1',
    name: `span ${spanId}`,
    kind: 'agent',
    agentId: 'planner',
    startedAt: at(0),
    endedAt: at(5),
    ...fields,
  };
}

describeEachControlDb('OTLP control-plane stores', ({ db }) => {
  it('structural spans: a re-sent export stores nothing new; read by session, organization first', async () => {
    const t = await createTestTenant(db());
    const other = await createTestTenant(db());
    const first = [
      span('00000000000000a1'),
      span('00000000000000a2', {
        parentSpanId: '00000000000000a1',
        kind: 'tool',
        agentId: null,
        name: '',
        startedAt: at(1),
        endedAt: at(3),
      }),
    ];
    await storeStructuralSpans(db(), t.organizationId, first);
    // The same spans again (a retried export), plus one of another session and one of another organization.
    await storeStructuralSpans(db(), t.organizationId, [...first, span('00000000000000b1', { sessionId: 'conv-2' })]);
    await storeStructuralSpans(db(), other.organizationId, [span('00000000000000c1')]);
    expect(await structuralSpansOfSession(db(), t.organizationId, 'conv-1')).toEqual([
      {
        span_id: '00000000000000a1',
        parent_span_id: null,
        span_name: 'span 00000000000000a1',
        span_kind: 'agent',
        agent_id: 'planner',
        started_at: at(0),
        ended_at: at(5),
      },
      {
        span_id: '00000000000000a2',
        parent_span_id: '00000000000000a1',
        span_name: null,
        span_kind: 'tool',
        agent_id: null,
        started_at: at(1),
        ended_at: at(3),
      },
    ]);
    expect(await structuralSpansOfSession(db(), t.organizationId, 'conv-3')).toEqual([]);
    expect((await structuralSpansOfSession(db(), other.organizationId, 'conv-1')).map((s) => s.span_id)).toEqual(['00000000000000c1']);
  });

  it('session summaries: distinct spans and first start to last end per session, organization first, optionally some sessions', async () => {
    const t = await createTestTenant(db());
    const other = await createTestTenant(db());
    await storeStructuralSpans(db(), t.organizationId, [
      // Milliseconds survive the round trip (times go to the control plane as Unix milliseconds).
      span('00000000000000a1', { startedAt: new Date(at(10).getTime() + 987), endedAt: at(20) }),
      span('00000000000000a2', { startedAt: at(12), endedAt: at(30) }),
      // The same span id in another trace of the session: one span (the first stored), as the tree shows it.
      span('00000000000000a2', { traceId: 'ffff651916cd43dd8448eb211c80319c', startedAt: at(13), endedAt: at(14) }),
      span('00000000000000b1', { sessionId: 'conv-2', startedAt: at(40), endedAt: at(41) }),
    ]);
    await storeStructuralSpans(db(), other.organizationId, [span('00000000000000c1')]);
    const bySession = (rows: Awaited<ReturnType<typeof structuralSessionSummaries>>) =>
      rows.sort((a, b) => a.session_id.localeCompare(b.session_id));
    expect(bySession(await structuralSessionSummaries(db(), t.organizationId))).toEqual([
      { session_id: 'conv-1', span_count: 2, first_ms: at(10).getTime() + 987, last_ms: at(30).getTime() },
      { session_id: 'conv-2', span_count: 1, first_ms: at(40).getTime(), last_ms: at(41).getTime() },
    ]);
    expect(await structuralSessionSummaries(db(), t.organizationId, ['conv-2', 'conv-9'])).toEqual([
      { session_id: 'conv-2', span_count: 1, first_ms: at(40).getTime(), last_ms: at(41).getTime() },
    ]);
  });

  it('retention: spans received before now − the retention days go, in chunks; newer ones and 0 days keep', async () => {
    const t = await createTestTenant(db());
    const spans = ['01', '02', '03', '04', '05'].map((n) => span(`00000000000000${n}`, { sessionId: 'conv-retained' }));
    await storeStructuralSpans(db(), t.organizationId, spans);
    const now = new Date();
    const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
    // Received 31 days ago (three of them), exactly 30 days ago (kept: strictly before the cutoff goes) and now.
    await db().query(`UPDATE otlp_structural_spans SET received_at = $3 WHERE organization_id = $1 AND span_id = ANY($2::text[])`, [
      t.organizationId,
      ['0000000000000001', '0000000000000002', '0000000000000003'],
      daysAgo(31),
    ]);
    await db().query(`UPDATE otlp_structural_spans SET received_at = $3 WHERE organization_id = $1 AND span_id = $2`, [
      t.organizationId,
      '0000000000000004',
      daysAgo(30),
    ]);
    const logger = createLogger('silent');
    const keepAll = new StructuralSpanRetention(db(), logger, { retentionDays: 0, intervalMs: 60_000, chunk: 2, firstPassAfterMs: 60_000 });
    expect(await keepAll.sweepOnce(now)).toBe(0);
    const retention = new StructuralSpanRetention(db(), logger, {
      retentionDays: 30,
      intervalMs: 60_000,
      chunk: 2,
      firstPassAfterMs: 60_000,
    });
    // Chunks of 2: 2 + 1 deleted, then a short chunk ends the pass.
    expect(await retention.sweepOnce(now)).toBe(3);
    expect((await structuralSpansOfSession(db(), t.organizationId, 'conv-retained')).map((s) => s.span_id)).toEqual([
      '0000000000000004',
      '0000000000000005',
    ]);
    expect(await retention.sweepOnce(now)).toBe(0);
  });

  it('attribute mappings: replaced whole, listed by attribute', async () => {
    const t = await createTestTenant(db());
    await replaceAttributeMappings(db(), t.organizationId, [
      { attribute: 'service.name', metadata_key: 'service' },
      { attribute: 'deployment.environment', metadata_key: 'env' },
    ]);
    expect(await listAttributeMappings(db(), t.organizationId)).toEqual([
      { attribute: 'deployment.environment', metadata_key: 'env' },
      { attribute: 'service.name', metadata_key: 'service' },
    ]);
    await replaceAttributeMappings(db(), t.organizationId, []);
    expect(await listAttributeMappings(db(), t.organizationId)).toEqual([]);
  });
});
