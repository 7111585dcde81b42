// The session waterfall's geometry: the call tree flattened depth-first (roots and children in the
// API's order, subtree cost descending), each timed span placed on the run's time axis from its
// started_at and duration_ms as percentages. Pure.
import type { SessionTree, SessionTreeNode } from '../../api/types.js';

interface WaterfallRow {
  node: SessionTreeNode;
  depth: number;
  /** Percent of the axis from the run's first start; null for a span without timing. */
  left: number | null;
  width: number | null;
  /** Milliseconds from the run's first start. */
  offsetMs: number | null;
}

export interface Waterfall {
  rows: WaterfallRow[];
  /** The axis: earliest start and its length in ms (null when no span is timed). */
  startMs: number | null;
  spanMs: number | null;
}

function flatten(nodes: SessionTreeNode[], out: SessionTreeNode[]): void {
  for (const n of nodes) {
    out.push(n);
    flatten(n.children, out);
  }
}

export function waterfall(tree: SessionTree): Waterfall {
  const nodes: SessionTreeNode[] = [];
  flatten(tree.roots, nodes);
  const timed = nodes.filter((n) => n.started_at !== null && n.duration_ms !== null);
  if (timed.length === 0)
    return {
      rows: nodes.map((node) => ({ node, depth: node.depth, left: null, width: null, offsetMs: null })),
      startMs: null,
      spanMs: null,
    };
  const start = Math.min(...timed.map((n) => Date.parse(n.started_at!)));
  const end = Math.max(...timed.map((n) => Date.parse(n.started_at!) + n.duration_ms!));
  const span = Math.max(end - start, 1);
  return {
    startMs: start,
    spanMs: end - start,
    rows: nodes.map((node) => {
      if (node.started_at === null || node.duration_ms === null)
        return { node, depth: node.depth, left: null, width: null, offsetMs: null };
      const offset = Date.parse(node.started_at) - start;
      return {
        node,
        depth: node.depth,
        offsetMs: offset,
        left: (offset / span) * 100,
        width: Math.max((node.duration_ms / span) * 100, 0.4),
      };
    }),
  };
}

/** Markers the API reports on a span, as short labels. */
export function markers(n: SessionTreeNode): string[] {
  const m: string[] = [];
  if (n.orphaned) m.push('orphaned');
  if (n.cycle) m.push('cycle');
  if (n.depth_capped) m.push('depth-capped');
  if (n.overlapped_by_sibling) m.push('overlaps sibling');
  return m;
}
