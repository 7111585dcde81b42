// The SQL of an organization's OTLP attribute mappings (migration 013): resource or span
// attribute → usage-event metadata key. Replaced whole by the admin API; read by the receiver
// through a per-process cache of MAPPINGS_TTL_MS: a change binds the next export in the process
// whose admin API made it (the controller calls forgetAttributeMappings), others within the TTL.
import { cachedLoad, LRUCache } from '../core/cache.js';
import type { ControlDb, Queryable } from '../core/control/db.js';
import type { MetadataMapping } from './span-mapping.js';

export interface AttributeMapping {
  attribute: string;
  metadata_key: string;
}

const MAPPINGS_TTL_MS = 1_000;

/** Replaces the organization's mappings with these (one transaction). */
export async function replaceAttributeMappings(
  db: ControlDb,
  organizationId: string,
  mappings: readonly AttributeMapping[],
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('DELETE FROM otlp_attribute_mappings WHERE organization_id = $1', [organizationId]);
    if (mappings.length === 0) return;
    await tx.query(
      `INSERT INTO otlp_attribute_mappings (organization_id, attribute, metadata_key)
       SELECT $1::uuid, m.attribute, m.metadata_key FROM unnest($2::text[], $3::text[]) AS m (attribute, metadata_key)`,
      [organizationId, mappings.map((m) => m.attribute), mappings.map((m) => m.metadata_key)],
    );
  });
}

export async function listAttributeMappings(db: Queryable, organizationId: string): Promise<AttributeMapping[]> {
  return db.query<AttributeMapping>(
    'SELECT attribute, metadata_key FROM otlp_attribute_mappings WHERE organization_id = $1 ORDER BY attribute',
    [organizationId],
  );
}

const cache = new LRUCache<string, Promise<MetadataMapping>>({ max: 100_000, ttl: MAPPINGS_TTL_MS });

/** Drops the organization's cached mappings: its next export reads the control plane. */
export function forgetAttributeMappings(organizationId: string): void {
  cache.delete(organizationId);
}

/** The organization's mappings as the span mapping takes them, at most MAPPINGS_TTL_MS old. */
export function metadataMappingOf(db: Queryable, organizationId: string): Promise<MetadataMapping> {
  return cachedLoad(cache, organizationId, () =>
    listAttributeMappings(db, organizationId).then((rows) => new Map(rows.map((r) => [r.attribute, r.metadata_key]))),
  );
}
