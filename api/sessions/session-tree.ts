// The session call tree: a pure function from a session's spans (own cost and timing per span)
// to the spec's tree. Invariant: Σ root subtree_cost + untraced + withheld = the session's flat
// total, whatever the parent pointers look like (orphans, cycles, chains deeper than the cap).
// Never recursive over parent pointers, so hostile data cannot loop or blow the stack.
import { type Big, formatMoney, sumMoney, toBig } from '../../core/money.js';
import type { SessionTree, SessionTreeNode } from './sessions.types.js';
import { compareCodePoints } from '../../core/compare.js';

/** docs/design.md: 500 spans per response. */
const SESSION_NODE_LIMIT = 500;
/** Levels returned: depths 0..31; deeper descendants are cut (their cost stays in subtree_cost). */
const SESSION_DEPTH_LIMIT = 32;

/** One span as the lake knows it: its own events aggregated. */
export interface SpanInput {
  spanId: string;
  parentSpanId: string | null;
  name: string | null;
  kind: string | null;
  agentId: string | null;
  /** Decimal string: cost of the span's own events. */
  ownCost: string;
  eventCount: number;
  /**
   * Complete timing (docs/decisions/0004-session-tree-complete-timing.md): earliest start and latest end over the span's events
   * that carry started_at and a client-sent timestamp no earlier than it. Both or neither.
   */
  startedAt: Date | null;
  endedAt: Date | null;
  /** Earliest event timestamp of the span: orders untimed spans when the tree is truncated. */
  firstEventAt: Date;
}

export interface SessionInput {
  sessionId: string;
  spans: readonly SpanInput[];
  /** Events of the session without a span_id. */
  untraced: { totalCost: string; eventCount: number };
}

export interface SessionTreeOptions {
  nodeLimit?: number;
  depthLimit?: number;
}

interface WorkNode {
  span: SpanInput;
  startKey: number;
  parent: WorkNode | null;
  children: WorkNode[];
  subtree: Big;
  orphaned: boolean;
  cycle: boolean;
  depth: number;
  overlapped: boolean;
}

/** Start order: timed spans by their start, untimed by their first event; then span id. */
function byStart(a: WorkNode, b: WorkNode): number {
  return a.startKey - b.startKey || compareCodePoints(a.span.spanId, b.span.spanId);
}

/** Siblings and roots: costliest subtree first, then start order (deterministic tie-break). */
function bySubtreeCost(a: WorkNode, b: WorkNode): number {
  return b.subtree.cmp(a.subtree) || byStart(a, b);
}

