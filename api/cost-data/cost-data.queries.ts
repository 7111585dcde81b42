// Lake reads of /cost-data beyond the shared cost groupings: the organization's stored events by
// status, from the daily_costs rollup (one row per … × status with its event_count, every event
// counted: core/lake/rollups.ts) through {{costs}}, whose whole days are the api's cached derived
// days, so a warm answer reads no lake table.
import { EVENT_STATUSES, type EventStatus } from '../../core/lake/events-schema.js';
import type { LakeQuery } from '../lake/lake-query.js';

export async function queryLakeStatusCounts(lake: LakeQuery, organizationId: string): Promise<Record<EventStatus, number>> {
  const counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  // All time (no range): every day whole, from the cache.
  const rows = await lake.rows<{ status: string; n: number }>(
    { organizationId },
    'SELECT status, CAST(sum(event_count) AS BIGINT) AS n FROM {{costs}} c WHERE c.organization_id = $org GROUP BY status',
  );
  for (const r of rows) if ((EVENT_STATUSES as readonly string[]).includes(r.status)) counts[r.status as EventStatus] += r.n;
  return counts;
}
