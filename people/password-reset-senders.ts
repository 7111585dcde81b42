// How a password-reset link reaches its person: pluggable senders, each told every link. By
// default a log line (without the token unless PASSWORD_RESET_LOG_LINKS: decision 0138) and, when
// PASSWORD_RESET_WEBHOOK_URL is set, a signed POST there (the operator's mailer or chat relays it);
// SMTP when SMTP_HOST is set, which needs an SMTP client this build does not include (start fails
// saying so rather than dropping links silently).
import type { Config } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { SIGNATURE_HEADER, signatureHeader } from '../alerts/webhooks/signature.js';

interface PasswordResetMessage {
  resetId: string;
  email: string;
  /** The console page that takes the token (in the fragment, so it never reaches a server log). */
  link: string;
  token: string;
  expiresAt: Date;
}

export interface PasswordResetSender {
  readonly name: string;
  send(message: PasswordResetMessage): Promise<void>;
}

const WEBHOOK_TIMEOUT_MS = 5_000;

class LogSender implements PasswordResetSender {
  readonly name = 'log';
  constructor(
    private readonly logger: Logger,
    private readonly withLink: boolean,
  ) {}

  async send(m: PasswordResetMessage): Promise<void> {
    const fields = { reset_id: m.resetId, email: m.email, expires_at: m.expiresAt.toISOString() };
    this.logger.info(this.withLink ? { ...fields, link: m.link } : fields, 'password reset requested');
  }
}

class WebhookSender implements PasswordResetSender {
  readonly name = 'webhook';
  constructor(
    private readonly url: string,
    private readonly secret: string | null,
  ) {}

  async send(m: PasswordResetMessage): Promise<void> {
    const body = JSON.stringify({
      type: 'password_reset.requested',
      reset_id: m.resetId,
      email: m.email,
      url: m.link,
      token: m.token,
      expires_at: m.expiresAt.toISOString(),
    });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.secret) headers[SIGNATURE_HEADER] = signatureHeader([this.secret], Date.now() / 1000, body);
    const res = await fetch(this.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.status < 200 || res.status >= 300) throw new Error(`password reset webhook answered ${res.status}`);
  }
}

/** The senders the configuration asks for; throws when it asks for SMTP (no client in this build). */
export function passwordResetSenders(config: Config, logger: Logger): PasswordResetSender[] {
  const { passwordReset } = config;
  if (passwordReset.smtp) {
    throw new Error('SMTP_HOST is set, but this build has no SMTP client (SMTP delivery needs the nodemailer package); unset SMTP_HOST');
  }
  const senders: PasswordResetSender[] = [new LogSender(logger, passwordReset.logLinks)];
  if (passwordReset.webhookUrl) senders.push(new WebhookSender(passwordReset.webhookUrl, passwordReset.webhookSecret?.reveal() ?? null));
  return senders;
}
