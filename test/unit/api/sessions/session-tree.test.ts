import { describe, expect, it } from 'vitest';
import { buildSessionTree, type SpanInput } from '../../../../api/sessions/session-tree.js';
import type { SessionTree, SessionTreeNode } from '../../../../api/sessions/sessions.types.js';
import { Big } from '../../../../core/money.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

function span(spanId: string, parentSpanId: string | null, ownCost: string, more: Partial<SpanInput> = {}): SpanInput {
  return {
    spanId,
    parentSpanId,
    name: `${spanId}-name`,
    kind: 'llm',
    agentId: null,
    ownCost,
    eventCount: 1,
    startedAt: null,
    endedAt: null,
    firstEventAt: at(0),
    ...more,
  };
}

function timed(startMs: number, endMs: number): Pick<SpanInput, 'startedAt' | 'endedAt' | 'firstEventAt'> {
  return { startedAt: at(startMs), endedAt: at(endMs), firstEventAt: at(endMs) };
}

const noUntraced = { totalCost: '0', eventCount: 0 };

/** Every node of the tree, depth first. */
function nodes(tree: SessionTree): SessionTreeNode[] {
  const out: SessionTreeNode[] = [];
  const stack = [...tree.roots].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    stack.push(...[...n.children].reverse());
  }
  return out;
}

function find(tree: SessionTree, id: string): SessionTreeNode {
  const n = nodes(tree).find((x) => x.span_id === id);
  if (!n) throw new Error(`no node ${id}`);
  return n;
}

function invariantHolds(tree: SessionTree, flatTotal: string): void {
  const sum = tree.roots
    .reduce((s, r) => s.plus(r.subtree_cost), new Big(0))
    .plus(tree.untraced.total_cost)
    .plus(tree.withheld.total_cost);
  expect(sum.toFixed()).toBe(new Big(flatTotal).toFixed());
}

