// Password reset: asking for a link answers the same whether or not the email has an account (the
// work happens after the answer, so not even its time tells), and each ask is limited per address
// and per email. A link's token is single use, expires after 30 minutes, and is stored only as its
// SHA-256; confirming sets the password, closes every open reset of the person, ends all their
// sessions and forgets their sign-in failures, in one transaction.
import type { ControlDb } from '../core/control/db.js';
import type { RateLimiter } from '../core/http/rate-limit.js';
import { ValidationError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { recordAudit } from './audit.store.js';
import { checkNewPassword, hashPassword } from './passwords.js';
import { PasswordResetLimitedError } from './people-errors.js';
import * as store from './people.store.js';
import { hashToken, newToken } from './people-tokens.js';
import type { PasswordResetSender } from './password-reset-senders.js';
import * as resets from './password-resets.store.js';

const LIFETIME_MINUTES = 30;
const WINDOW_MS = 15 * 60_000;
/** Asks per email and per address in 15 minutes: enough for a person who lost the first mail, too few to flood a mailbox. */
const PER_EMAIL = 3;
const PER_ADDRESS = 30;

declare module '../core/app-context.js' {
  interface AppServices {
    /** Password resets (people/): filled by the api's wiring. */
    passwordResets: PasswordResets;
  }
}

export class PasswordResets {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: ControlDb,
    private readonly senders: readonly PasswordResetSender[],
    private readonly logger: Logger,
    /** Where links point: PUBLIC_URL, else the address the service listens on (never a request's Host: no link poisoning). */
    private readonly origin: string,
  ) {}

  /**
   * Takes an ask for a link: refused (429) past the limits, which count unknown emails alike;
   * otherwise the link is made and sent after the caller has answered.
   */
  request(limiter: RateLimiter, email: string, address: string | null): void {
    for (const [name, key, limit] of [
      ['password-reset-email', email, PER_EMAIL],
      ['password-reset-address', address ?? 'unknown', PER_ADDRESS],
    ] as const) {
      const outcome = limiter.take({ name, limit, windowMs: WINDOW_MS }, key);
      if (!outcome.allowed) throw new PasswordResetLimitedError(outcome.retryAfterSeconds);
    }
    const work = this.issue(email, address)
      .catch((err) => this.logger.error({ err }, 'password reset not sent'))
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /** Makes and sends a link when the email has an account; nothing otherwise. */
  private async issue(email: string, address: string | null): Promise<void> {
    const person = await store.personByEmail(this.db, email);
    if (!person) return;
    const token = newToken();
    const reset = await this.db.transaction(async (tx) => {
      await resets.forgetOldPasswordResets(tx);
      const row = await resets.insertPasswordReset(tx, {
        personId: person.id,
        tokenHash: hashToken(token),
        lifetimeMinutes: LIFETIME_MINUTES,
      });
      await recordAudit(tx, {
        organizationId: null,
        action: 'password_reset.requested',
        actorKind: 'anonymous',
        actorId: null,
        subjectPersonId: person.id,
        address,
        details: { reset_id: row.id, email, expires_at: row.expires_at.toISOString() },
      });
      return row;
    });
    const message = {
      resetId: reset.id,
      email,
      link: `${this.origin}/#/reset-password?token=${token}`,
      token,
      expiresAt: reset.expires_at,
    };
    for (const sender of this.senders) {
      await sender
        .send(message)
        .catch((err) => this.logger.error({ err, sender: sender.name, reset_id: reset.id }, 'password reset link not delivered'));
    }
  }

  /** Sets a new password with a link's token; refused (400 naming `token`) when unknown, used or expired. */
  async confirm(token: string, password: string, address: string | null): Promise<{ personId: string; sessionsEnded: number }> {
    const tokenHash = hashToken(token);
    // Judged once before hashing (argon2, ~100 ms, must not run under the row lock), then again locked.
    refuseUnusable(await resets.lockedPasswordReset(this.db, tokenHash));
    const passwordHash = await hashPassword(checkNewPassword('password', password));
    return this.db.transaction(async (tx) => {
      const reset = await resets.lockedPasswordReset(tx, tokenHash);
      refuseUnusable(reset);
      const personId = reset!.person_id;
      await resets.setPasswordHash(tx, personId, passwordHash);
      await resets.closePasswordResets(tx, personId);
      const sessionsEnded = await store.deleteSessionsOfPerson(tx, personId);
      const email = await store.personEmail(tx, personId);
      await store.forgetFailures(tx, `account:${email}`);
      await recordAudit(tx, {
        organizationId: null,
        action: 'password_reset.completed',
        actorKind: 'person',
        actorId: personId,
        subjectPersonId: personId,
        address,
        details: { reset_id: reset!.id, sessions_ended: sessionsEnded },
      });
      return { personId, sessionsEnded };
    });
  }

  /** Waits for links still being made and sent (stop, tests). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}

function refuseUnusable(reset: resets.PasswordResetRow | null): void {
  if (!reset) throw new ValidationError('token', 'is not a valid password reset token');
  if (reset.used_at) throw new ValidationError('token', 'was already used');
  if (reset.expired) throw new ValidationError('token', 'has expired; ask for a new link');
}
