// Password resets' storage (core/control/migrations/026_password_resets.sql): tokens arrive hashed.
import type { Queryable } from '../core/control/db.js';

export interface PasswordResetRow {
  id: string;
  person_id: string;
  expires_at: Date;
  used_at: Date | null;
  /** Judged by the database's clock. */
  expired: boolean;
}

export async function insertPasswordReset(
  db: Queryable,
  r: { personId: string; tokenHash: string; lifetimeMinutes: number },
): Promise<{ id: string; expires_at: Date }> {
  const rows = await db.query<{ id: string; expires_at: Date }>(
    `INSERT INTO password_resets (person_id, token_hash, expires_at)
     VALUES ($1, $2, now() + make_interval(mins => $3::int)) RETURNING id, expires_at`,
    [r.personId, r.tokenHash, r.lifetimeMinutes],
  );
  return rows[0]!;
}

/** The reset of a token hash, locked until the transaction ends (so two confirmations cannot both pass). */
export async function lockedPasswordReset(db: Queryable, tokenHash: string): Promise<PasswordResetRow | null> {
  const rows = await db.query<PasswordResetRow>(
    `SELECT id, person_id, expires_at, used_at, expires_at <= now() AS expired
       FROM password_resets WHERE token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

/** Marks every open reset of the person used: the confirmed one and any other link still out. */
export async function closePasswordResets(db: Queryable, personId: string): Promise<void> {
  await db.query('UPDATE password_resets SET used_at = now() WHERE person_id = $1 AND used_at IS NULL', [personId]);
}

/** Forgets resets that ended more than a day ago, so the table stays small. */
export async function forgetOldPasswordResets(db: Queryable): Promise<void> {
  await db.query("DELETE FROM password_resets WHERE expires_at < now() - interval '1 day'");
}

export async function setPasswordHash(db: Queryable, personId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE people SET password_hash = $2 WHERE id = $1', [personId, passwordHash]);
}
