// Session call trees and the sessions list through the whole pipeline (signed ingest → Kafka →
// processor → lake → api). Every event's cost is a cost_override, so each expected figure below is
// worked out by hand from the events the test sends; the cost invariant is checked against the
// sum of those events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../core/money.js';
import {
  apiGet,
  createTenant,
  ingest,
  issueKey,
  startPipeline,
  waitForLake,
  type EventBody,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';

// Second-aligned, three hours ago: every test instant is T0 plus an offset.
const T0 = Math.floor((Date.now() - 3 * 3_600_000) / 1000) * 1000;
const iso = (offsetMs: number) => new Date(T0 + offsetMs).toISOString();
const s = (seconds: number) => seconds * 1000;

interface SpanEventSpec {
  session: string;
  span?: string;
  parent?: string;
  name?: string;
  kind?: string;
  agent?: string;
  /** Offsets from T0 in ms; `end` undefined = no timestamp sent (the time of receipt is used). */
  start?: number;
  end?: number;
  cost: string;
}

let seq = 0;
const sent: Array<{ session: string; cost: string }> = [];

function spanEvent(e: SpanEventSpec): EventBody {
  sent.push({ session: e.session, cost: e.cost });
  return {
    idempotency_key: `sess-${seq++}`,
    model: 'gpt-4o',
    input_tokens: 1,
    output_tokens: 1,
    cost_override: e.cost,
    session_id: e.session,
    ...(e.span !== undefined ? { span_id: e.span } : {}),
    ...(e.parent !== undefined ? { parent_span_id: e.parent } : {}),
    ...(e.name !== undefined ? { span_name: e.name } : {}),
    ...(e.kind !== undefined ? { span_kind: e.kind } : {}),
    ...(e.agent !== undefined ? { agent_id: e.agent } : {}),
    ...(e.start !== undefined ? { started_at: iso(e.start) } : {}),
    ...(e.end !== undefined ? { timestamp: iso(e.end) } : {}),
  };
}

const flatTotal = (session: string) =>
  sent
    .filter((e) => e.session === session)
    .reduce((t, e) => t.plus(e.cost), new Big(0))
    .toFixed();

/** Every node, depth first. */
function allNodes(tree: any): any[] {
  const out: any[] = [];
  const walk = (n: any) => {
    out.push(n);
    n.children.forEach(walk);
  };
  tree.roots.forEach(walk);
  return out;
}

function node(tree: any, id: string): any {
  const n = allNodes(tree).find((x) => x.span_id === id);
  if (!n) throw new Error(`no node ${id}`);
  return n;
}

function expectInvariant(tree: any, session: string): void {
  const sum = tree.roots
    .reduce((t: Big, r: any) => t.plus(r.subtree_cost), new Big(0))
    .plus(tree.untraced.total_cost)
    .plus(tree.withheld.total_cost);
  expect(sum.toFixed()).toBe(flatTotal(session));
}

let p: Pipeline;
let t: Tenant;
let other: Tenant;
const testStart = Date.now();

beforeAll(async () => {
  p = await startPipeline();
  t = await createTenant(p, { name: 'sessions' });
  other = await createTenant(p, { name: 'other' });

  const events: EventBody[] = [
    // S-basic: a root with four children (two overlapping, two untimed), a grandchild, an
    // orphan, a three-span cycle and two untraced events.
    spanEvent({ session: 'S-basic', span: 'R', name: 'plan', kind: 'agent', agent: 'planner', start: 0, end: s(10), cost: '0.1' }),
    spanEvent({ session: 'S-basic', span: 'A', parent: 'R', kind: 'llm', start: s(1), end: s(3), cost: '0.05' }),
    spanEvent({ session: 'S-basic', span: 'A', parent: 'R', kind: 'llm', start: s(2), end: s(5), cost: '0.15' }),
    spanEvent({ session: 'S-basic', span: 'B', parent: 'R', kind: 'tool', name: 'search', start: s(1), end: s(6), cost: '0.3' }),
    spanEvent({ session: 'S-basic', span: 'C', parent: 'A', end: s(4), cost: '0.01' }), // no started_at: untimed
    spanEvent({ session: 'S-basic', span: 'D', parent: 'R', start: s(2), cost: '0.02' }), // no timestamp sent: untimed
    spanEvent({ session: 'S-basic', span: 'E', parent: 'R', start: s(9), end: s(8), cost: '0.03' }), // ends before it starts: untimed
    spanEvent({ session: 'S-basic', span: 'O', parent: 'ghost', start: s(3), end: s(4), cost: '0.07' }),
    spanEvent({ session: 'S-basic', span: 'X', parent: 'Z', start: s(2), end: s(3), cost: '0.002' }),
    spanEvent({ session: 'S-basic', span: 'Y', parent: 'X', start: 500, end: s(1), cost: '0.001' }),
    spanEvent({ session: 'S-basic', span: 'Z', parent: 'Y', start: s(3), end: s(4), cost: '0.004' }),
    spanEvent({ session: 'S-basic', end: s(1), cost: '0.004' }),
    spanEvent({ session: 'S-basic', end: s(2), cost: '0.006' }),
    // S-deep: a 40-deep chain c0 ← c1 ← … ← c39, c_i over [i, i+1] s costing (i+1)/1000; c0 has a
    // second event a day earlier (another lake date) costing 0.5.
    ...Array.from({ length: 40 }, (_, i) =>
      spanEvent({
        session: 'S-deep',
        span: `c${i}`,
        parent: i === 0 ? undefined : `c${i - 1}`,
        start: s(i),
        end: s(i + 1),
        cost: new Big(i + 1).div(1000).toFixed(),
      }),
    ),
    spanEvent({ session: 'S-deep', span: 'c0', start: s(-86_400), end: s(-86_390), cost: '0.5' }),
    // S-big: a root over [0, 600] s and 509 children k000..k508, child k over [k+1, k+2] s, each
    // 0.01; one untraced event at 700 s costing 0.5.
    spanEvent({ session: 'S-big', span: 'big-root', start: 0, end: s(600), cost: '0.01' }),
    ...Array.from({ length: 509 }, (_, k) =>
      spanEvent({
        session: 'S-big',
        span: `k${String(k).padStart(3, '0')}`,
        parent: 'big-root',
        start: s(k + 1),
        end: s(k + 2),
        cost: '0.01',
      }),
    ),
    spanEvent({ session: 'S-big', end: s(700), cost: '0.5' }),
  ];
  await ingest(p, t, events);
  await waitForLake(p, t.organizationId, events.length);
  // The other tenant has a session of the same name, so isolation is visible.
  await ingest(p, other, [
    { idempotency_key: 'o-1', model: 'gpt-4o', input_tokens: 1, output_tokens: 1, cost_override: '9', session_id: 'S-other', span_id: 'R' },
  ]);
  await waitForLake(p, other.organizationId, 1);
});

afterAll(async () => {
  await p?.stop();
});

describe('GET /attribution-data/sessions/{sessionId}/tree', () => {
  it('builds the tree with orphans, cycles, timing, overlaps and untraced events, every field by hand', async () => {
    const res = await apiGet(p, t.readKey, '/attribution-data/sessions/S-basic/tree');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tree = res.body;
    // Roots: R 0.1 + A 0.2 + C 0.01 + B 0.3 + D 0.02 + E 0.03 = 0.66; O 0.07; Y (cycle) 0.007.
    expect(tree.roots.map((r: any) => [r.span_id, r.subtree_cost])).toEqual([
      ['R', '0.66'],
      ['O', '0.07'],
      ['Y', '0.007'],
    ]);
    expect(tree.roots[0]).toMatchObject({
      span_id: 'R',
      parent_span_id: null,
      name: 'plan',
      kind: 'agent',
      agent_id: 'planner',
      own_cost: '0.1',
      subtree_cost: '0.66',
      event_count: 1,
      depth: 0,
      orphaned: false,
      started_at: iso(0),
      duration_ms: 10_000,
      overlapped_by_sibling: false,
    });
    expect(tree.roots[0]).not.toHaveProperty('cycle');
    // R's children by subtree cost: B 0.3, A 0.21 (0.2 + C), E 0.03, D 0.02.
    expect(tree.roots[0].children.map((c: any) => [c.span_id, c.subtree_cost, c.depth])).toEqual([
      ['B', '0.3', 1],
      ['A', '0.21', 1],
      ['E', '0.03', 1],
      ['D', '0.02', 1],
    ]);
    // A spans its two events [1, 3] and [2, 5]; B [1, 6] started no later and ended later.
    expect(node(tree, 'A')).toMatchObject({
      own_cost: '0.2',
      event_count: 2,
      started_at: iso(s(1)),
      duration_ms: 4000,
      overlapped_by_sibling: true,
      kind: 'llm',
      name: null,
    });
    expect(node(tree, 'B')).toMatchObject({
      own_cost: '0.3',
      started_at: iso(s(1)),
      duration_ms: 5000,
      overlapped_by_sibling: false,
      name: 'search',
      kind: 'tool',
    });
    for (const untimed of ['C', 'D', 'E']) {
      expect(node(tree, untimed)).toMatchObject({ started_at: null, duration_ms: null, overlapped_by_sibling: false });
    }
    expect(node(tree, 'C')).toMatchObject({ parent_span_id: 'A', depth: 2, own_cost: '0.01', subtree_cost: '0.01', children: [] });
    // The orphan: parent "ghost" is not in the session. Inside R's [0, 10] → overlapped.
    expect(tree.roots[1]).toMatchObject({
      parent_span_id: 'ghost',
      orphaned: true,
      depth: 0,
      started_at: iso(s(3)),
      duration_ms: 1000,
      overlapped_by_sibling: true,
    });
    // The cycle X → Z → Y → X is entered at Y, which starts first: Y ── Z ── X.
    expect(tree.roots[2]).toMatchObject({
      span_id: 'Y',
      parent_span_id: 'X',
      cycle: true,
      orphaned: false,
      own_cost: '0.001',
      overlapped_by_sibling: true,
    });
    expect(node(tree, 'Z')).toMatchObject({ depth: 1, subtree_cost: '0.006', parent_span_id: 'Y' });
    expect(node(tree, 'X')).toMatchObject({ depth: 2, subtree_cost: '0.002', children: [] });
    expect(node(tree, 'X')).not.toHaveProperty('cycle');
    expect(allNodes(tree)).toHaveLength(10);

    expect(tree).toMatchObject({
      session_id: 'S-basic',
      untraced: { total_cost: '0.01', event_count: 2 },
      run_wall_ms: 10_000,
      truncated: false,
      span_count: 10,
      node_limit: 500,
      withheld: { total_cost: '0', span_count: 0, event_count: 0 },
    });
    expect(flatTotal('S-basic')).toBe('0.747');
    expectInvariant(tree, 'S-basic');
  });

  it('cuts a 40-deep chain at depth 31 and keeps the cut cost; merges a span across lake dates', async () => {
    const res = await apiGet(p, t.readKey, '/attribution-data/sessions/S-deep/tree');
    expect(res.status).toBe(200);
    const tree = res.body;
    const nodes = allNodes(tree);
    expect(nodes).toHaveLength(32);
    expect(Math.max(...nodes.map((n) => n.depth))).toBe(31);
    // Σ(1..40)/1000 = 0.82, plus c0's 0.5 from the day before.
    expect(tree.roots[0]).toMatchObject({
      span_id: 'c0',
      own_cost: '0.501',
      subtree_cost: '1.32',
      event_count: 2,
      started_at: iso(s(-86_400)),
      duration_ms: 86_401_000, // from −86 400 s to its second event's end at 1 s
    });
    // c31 holds its own 0.032 and the 8 cut spans below: Σ(32..40)/1000 = 0.324.
    expect(node(tree, 'c31')).toMatchObject({ depth: 31, depth_capped: true, own_cost: '0.032', subtree_cost: '0.324', children: [] });
    expect(node(tree, 'c30')).not.toHaveProperty('depth_capped');
    expect(tree).toMatchObject({
      span_count: 40,
      truncated: false,
      run_wall_ms: 86_440_000,
      untraced: { total_cost: '0', event_count: 0 },
    });
    expectInvariant(tree, 'S-deep');
  });

  it('returns the earliest 500 of 510 spans and reports the 10 latest as withheld', async () => {
    const res = await apiGet(p, t.readKey, '/attribution-data/sessions/S-big/tree');
    expect(res.status).toBe(200);
    const tree = res.body;
    expect(allNodes(tree)).toHaveLength(500);
    // Kept: big-root and k000..k498 (starts 0..499 s); withheld k499..k508.
    expect(allNodes(tree).some((n) => n.span_id === 'k499')).toBe(false);
    expect(tree.roots).toHaveLength(1);
    expect(tree.roots[0]).toMatchObject({ span_id: 'big-root', subtree_cost: '5', duration_ms: 600_000 });
    expect(tree.roots[0].children).toHaveLength(499);
    // Children all cost 0.01: start order breaks the tie.
    expect(tree.roots[0].children.slice(0, 2).map((c: any) => c.span_id)).toEqual(['k000', 'k001']);
    expect(tree).toMatchObject({
      truncated: true,
      span_count: 510,
      node_limit: 500,
      withheld: { total_cost: '0.1', span_count: 10, event_count: 10 },
      untraced: { total_cost: '0.5', event_count: 1 },
      run_wall_ms: 600_000,
    });
    // Children [k+1, k+2] s inside the root: none overlaps a sibling (each ends before the next ends).
    expect(tree.roots[0].children.some((c: any) => c.overlapped_by_sibling)).toBe(false);
    expectInvariant(tree, 'S-big');
  });

  it("404 for an unknown session and for another organization's session", async () => {
    const unknown = await apiGet(p, t.readKey, '/attribution-data/sessions/nope/tree');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect((await apiGet(p, other.readKey, '/attribution-data/sessions/S-basic/tree')).status).toBe(404);
    const theirs = await apiGet(p, other.readKey, '/attribution-data/sessions/S-other/tree');
    expect(theirs.body.roots.map((r: any) => r.subtree_cost)).toEqual(['9']);
  });

  it('sees events that arrive after the session was first read (new lake files are indexed)', async () => {
    const before = await apiGet(p, other.readKey, '/attribution-data/sessions/S-late/tree');
    expect(before.status).toBe(404);
    await ingest(p, other, [
      {
        idempotency_key: 'o-2',
        model: 'gpt-4o',
        input_tokens: 1,
        output_tokens: 1,
        cost_override: '0.25',
        session_id: 'S-late',
        span_id: 'only',
      },
    ]);
    await waitForLake(p, other.organizationId, 2);
    const after = await apiGet(p, other.readKey, '/attribution-data/sessions/S-late/tree');
    expect(after.status).toBe(200);
    expect(after.body.roots.map((r: any) => [r.span_id, r.own_cost])).toEqual([['only', '0.25']]);
  });

  it('401 without a key, 403 without costs:read', async () => {
    expect((await apiGet(p, 'mk_live_nope', '/attribution-data/sessions/S-basic/tree')).status).toBe(401);
    const key = await issueKey(p, t, ['usage:read', 'revenue:read']);
    const res = await apiGet(p, key, '/attribution-data/sessions/S-basic/tree');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });
});

describe('GET /attribution-data/sessions', () => {
  const wide = { start_date: iso(-2 * 86_400_000), end_date: new Date(Date.now() + 3_600_000).toISOString() };

  it('lists sessions active in the range, most recent first, with whole-session totals', async () => {
    const res = await apiGet(p, t.readKey, '/attribution-data/sessions', wide);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ total: 3, limit: 100, offset: 0 });
    const [basic, big, deep] = res.body.sessions;
    // S-basic's last event is D's, stamped at receipt (after the test started).
    expect(basic).toMatchObject({
      session_id: 'S-basic',
      total_cost: '0.747',
      event_count: 13,
      span_count: 10,
      untraced_event_count: 2,
      first_event_at: iso(s(1)),
    });
    expect(Date.parse(basic.last_event_at)).toBeGreaterThanOrEqual(testStart - 1000);
    expect(big).toEqual({
      session_id: 'S-big',
      total_cost: '5.6',
      event_count: 511,
      span_count: 510,
      untraced_event_count: 1,
      first_event_at: iso(s(2)),
      last_event_at: iso(s(700)),
    });
    expect(deep).toEqual({
      session_id: 'S-deep',
      total_cost: '1.32',
      event_count: 41,
      span_count: 40,
      untraced_event_count: 0,
      first_event_at: iso(s(-86_390)),
      last_event_at: iso(s(40)),
    });
  });

  it('selects by activity overlapping the range, pages, and validates', async () => {
    const early = await apiGet(p, t.readKey, '/attribution-data/sessions', {
      start_date: iso(-2 * 86_400_000),
      end_date: iso(-12 * 3_600_000),
    });
    expect(early.body.sessions.map((x: any) => x.session_id)).toEqual(['S-deep']);
    expect(early.body.total).toBe(1);
    const page = await apiGet(p, t.readKey, '/attribution-data/sessions', { ...wide, limit: 1, offset: 1 });
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.sessions.map((x: any) => x.session_id)).toEqual(['S-big']);
    const past = await apiGet(p, t.readKey, '/attribution-data/sessions', { ...wide, offset: 10 });
    expect(past.body).toMatchObject({ sessions: [], total: 3 });
    expect((await apiGet(p, t.readKey, '/attribution-data/sessions', { ...wide, limit: 0 })).status).toBe(400);
    expect(
      (await apiGet(p, t.readKey, '/attribution-data/sessions', { start_date: wide.end_date, end_date: wide.start_date })).status,
    ).toBe(400);
    // The other tenant sees only its own (S-late arrived in an earlier test, so it is the latest).
    const theirs = await apiGet(p, other.readKey, '/attribution-data/sessions', wide);
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
    expect(theirs.body.sessions.map((x: any) => x.session_id)).toEqual(['S-late', 'S-other']);
  });
});
