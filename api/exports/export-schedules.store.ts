// The SQL of scheduled exports (control plane): schedules, and one run per (schedule, period)
// claimed with a lease (SKIP LOCKED, so api replicas never run one twice at once; a run whose
// process died is claimed again when its lease has passed). A run is finished only by the attempt
// that holds it (status running and the same attempt number), so a late, stale worker changes nothing.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../core/control/db.js';
import type { ExportDestination, ExportPeriod, ScheduleInput } from './export-schedules.js';
import type { ExportFrequency, ExportKind, ExportRunStatus, ExportRunView, ExportScheduleView } from './exports.types.js';

export interface ScheduleRecord {
  id: string;
  organization_id: string;
  kind: ExportKind;
  frequency: ExportFrequency;
  destination: ExportDestination;
  secret_key_sealed: string | null;
  dimensions: string[];
  created_at: Date;
}

export interface RunRecord {
  id: string;
  schedule_id: string;
  organization_id: string;
  period_start: string;
  period_end: string;
  object_key: string;
  status: ExportRunStatus;
  attempts: number;
  next_attempt_at: Date;
  row_count: number | string | null;
  byte_count: number | string | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const SCHEDULE_COLUMNS = 'id, organization_id, kind, frequency, destination, secret_key_sealed, dimensions, created_at';
// Dates as text: a DATE column would come back as a local-midnight Date.
const RUN_COLUMNS = `r.id, r.schedule_id, r.organization_id, r.period_start::text AS period_start, r.period_end::text AS period_end,
  r.object_key, r.status, r.attempts, r.next_attempt_at, r.row_count, r.byte_count, r.last_error, r.created_at, r.finished_at`;

export function scheduleView(s: ScheduleRecord): ExportScheduleView {
  const d = s.destination;
  return {
    id: s.id,
    organization_id: s.organization_id,
    kind: s.kind,
    frequency: s.frequency,
    destination: d.type === 's3' ? `s3://${d.bucket}/${d.prefix}` : d.path,
    s3:
      d.type === 's3'
        ? {
            endpoint: d.endpoint,
            region: d.region,
            url_style: d.url_style,
            use_ssl: d.use_ssl,
            access_key_id: d.access_key_id,
            secret_key_hint: d.secret_key_hint,
          }
        : null,
    dimensions: s.dimensions,
    created_at: new Date(s.created_at).toISOString(),
  };
}

/** A new schedule; `createdAt` is the api's clock (the first period owed is the one due then, export-schedules.ts). */
export async function insertSchedule(
  db: Queryable,
  s: { id: string; organizationId: string; input: ScheduleInput; secretKeySealed: string | null; createdAt: Date },
): Promise<ScheduleRecord> {
  const [row] = await db.query<ScheduleRecord>(
    `INSERT INTO export_schedules (id, organization_id, kind, frequency, destination, secret_key_sealed, dimensions, created_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8) RETURNING ${SCHEDULE_COLUMNS}`,
    [
      s.id,
      s.organizationId,
      s.input.kind,
      s.input.frequency,
      JSON.stringify(s.input.destination),
      s.secretKeySealed,
      JSON.stringify(s.input.dimensions),
      s.createdAt,
    ],
  );
  return row!;
}

export async function listSchedules(db: Queryable, organizationId: string | null): Promise<ScheduleRecord[]> {
  return db.query<ScheduleRecord>(
    `SELECT ${SCHEDULE_COLUMNS} FROM export_schedules WHERE ($1::uuid IS NULL OR organization_id = $1) ORDER BY created_at, id`,
    [organizationId],
  );
}

export async function getSchedule(db: Queryable, scheduleId: string): Promise<ScheduleRecord | null> {
  const [row] = await db.query<ScheduleRecord>(`SELECT ${SCHEDULE_COLUMNS} FROM export_schedules WHERE id = $1`, [scheduleId]);
  return row ?? null;
}

/** Deletes the schedule and its runs; what was deleted, or null when the organization has no such schedule. */
export async function deleteSchedule(db: Queryable, organizationId: string, scheduleId: string): Promise<ScheduleRecord | null> {
  const [row] = await db.query<ScheduleRecord>(
    `DELETE FROM export_schedules WHERE organization_id = $1 AND id = $2 RETURNING ${SCHEDULE_COLUMNS}`,
    [organizationId, scheduleId],
  );
  return row ?? null;
}

/** The period's run, made pending if it does not exist yet; returns whether it was made now. */
export async function ensureRun(db: Queryable, s: ScheduleRecord, period: ExportPeriod, key: string, now: Date): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO export_runs (id, schedule_id, organization_id, period_start, period_end, object_key, status, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7)
     ON CONFLICT (schedule_id, period_start) DO NOTHING RETURNING id`,
    [randomUUID(), s.id, s.organization_id, period.start, period.end, key, now],
  );
  return rows.length > 0;
}

/** Takes one due run (pending and due, or running with its lease passed) for `leaseMs`; null when none. */
export async function claimRun(db: Queryable, now: Date, leaseMs: number): Promise<RunRecord | null> {
  const [row] = await db.query<RunRecord>(
    `UPDATE export_runs r SET status = 'running', attempts = r.attempts + 1, lease_until = $2
      WHERE r.id = (SELECT id FROM export_runs
                     WHERE (status = 'pending' AND next_attempt_at <= $1) OR (status = 'running' AND lease_until <= $1)
                     ORDER BY next_attempt_at, period_start, id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING ${RUN_COLUMNS}`,
    [now, new Date(now.getTime() + leaseMs)],
  );
  return row ?? null;
}

export async function succeedRun(db: Queryable, run: RunRecord, rows: number, bytes: number, now: Date): Promise<boolean> {
  const updated = await db.query(
    `UPDATE export_runs SET status = 'succeeded', row_count = $3, byte_count = $4, last_error = NULL, lease_until = NULL, finished_at = $5
      WHERE id = $1 AND status = 'running' AND attempts = $2 RETURNING id`,
    [run.id, run.attempts, rows, bytes, now],
  );
  return updated.length > 0;
}

/** After a failed attempt: pending again at `retryAt`, or failed for good when retryAt is null. */
export async function failAttempt(db: Queryable, run: RunRecord, error: string, retryAt: Date | null, now: Date): Promise<boolean> {
  const updated = await db.query(
    `UPDATE export_runs
        SET status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
            next_attempt_at = coalesce($4::timestamptz, next_attempt_at), last_error = $3, lease_until = NULL,
            finished_at = CASE WHEN $4::timestamptz IS NULL THEN $5::timestamptz END
      WHERE id = $1 AND status = 'running' AND attempts = $2 RETURNING id`,
    [run.id, run.attempts, error, retryAt, now],
  );
  return updated.length > 0;
}

function numberOrNull(v: number | string | null): number | null {
  return v === null ? null : Number(v);
}

export async function listExportRuns(db: Queryable, organizationId: string, scheduleId: string | null): Promise<ExportRunView[]> {
  const rows = await db.query<RunRecord & { kind: ExportKind; frequency: ExportFrequency }>(
    `SELECT ${RUN_COLUMNS}, s.kind, s.frequency FROM export_runs r JOIN export_schedules s ON s.id = r.schedule_id
      WHERE r.organization_id = $1 AND ($2::uuid IS NULL OR r.schedule_id = $2)
      ORDER BY r.period_start DESC, r.created_at DESC, r.id LIMIT 1000`,
    [organizationId, scheduleId],
  );
  return rows.map((r) => ({
    id: r.id,
    schedule_id: r.schedule_id,
    kind: r.kind,
    frequency: r.frequency,
    period_start: r.period_start,
    period_end: r.period_end,
    status: r.status,
    attempts: r.attempts,
    object_key: r.object_key,
    rows: numberOrNull(r.row_count),
    bytes: numberOrNull(r.byte_count),
    error: r.last_error,
    next_attempt_at: new Date(r.next_attempt_at).toISOString(),
    created_at: new Date(r.created_at).toISOString(),
    finished_at: r.finished_at === null ? null : new Date(r.finished_at).toISOString(),
  }));
}
