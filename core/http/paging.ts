// The one paging rule of every paged endpoint (usage events, sessions, webhook deliveries, …):
// limit and offset as the spec bounds them. Pure; throws ValidationError naming the parameter.
import { ValidationError } from '../errors.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** The spec's int32 offset: also what DuckDB's OFFSET and a JSON number echo back exactly. */
const MAX_OFFSET = 2_147_483_647;

/** limit integer 1–1000 (default 100); offset integer 0–2^31-1 (default 0). */
export function pageParams(limit: number | undefined, offset: number | undefined): { limit: number; offset: number } {
  const l = limit ?? DEFAULT_LIMIT;
  const o = offset ?? 0;
  if (!Number.isInteger(l) || l < 1 || l > MAX_LIMIT) throw new ValidationError('limit', `must be an integer from 1 to ${MAX_LIMIT}`);
  if (!Number.isInteger(o) || o < 0 || o > MAX_OFFSET) throw new ValidationError('offset', `must be an integer from 0 to ${MAX_OFFSET}`);
  return { limit: l, offset: o };
}