export function buildSessionTree(input: SessionInput, options: SessionTreeOptions = {}): SessionTree {
  const nodeLimit = options.nodeLimit ?? SESSION_NODE_LIMIT;
  const depthLimit = options.depthLimit ?? SESSION_DEPTH_LIMIT;

  const allIds = new Set<string>();
  const all: WorkNode[] = input.spans.map((span) => {
    if (allIds.has(span.spanId)) throw new Error(`span ${span.spanId} given twice`);
    allIds.add(span.spanId);
    if ((span.startedAt === null) !== (span.endedAt === null)) {
      throw new Error(`span ${span.spanId}: startedAt and endedAt must be both set or both null`);
    }
    return {
      span,
      startKey: (span.startedAt ?? span.firstEventAt).getTime(),
      parent: null,
      children: [],
      subtree: toBig(span.ownCost),
      orphaned: false,
      cycle: false,
      depth: 0,
      overlapped: false,
    };
  });
  all.sort(byStart);

  // node_limit keeps the earliest spans by start time; the rest are withheld, counted only.
  const kept = all.slice(0, nodeLimit);
  const withheldNodes = all.slice(nodeLimit);
  const keptById = new Map(kept.map((n) => [n.span.spanId, n]));

  for (const n of kept) {
    const pid = n.span.parentSpanId;
    if (pid === null) continue;
    if (!allIds.has(pid)) n.orphaned = true;
    else n.parent = keptById.get(pid) ?? null; // a withheld parent also makes this a root
  }

  breakCycles(kept);

  const roots: WorkNode[] = [];
  for (const n of kept) (n.parent ? n.parent.children : roots).push(n);

  // Breadth-first order gives parents before children; reversed, it sums subtrees bottom-up.
  const order: WorkNode[] = [...roots];
  for (let i = 0; i < order.length; i++) {
    const n = order[i]!;
    for (const c of n.children) {
      c.depth = n.depth + 1;
      order.push(c);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!;
    if (n.parent) n.parent.subtree = n.parent.subtree.plus(n.subtree);
  }

  roots.sort(bySubtreeCost);
  markOverlaps(roots);
  for (const n of order) {
    n.children.sort(bySubtreeCost);
    markOverlaps(n.children);
  }

  let runStart = Infinity;
  let runEnd = -Infinity;
  for (const n of kept) {
    if (n.span.startedAt === null || n.span.endedAt === null) continue;
    runStart = Math.min(runStart, n.span.startedAt.getTime());
    runEnd = Math.max(runEnd, n.span.endedAt.getTime());
  }

  const withheldCost = sumMoney(withheldNodes.map((n) => n.span.ownCost));
  const withheldEvents = withheldNodes.reduce((count, n) => count + n.span.eventCount, 0);

  return {
    session_id: input.sessionId,
    roots: roots.map((r) => toWire(r, depthLimit)),
    untraced: { total_cost: formatMoney(input.untraced.totalCost), event_count: input.untraced.eventCount },
    run_wall_ms: runStart === Infinity ? null : runEnd - runStart,
    truncated: withheldNodes.length > 0,
    span_count: all.length,
    node_limit: nodeLimit,
    withheld: { total_cost: formatMoney(withheldCost), span_count: withheldNodes.length, event_count: withheldEvents },
  };
}

/**
 * Parent pointers form a functional graph, so each component holds at most one cycle. Walking up
 * from every node (in start order, so the result is deterministic) finds each cycle once; it is
 * broken at its earliest-starting member, which becomes a root flagged `cycle`.
 */
function breakCycles(nodes: readonly WorkNode[]): void {
  const state = new Map<WorkNode, 1 | 2>(); // 1 = on the current path, 2 = settled
  for (const start of nodes) {
    const path: WorkNode[] = [];
    let n: WorkNode | null = start;
    while (n && !state.has(n)) {
      state.set(n, 1);
      path.push(n);
      n = n.parent;
    }
    if (n && state.get(n) === 1) {
      const members = path.slice(path.indexOf(n));
      const entry = members.reduce((a, b) => (byStart(b, a) < 0 ? b : a));
      entry.parent = null;
      entry.cycle = true;
    }
    for (const p of path) state.set(p, 2);
  }
}

/**
 * overlapped_by_sibling: some other timed sibling started no later and ended strictly later.
 * Sorted by start, a node's candidates are every earlier start plus the others of its own start.
 */
function markOverlaps(siblings: readonly WorkNode[]): void {
  const timed = siblings
    .filter((n) => n.span.startedAt !== null && n.span.endedAt !== null)
    .map((n) => ({ n, start: n.span.startedAt!.getTime(), end: n.span.endedAt!.getTime() }))
    .sort((a, b) => a.start - b.start);
  let maxEndBefore = -Infinity;
  for (let i = 0; i < timed.length; ) {
    let j = i;
    while (j < timed.length && timed[j]!.start === timed[i]!.start) j++;
    const group = timed.slice(i, j);
    // The two largest ends in the group: a node compares with the largest that is not its own.
    let top1 = -Infinity;
    let top1At = -1;
    let top2 = -Infinity;
    group.forEach((t, k) => {
      if (t.end > top1) {
        top2 = top1;
        top1 = t.end;
        top1At = k;
      } else if (t.end > top2) top2 = t.end;
    });
    group.forEach((t, k) => {
      const otherInGroup = k === top1At ? top2 : top1;
      t.n.overlapped = Math.max(maxEndBefore, otherInGroup) > t.end;
    });
    maxEndBefore = Math.max(maxEndBefore, top1);
    i = j;
  }
}

function toWire(n: WorkNode, depthLimit: number): SessionTreeNode {
  const s = n.span;
  const capped = n.depth >= depthLimit - 1 && n.children.length > 0;
  return {
    span_id: s.spanId,
    parent_span_id: s.parentSpanId,
    name: s.name,
    kind: s.kind,
    agent_id: s.agentId,
    own_cost: formatMoney(s.ownCost),
    subtree_cost: formatMoney(n.subtree),
    event_count: s.eventCount,
    depth: n.depth,
    orphaned: n.orphaned,
    ...(n.cycle ? { cycle: true } : {}),
    ...(capped ? { depth_capped: true } : {}),
    started_at: s.startedAt ? s.startedAt.toISOString() : null,
    duration_ms: s.startedAt && s.endedAt ? s.endedAt.getTime() - s.startedAt.getTime() : null,
    overlapped_by_sibling: n.overlapped,
    children: capped ? [] : n.children.map((c) => toWire(c, depthLimit)),
  };
}
