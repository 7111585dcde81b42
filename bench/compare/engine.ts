// What bench/compare needs of an engine: connections that run SQL and time it, a warm one kept
// for the repeated runs and cold ones as a fresh process or server sees its first query.
import type { Dialect } from './questions.js';

export interface EngineConnection {
  /** Rows as arrays (keys…, events, cost) and the milliseconds the query took. */
  query(sql: string): Promise<{ rows: unknown[][]; ms: number }>;
  close(): Promise<void>;
}

export interface Engine {
  label: string;
  /** How the engine holds the data, for the results file. */
  setup: string;
  dialect: Dialect;
  connect(): Promise<EngineConnection>;
  /** A connection as the first query after a (re)start sees it: fresh process, or server restarted. */
  connectCold(): Promise<EngineConnection>;
  stop(): Promise<void>;
}

/** The events columns the loaded engines copy (what the questions and a real schema need). */
export const LOADED_COLUMNS = [
  'event_id',
  'organization_id',
  'event_timestamp',
  'event_date',
  'user_id',
  'end_user_id',
  'model',
  'provider',
  'status',
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'reasoning_tokens',
  'input_cost',
  'output_cost',
  'cache_read_cost',
  'reasoning_cost',
  'total_cost',
  'agent_id',
  'workflow_id',
  'feature',
  'metadata',
] as const;

export function stopwatch(): () => number {
  const t = performance.now();
  return () => performance.now() - t;
}

/** How a loaded engine got its data, for its setup line. */
export function loaded(seconds: number | null): string {
  return seconds === null ? 'loaded by an earlier run into the data directory' : `loaded from the lake in ${seconds} s`;
}