describe('buildSessionTree', () => {
  it('nests children, sums own and subtree cost, orders by subtree cost with the start-order tie-break', () => {
    // a(1) ─┬─ b(2) ── d(3)          subtree: d 3, b 5, c 0.5, e 0.5, a 1+5+0.5+0.5 = 7
    //       ├─ c(0.5)                c and e tie at 0.5: c starts first (firstEventAt 1s < 2s)
    //       └─ e(0.5)
    const tree = buildSessionTree({
      sessionId: 's1',
      spans: [
        span('e', 'a', '0.5', { firstEventAt: at(2000) }),
        span('d', 'b', '3'),
        span('c', 'a', '0.5', { firstEventAt: at(1000) }),
        span('b', 'a', '2'),
        span('a', null, '1', { agentId: 'planner', kind: 'agent', eventCount: 2 }),
      ],
      untraced: { totalCost: '0.25', eventCount: 3 },
    });
    expect(tree.roots.map((r) => r.span_id)).toEqual(['a']);
    const a = tree.roots[0]!;
    expect(a).toMatchObject({
      parent_span_id: null,
      name: 'a-name',
      kind: 'agent',
      agent_id: 'planner',
      own_cost: '1',
      subtree_cost: '7',
      event_count: 2,
      depth: 0,
      orphaned: false,
      started_at: null,
      duration_ms: null,
      overlapped_by_sibling: false,
    });
    expect(a).not.toHaveProperty('cycle');
    expect(a).not.toHaveProperty('depth_capped');
    expect(a.children.map((c) => [c.span_id, c.subtree_cost, c.depth])).toEqual([
      ['b', '5', 1],
      ['c', '0.5', 1],
      ['e', '0.5', 1],
    ]);
    expect(find(tree, 'd')).toMatchObject({ own_cost: '3', subtree_cost: '3', depth: 2, parent_span_id: 'b', children: [] });
    expect(tree.untraced).toEqual({ total_cost: '0.25', event_count: 3 });
    expect(tree.truncated).toBe(false);
    expect(tree.span_count).toBe(5);
    expect(tree.node_limit).toBe(500);
    expect(tree.withheld).toEqual({ total_cost: '0', span_count: 0, event_count: 0 });
    expect(tree.run_wall_ms).toBeNull();
    invariantHolds(tree, '7.25');
  });

  it('promotes a span whose parent is not in the session to a root flagged orphaned, among the roots by cost', () => {
    const tree = buildSessionTree({
      sessionId: 's',
      spans: [span('root', null, '0.1'), span('lost', 'ghost', '0.3'), span('kid', 'lost', '0.05')],
      untraced: noUntraced,
    });
    expect(tree.roots.map((r) => [r.span_id, r.subtree_cost, r.orphaned, r.parent_span_id])).toEqual([
      ['lost', '0.35', true, 'ghost'],
      ['root', '0.1', false, null],
    ]);
    expect(find(tree, 'kid')).toMatchObject({ depth: 1, orphaned: false });
    invariantHolds(tree, '0.45');
  });

  it('breaks a parent-pointer cycle at its earliest-starting member, flagged cycle, without looping', () => {
    // x → z → y → x (each arrow points at the parent). y starts first, so y is the entry:
    // y (root, cycle) ── z ── x.   subtree: x 4, z 6, y 7.
    const tree = buildSessionTree({
      sessionId: 's',
      spans: [
        span('x', 'z', '4', { firstEventAt: at(300) }),
        span('y', 'x', '1', { firstEventAt: at(100) }),
        span('z', 'y', '2', { firstEventAt: at(200) }),
        span('self', 'self', '0.5', { firstEventAt: at(50) }),
        span('tail', 'x', '0.25', { firstEventAt: at(400) }),
      ],
      untraced: noUntraced,
    });
    expect(tree.roots.map((r) => [r.span_id, r.subtree_cost, r.cycle ?? false, r.orphaned])).toEqual([
      ['y', '7.25', true, false],
      ['self', '0.5', true, false],
    ]);
    expect(tree.roots[0]!.parent_span_id).toBe('x');
    expect(find(tree, 'z')).toMatchObject({ depth: 1, subtree_cost: '6.25' });
    expect(find(tree, 'x')).toMatchObject({ depth: 2, subtree_cost: '4.25' });
    expect(find(tree, 'x')).not.toHaveProperty('cycle');
    expect(find(tree, 'tail')).toMatchObject({ depth: 3 });
    invariantHolds(tree, '7.75');
  });

  it('cuts a 40-deep chain at depth 31, flags it depth_capped and keeps the cut cost in subtree_cost', () => {
    // c0 ← c1 ← … ← c39, own cost of c_i = (i+1)/1000. Σ(1..40) = 820; the cut node c31 carries
    // Σ(32..40) = 324 (its own 32 plus the 8 spans below the cap).
    const spans = Array.from({ length: 40 }, (_, i) =>
      span(`c${i}`, i === 0 ? null : `c${i - 1}`, new Big(i + 1).div(1000).toFixed(), { firstEventAt: at(i) }),
    );
    const tree = buildSessionTree({ sessionId: 's', spans, untraced: noUntraced });
    const all = nodes(tree);
    expect(all).toHaveLength(32);
    expect(Math.max(...all.map((n) => n.depth))).toBe(31);
    expect(tree.roots[0]!.subtree_cost).toBe('0.82');
    const cut = find(tree, 'c31');
    expect(cut).toMatchObject({ depth: 31, depth_capped: true, own_cost: '0.032', subtree_cost: '0.324', children: [] });
    expect(find(tree, 'c30')).not.toHaveProperty('depth_capped');
    expect(find(tree, 'c30').subtree_cost).toBe('0.355'); // 0.031 + 0.324
    expect(tree.span_count).toBe(40);
    expect(tree.truncated).toBe(false);
    invariantHolds(tree, '0.82');
  });

  it('a leaf at depth 31 is not depth_capped', () => {
    const spans = Array.from({ length: 32 }, (_, i) => span(`c${i}`, i === 0 ? null : `c${i - 1}`, '1', { firstEventAt: at(i) }));
    const tree = buildSessionTree({ sessionId: 's', spans, untraced: noUntraced });
    expect(find(tree, 'c31')).not.toHaveProperty('depth_capped');
    expect(nodes(tree)).toHaveLength(32);
  });

  it('keeps the earliest node_limit spans by start time and reports the rest as withheld', () => {
    // 510 spans under one root, span i starts at i seconds (odd ones only through firstEventAt,
    // i.e. untimed), costs 0.01 each with 2 events. The 10 latest (500..509) are withheld.
    // Span k0 starts at -1 s but its parent (p509) is withheld: k0 becomes a root, not orphaned.
    const spans: SpanInput[] = [];
    for (let i = 0; i < 510; i++) {
      const ms = i * 1000;
      const when = i % 2 === 0 ? timed(ms, ms + 500) : { firstEventAt: at(ms) };
      spans.push(span(`p${String(i).padStart(3, '0')}`, i === 0 ? null : 'p000', '0.01', { eventCount: 2, ...when }));
    }
    spans.push(span('k0', 'p509', '5', { firstEventAt: at(-1000) }));
    const tree = buildSessionTree({ sessionId: 's', spans, untraced: { totalCost: '1', eventCount: 1 } });
    expect(tree.truncated).toBe(true);
    expect(tree.span_count).toBe(511);
    expect(tree.node_limit).toBe(500);
    // Kept: k0 and p000..p498; withheld: p499..p509 (11 spans).
    expect(tree.withheld).toEqual({ total_cost: '0.11', span_count: 11, event_count: 22 });
    const all = nodes(tree);
    expect(all).toHaveLength(500);
    expect(all.some((n) => n.span_id === 'p499')).toBe(false);
    expect(tree.roots.map((r) => [r.span_id, r.orphaned, r.parent_span_id, r.subtree_cost])).toEqual([
      ['k0', false, 'p509', '5'],
      ['p000', false, null, '4.99'], // 499 spans × 0.01
    ]);
    // Returned timed spans: p000..p498 even; earliest start 0, latest end 498.5 s.
    expect(tree.run_wall_ms).toBe(498_500);
    invariantHolds(tree, '11.1'); // k0 5 + 510 spans × 0.01 + untraced 1
  });

  it('computes timing, duration, run wall time and overlapped_by_sibling', () => {
    // Siblings under r: a [0,10s], b [2s,5s] inside a, c [0,10s] same as a, d [0,12s],
    // e untimed, f [11s,20s] starts after everyone.
    //   a: d started no later (0) and ended later (12 > 10) → true
    //   b: a started earlier, ended later → true
    //   c: d → true;  d: nobody ends after 12 among starts ≤ 0 → false
    //   e: no timing → false; f: starts last, ends 20 > every other → false
    const tree = buildSessionTree({
      sessionId: 's',
      spans: [
        span('r', null, '0', timed(-1000, 25_000)),
        span('a', 'r', '1', timed(0, 10_000)),
        span('b', 'r', '1', timed(2000, 5000)),
        span('c', 'r', '1', timed(0, 10_000)),
        span('d', 'r', '1', timed(0, 12_000)),
        span('e', 'r', '1', { firstEventAt: at(1) }),
        span('f', 'r', '1', timed(11_000, 20_000)),
      ],
      untraced: noUntraced,
    });
    const o = (id: string) => find(tree, id).overlapped_by_sibling;
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map(o)).toEqual([true, true, true, false, false, false]);
    expect(find(tree, 'b')).toMatchObject({ started_at: '2026-03-01T10:00:02.000Z', duration_ms: 3000 });
    expect(find(tree, 'e')).toMatchObject({ started_at: null, duration_ms: null });
    expect(find(tree, 'r')).toMatchObject({ started_at: '2026-03-01T09:59:59.000Z', duration_ms: 26_000, overlapped_by_sibling: false });
    expect(tree.run_wall_ms).toBe(26_000);
  });

  it('two identical siblings do not overlap each other; roots are siblings of each other', () => {
    const tree = buildSessionTree({
      sessionId: 's',
      spans: [span('a', null, '1', timed(0, 100)), span('b', null, '1', timed(0, 100)), span('c', null, '1', timed(50, 150))],
      untraced: noUntraced,
    });
    expect(tree.roots.map((r) => [r.span_id, r.overlapped_by_sibling])).toEqual([
      ['a', false],
      ['b', false],
      ['c', false],
    ]);
    const t2 = buildSessionTree({
      sessionId: 's',
      spans: [span('a', null, '1', timed(0, 100)), span('b', null, '1', timed(0, 101))],
      untraced: noUntraced,
    });
    expect(t2.roots.map((r) => [r.span_id, r.overlapped_by_sibling])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('a session of untraced events only has no roots and its whole cost under untraced', () => {
    const tree = buildSessionTree({ sessionId: 's', spans: [], untraced: { totalCost: '0.000000000001', eventCount: 4 } });
    expect(tree).toEqual({
      session_id: 's',
      roots: [],
      untraced: { total_cost: '0.000000000001', event_count: 4 },
      run_wall_ms: null,
      truncated: false,
      span_count: 0,
      node_limit: 500,
      withheld: { total_cost: '0', span_count: 0, event_count: 0 },
    });
  });

  it('is deterministic whatever the input order', () => {
    const spans = [
      span('x', 'z', '1', { firstEventAt: at(5) }),
      span('y', 'x', '1', { firstEventAt: at(5) }),
      span('z', 'y', '1', { firstEventAt: at(5) }),
      span('o', 'nope', '1', { firstEventAt: at(5) }),
    ];
    const a = buildSessionTree({ sessionId: 's', spans, untraced: noUntraced });
    const b = buildSessionTree({ sessionId: 's', spans: [...spans].reverse(), untraced: noUntraced });
    expect(b).toEqual(a);
    // Equal starts: the entry of the cycle is the smallest span id.
    expect(a.roots.find((r) => r.cycle)?.span_id).toBe('x');
  });
});
