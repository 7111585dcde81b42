// Lake reads of /cost-data beyond the shared cost groupings: the organization's stored events by
// status. On the manifest lake from the manifests' per-file status counts (no Parquet read; files
// written without counts are counted with DuckDB); on the open lake from the daily_costs rollup
// (one row per … × status with its event_count, every event counted: core/lake/rollups.ts) through
// {{costs}}, whose whole days are the api's cached derived days, so a warm answer reads no lake table.
import { EVENT_STATUSES, type EventStatus } from '../../core/lake/events-schema.js';
import { tableColumns } from '../../core/lake/layout.js';
import { parquetRelationSql } from '../../core/lake/parquet-sql.js';
import type { LakeQuery } from '../lake/lake-query.js';

export async function queryLakeStatusCounts(lake: LakeQuery, organizationId: string): Promise<Record<EventStatus, number>> {
  const counts = Object.fromEntries(EVENT_STATUSES.map((s) => [s, 0])) as Record<EventStatus, number>;
  const add = async (relation: string, count: string) => {
    const rows = await lake.rows<{ status: string; n: number }>(
      { organizationId },
      `SELECT status, ${count} AS n FROM ${relation} e WHERE e.organization_id = $org GROUP BY status`,
    );
    for (const r of rows) if ((EVENT_STATUSES as readonly string[]).includes(r.status)) counts[r.status as EventStatus] += r.n;
  };
  if (lake.readsDuckLake) {
    // All time (no range): every day whole, from the cache.
    await add('{{costs}}', 'CAST(sum(event_count) AS BIGINT)');
    return counts;
  }
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
  if (uncounted.length > 0) await add(parquetRelationSql(uncounted, tableColumns('events')), 'count(*)');
  return counts;
}
