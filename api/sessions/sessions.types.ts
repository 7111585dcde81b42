// Wire shapes of the session endpoints (the spec's call-tree node and tree response, and the
// sessions list). Money is a decimal string; instants are ISO 8601 UTC.

/** One span of a session's call tree; roots and children have the same shape. */
export interface SessionTreeNode {
  span_id: string;
  /** Null on a true root; kept as sent on orphans, cycle entries and spans whose parent was withheld. */
  parent_span_id: string | null;
  /** From span_name. */
  name: string | null;
  /** From span_kind: agent, tool, llm, retrieval, task. */
  kind: string | null;
  agent_id: string | null;
  /** Cost of the span's own events (USD). */
  own_cost: string;
  /** The span plus every descendant, including descendants beyond the depth cap (USD). */
  subtree_cost: string;
  /** Own events. */
  event_count: number;
  /** Roots are 0. */
  depth: number;
  /** True when the parent id does not exist in the session; the span is promoted to a root. */
  orphaned: boolean;
  /** True when a parent-pointer cycle was detected and broken at this node (it became a root). */
  cycle?: boolean;
  /** True when descendants deeper than 32 levels were cut here; their cost stays in subtree_cost. */
  depth_capped?: boolean;
  /** Earliest timed event start; null when no event of the span has complete timing. */
  started_at: string | null;
  /** Latest end minus earliest start over the span's own timed events; null exactly when started_at is. */
  duration_ms: number | null;
  /** True when a sibling started no later and ended strictly later; false without timing. */
  overlapped_by_sibling: boolean;
  /** Ordered by subtree_cost descending. */
  children: SessionTreeNode[];
}

interface CostAndEvents {
  /** USD. */
  total_cost: string;
  event_count: number;
}

interface WithheldSpans {
  /** USD. */
  total_cost: string;
  span_count: number;
  event_count: number;
}

export interface SessionTree {
  session_id: string;
  /** Ordered by subtree_cost descending. */
  roots: SessionTreeNode[];
  /** Events with the session id but no span_id. */
  untraced: CostAndEvents;
  /** Latest end minus earliest start across the returned spans with complete timing; null when none has timing. */
  run_wall_ms: number | null;
  /** True when the session holds more spans than one response returns. */
  truncated: boolean;
  /** All spans in the session, returned plus withheld. */
  span_count: number;
  /** Maximum spans per response. */
  node_limit: number;
  /** Spans beyond node_limit (the latest by start time); all zeros unless truncated. */
  withheld: WithheldSpans;
}

/** One session of the sessions list. */
export interface SessionSummary {
  session_id: string;
  /** USD, every event of the session (traced and untraced). */
  total_cost: string;
  event_count: number;
  /** Distinct span ids, OTLP spans without usage (structural) included, as the tree counts them. */
  span_count: number;
  /** Events without a span_id. */
  untraced_event_count: number;
  /** Earliest event timestamp of the session, or start of a structural span if earlier (ISO 8601 UTC). */
  first_event_at: string;
  /** Latest event timestamp of the session, or end of a structural span if later (ISO 8601 UTC). */
  last_event_at: string;
}

export interface SessionList {
  sessions: SessionSummary[];
  /** Sessions matching the query. */
  total: number;
  limit: number;
  offset: number;
}
