// Lake reads of /cost-data beyond the shared cost groupings: the organization's stored events by
// status, taken from the manifests' per-file status counts (no Parquet read); files written
// without counts, and the open lake's events table, are counted with DuckDB.
import { EVENT_STATUSES, type EventStatus } from '../../core/lake/events-schema.js';
import { tableColumns } from '../../core/lake/layout.js';
import { parquetRelationSql } from '../../core/lake/parquet-sql.js';
import type { LakeQuery } from '../lake/lake-query.js';

export async function queryLakeStatusCounts(lake: LakeQuery, organizationId: string): Promise<Record<EventStatus, number>> {
  const counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  const uncounted: string[] = [];
  // The open lake keeps no per-file counts to read: count its events table.
  const manifests = lake.readsDuckLake ? [] : (await lake.reader.manifests()).values();
  for (const manifest of manifests) {
    for (const f of manifest.files) {
      if (f.table !== 'events' || f.organization_id !== organizationId) continue;
      if (!f.status_counts) {
        uncounted.push(lake.reader.absolute(f));
        continue;
      }
      for (const s of EVENT_STATUSES) counts[s] += f.status_counts[s];
    }
  }
  if (uncounted.length > 0 || lake.readsDuckLake) {
    const events = lake.readsDuckLake ? '{{events}}' : parquetRelationSql(uncounted, tableColumns('events'));
    const rows = await lake.rows<{ status: string; n: number }>(
      { organizationId },
      `SELECT status, count(*) AS n FROM ${events} e
        WHERE e.organization_id = $org GROUP BY status`,
    );
    for (const r of rows) if ((EVENT_STATUSES as readonly string[]).includes(r.status)) counts[r.status as EventStatus] += r.n;
  }
  return counts;
}
