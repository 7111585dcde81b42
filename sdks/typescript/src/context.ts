// Per-call attribution for captured model calls: withContext({ userId, … }, fn) makes every call
// the wrappers record inside fn (and everything it awaits) carry those fields. Nested contexts
// override field by field; metadata objects merge. Backed by AsyncLocalStorage, so concurrent
// requests keep their own context.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { UsageEvent } from './events.js';

export interface CaptureContext {
  userId?: string;
  sessionId?: string;
  spanId?: string;
  parentSpanId?: string;
  spanName?: string;
  spanKind?: 'agent' | 'tool' | 'llm' | 'retrieval' | 'task';
  agentId?: string;
  workflowId?: string;
  feature?: string;
  metadata?: Record<string, unknown>;
}

const storage = new AsyncLocalStorage<CaptureContext>();

/** Runs fn with `context` layered over the current one; returns what fn returns. */
export function withContext<T>(context: CaptureContext, fn: () => T): T {
  return storage.run(mergeContexts(currentContext(), context), fn);
}

/** The context in effect here ({} outside any withContext). */
export function currentContext(): CaptureContext {
  return storage.getStore() ?? {};
}

/** `over` wins field by field; metadata merges key by key. */
export function mergeContexts(base: CaptureContext, over: CaptureContext): CaptureContext {
  const merged: CaptureContext = { ...base, ...over };
  if (base.metadata || over.metadata) merged.metadata = { ...base.metadata, ...over.metadata };
  return merged;
}

const FIELDS = [
  ['userId', 'user_id'],
  ['sessionId', 'session_id'],
  ['spanId', 'span_id'],
  ['parentSpanId', 'parent_span_id'],
  ['spanName', 'span_name'],
  ['spanKind', 'span_kind'],
  ['agentId', 'agent_id'],
  ['workflowId', 'workflow_id'],
  ['feature', 'feature'],
  ['metadata', 'metadata'],
] as const;

/** The event fields a context sets (camelCase names to the API's snake_case). */
export function eventFieldsOf(context: CaptureContext): Partial<UsageEvent> {
  const fields: Record<string, unknown> = {};
  for (const [from, to] of FIELDS) if (context[from] !== undefined) fields[to] = context[from];
  return fields as Partial<UsageEvent>;
}
