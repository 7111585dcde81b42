// Lake reads of /cost-data beyond the shared cost groupings: the organization's stored events by
// status, taken from the manifests' per-file status counts (no Parquet read); files written
// without counts are counted with DuckDB.
import { EVENT_STATUSES, type EventStatus } from '../../core/lake/events-schema.js';
import { tableColumns } from '../../core/lake/layout.js';
import { parquetRelationSql } from '../../core/lake/parquet-sql.js';
import type { LakeQuery } from '../lake/lake-query.js';

export async function queryLakeStatusCounts(lake: LakeQuery, organizationId: string): Promise<Record<EventStatus, number>> {
  const counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  const uncounted: string[] = [];
  for (const manifest of (await lake.reader.manifests()).values()) {
    for (const f of manifest.files) {
      if (f.table !== 'events' || f.organization_id !== organizationId) continue;
      if (!f.status_counts) {
        uncounted.push(lake.reader.absolute(f));
        continue;
      }
      for (const s of EVENT_STATUSES) counts[s] += f.status_counts[s];
    }
  }
  if (uncounted.length > 0) {
    const rows = await lake.rows<{ status: string; n: number }>(
      { organizationId },
      `SELECT status, count(*) AS n FROM ${parquetRelationSql(uncounted, tableColumns('events'))} e
        WHERE e.organization_id = $org GROUP BY status`,
    );
    for (const r of rows) if ((EVENT_STATUSES as readonly string[]).includes(r.status)) counts[r.status as EventStatus] += r.n;
  }
  return counts;
}
