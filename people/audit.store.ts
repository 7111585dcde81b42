// The audit trail's storage (audit_events): one row per recorded action, never a secret in
// `details`. An organization's trail holds its own rows and the personal rows (sign-in, sign-out)
// of the people who are its members now.
import type { Queryable } from '../core/control/db.js';
import type { ActorKind, AuditEntry } from '../core/http/audit-trail.js';

export interface AuditRow {
  id: string;
  occurred_at: Date;
  organization_id: string | null;
  action: string;
  actor_kind: ActorKind;
  actor_id: string | null;
  subject_person_id: string | null;
  address: string | null;
  details: Record<string, unknown>;
}

export async function recordAudit(db: Queryable, e: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_events (organization_id, action, actor_kind, actor_id, subject_person_id, address, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
    [e.organizationId, e.action, e.actorKind, e.actorId, e.subjectPersonId, e.address, JSON.stringify(e.details)],
  );
}

export interface AuditFilter {
  organizationId: string;
  action: string | null;
  actorKind: ActorKind | null;
  personId: string | null;
  start: Date | null;
  end: Date | null;
  limit: number;
  offset: number;
}

/** Newest first; `total` counts every match. */
export async function listAudit(db: Queryable, f: AuditFilter): Promise<{ rows: AuditRow[]; total: number }> {
  const where = `(a.organization_id = $1 OR (a.organization_id IS NULL AND a.subject_person_id IN
                    (SELECT person_id FROM memberships WHERE organization_id = $1)))
     AND ($2::text IS NULL OR a.action = $2)
     AND ($3::text IS NULL OR a.actor_kind = $3)
     AND ($4::uuid IS NULL OR a.subject_person_id = $4 OR (a.actor_kind = 'person' AND a.actor_id = $4::text))
     AND ($5::timestamptz IS NULL OR a.occurred_at >= $5)
     AND ($6::timestamptz IS NULL OR a.occurred_at < $6)`;
  const params = [f.organizationId, f.action, f.actorKind, f.personId, f.start, f.end];
  const [rows, count] = await Promise.all([
    db.query<AuditRow>(
      `SELECT a.id, a.occurred_at, a.organization_id, a.action, a.actor_kind, a.actor_id, a.subject_person_id, a.address, a.details
         FROM audit_events a WHERE ${where} ORDER BY a.occurred_at DESC, a.id LIMIT $7 OFFSET $8`,
      [...params, f.limit, f.offset],
    ),
    db.query<{ total: string }>(`SELECT count(*)::text AS total FROM audit_events a WHERE ${where}`, params),
  ]);
  return { rows, total: Number(count[0]!.total) };
}

/** Deletes at most `limit` rows that occurred before `cutoff` (retention); returns how many. Bounded, so the caller loops. */
export async function deleteAuditBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
  const [row] = await db.query<{ deleted: number }>(
    `WITH gone AS (
       DELETE FROM audit_events
        WHERE id = ANY (ARRAY(SELECT id FROM audit_events WHERE occurred_at < $1 LIMIT $2))
       RETURNING 1)
     SELECT count(*)::int AS deleted FROM gone`,
    [cutoff, limit],
  );
  return row?.deleted ?? 0;
}
