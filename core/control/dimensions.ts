// Custom dimension definitions: metadata keys an organization declares, with a value type and
// whether ingest must see them on every event.
import { ConflictError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Queryable } from './db.js';
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, sqlState } from './sql-errors.js';

export type DimensionValueType = 'string' | 'number';

export interface DimensionDefinition {
  id: string;
  organizationId: string;
  name: string;
  /** The metadata key, case-sensitive. */
  key: string;
  description: string | null;
  valueType: DimensionValueType;
  isRequired: boolean;
  createdAt: Date;
}

export interface DimensionInput {
  name: string;
  key: string;
  description?: string | null;
  valueType: DimensionValueType;
  isRequired?: boolean;
}

interface DimensionRow {
  id: string;
  organization_id: string;
  name: string;
  key: string;
  description: string | null;
  value_type: DimensionValueType;
  is_required: boolean;
  created_at: Date;
}

const COLUMNS = 'id, organization_id, name, key, description, value_type, is_required, created_at';

function toDimension(r: DimensionRow): DimensionDefinition {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    key: r.key,
    description: r.description,
    valueType: r.value_type,
    isRequired: r.is_required,
    createdAt: r.created_at,
  };
}

/** Unknown organization → NotFoundError; a key already defined → ConflictError. */
export async function createDimension(db: Queryable, organizationId: string, input: DimensionInput): Promise<DimensionDefinition> {
  if (!isUuid(organizationId)) throw new NotFoundError('organization', organizationId);
  try {
    const [row] = await db.query<DimensionRow>(
      `INSERT INTO dimension_definitions (organization_id, name, key, description, value_type, is_required)
       VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${COLUMNS}`,
      [organizationId, input.name, input.key, input.description ?? null, input.valueType, input.isRequired ?? false],
    );
    return toDimension(row!);
  } catch (err) {
    if (sqlState(err) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('organization', organizationId);
    if (sqlState(err) === UNIQUE_VIOLATION) throw new ConflictError(`dimension ${input.key} already exists`);
    throw err;
  }
}

/** Definitions ordered by key. */
export async function listDimensions(db: Queryable, organizationId: string): Promise<DimensionDefinition[]> {
  if (!isUuid(organizationId)) return [];
  const rows = await db.query<DimensionRow>(`SELECT ${COLUMNS} FROM dimension_definitions WHERE organization_id = $1 ORDER BY key`, [
    organizationId,
  ]);
  return rows.map(toDimension);
}

export async function getDimension(db: Queryable, organizationId: string, key: string): Promise<DimensionDefinition | null> {
  if (!isUuid(organizationId)) return null;
  const [row] = await db.query<DimensionRow>(`SELECT ${COLUMNS} FROM dimension_definitions WHERE organization_id = $1 AND key = $2`, [
    organizationId,
    key,
  ]);
  return row ? toDimension(row) : null;
}

/** Key and value type of every dimension of these organizations (ids that are not UUIDs have none). */
export async function listDimensionKeys(
  db: Queryable,
  organizationIds: readonly string[],
): Promise<Array<{ organizationId: string; key: string; valueType: DimensionValueType }>> {
  const ids = organizationIds.filter(isUuid);
  if (ids.length === 0) return [];
  const rows = await db.query<{ organization_id: string; key: string; value_type: DimensionValueType }>(
    `SELECT organization_id, key, value_type FROM dimension_definitions WHERE organization_id = ANY($1::uuid[]) ORDER BY organization_id, key`,
    [ids],
  );
  return rows.map((r) => ({ organizationId: r.organization_id, key: r.key, valueType: r.value_type }));
}
