// The OTLP capability's control-plane SQL on both control planes (PGlite and real PostgreSQL):
// structural spans are stored once per span however often an export is re-sent, read back by
// session with their timing; attribute mappings are replaced whole and read back by attribute.
import { expect, it } from 'vitest';
import { listAttributeMappings, replaceAttributeMappings } from '../../otlp/attribute-mappings.store.js';
import type { StructuralSpan } from '../../otlp/span-mapping.js';
import { storeStructuralSpans, structuralSpansOfSession } from '../../otlp/structural-spans.store.js';
import { createTestTenant, describeEachControlDb } from '../support/control-db.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, s));

function span(spanId: string, fields: Partial<StructuralSpan> = {}): StructuralSpan {
  return { traceId: TRACE, spanId, parentSpanId: null, sessionId: 'conv-1', name: `span ${spanId}`, kind: 'agent', agentId: 'planner', startedAt: at(0), endedAt: at(5), ...fields };
}

describeEachControlDb('OTLP control-plane stores', ({ db }) => {
  it('structural spans: a re-sent export stores nothing new; read by session, organization first', async () => {
    const t = await createTestTenant(db());
    const other = await createTestTenant(db());
    const first = [span('00000000000000a1'), span('00000000000000a2', { parentSpanId: '00000000000000a1', kind: 'tool', agentId: null, name: '', startedAt: at(1), endedAt: at(3) })];
    await storeStructuralSpans(db(), t.organizationId, first);
    // The same spans again (a retried export), plus one of another session and one of another organization.
    await storeStructuralSpans(db(), t.organizationId, [...first, span('00000000000000b1', { sessionId: 'conv-2' })]);
    await storeStructuralSpans(db(), other.organizationId, [span('00000000000000c1')]);
    expect(await structuralSpansOfSession(db(), t.organizationId, 'conv-1')).toEqual([
      { span_id: '00000000000000a1', parent_span_id: null, span_name: 'span 00000000000000a1', span_kind: 'agent', agent_id: 'planner', started_at: at(0), ended_at: at(5) },
      { span_id: '00000000000000a2', parent_span_id: '00000000000000a1', span_name: null, span_kind: 'tool', agent_id: null, started_at: at(1), ended_at: at(3) },
    ]);
    expect(await structuralSpansOfSession(db(), t.organizationId, 'conv-3')).toEqual([]);
    expect((await structuralSpansOfSession(db(), other.organizationId, 'conv-1')).map((s) => s.span_id)).toEqual(['00000000000000c1']);
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
