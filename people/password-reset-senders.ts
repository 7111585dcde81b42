// How a password-reset link reaches its person: pluggable senders, each told every link. By
// default a log line (without the token unless PASSWORD_RESET_LOG_LINKS: decision 0138) and, when
// PASSWORD_RESET_WEBHOOK_URL is set, a signed POST there (the operator's mailer or chat relays it);
// a mail through the SMTP_HOST relay when it is set (decision 0144). Senders run after the ask was
// answered; each is bounded in time, so an unreachable relay or endpoint delays nothing but itself
// (and the api's stop, which waits for links still being sent).
import { createTransport, type Transporter } from 'nodemailer';
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

type SmtpSettings = NonNullable<Config['passwordReset']['smtp']>;

/** Each SMTP step's bound (connect, DNS, greeting, a silent socket) and the whole mail's, in ms. */
const SMTP_STEP_TIMEOUT_MS = 10_000;
const SMTP_SEND_TIMEOUT_MS = 30_000;

/** One mail per link through the operator's relay: a new connection each (resets are rare), STARTTLS when offered. */
class SmtpSender implements PasswordResetSender {
  readonly name = 'smtp';
  private readonly transport: Transporter;

  constructor(smtp: SmtpSettings) {
    this.transport = createTransport(
      {
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user === null ? undefined : { user: smtp.user, pass: smtp.password?.reveal() ?? '' },
        connectionTimeout: SMTP_STEP_TIMEOUT_MS,
        greetingTimeout: SMTP_STEP_TIMEOUT_MS,
        socketTimeout: SMTP_STEP_TIMEOUT_MS,
        dnsTimeout: SMTP_STEP_TIMEOUT_MS,
      },
      { from: smtp.from },
    );
  }

  async send(m: PasswordResetMessage): Promise<void> {
    const mail = passwordResetMail(m, new Date());
    try {
      // The address as one mailbox, never parsed as a list (a local part may hold a comma).
      await this.transport.sendMail({ to: { name: '', address: m.email }, ...mail, signal: AbortSignal.timeout(SMTP_SEND_TIMEOUT_MS) });
    } catch (err) {
      // Only what names the failure: nodemailer's error may carry the message, and with it the token.
      const { code, command, responseCode } = err as { code?: string; command?: string; responseCode?: number };
      throw new Error(
        `SMTP delivery failed (${[code, command, responseCode].filter(Boolean).join(' ') || 'no code'}): ${(err as Error).message}`,
      );
    }
  }
}

/** The mail of one link: subject, a plain-text body and a short HTML one, each with the link and its expiry. */
function passwordResetMail(m: PasswordResetMessage, now: Date): { subject: string; text: string; html: string } {
  const minutes = Math.max(1, Math.round((m.expiresAt.getTime() - now.getTime()) / 60_000));
  const expiry = `in ${minutes} minutes (${m.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
  const asked = `Someone asked to reset the password of the Marginal account ${m.email}.`;
  const ignore = 'If it was not you, ignore this mail: the password stays as it is.';
  return {
    subject: 'Reset your Marginal password',
    text: `${asked}\n\nChoose a new password here:\n${m.link}\n\nThe link works once and expires ${expiry}. ${ignore}\n`,
    html: [
      `<p>${escapeHtml(asked)}</p>`,
      `<p><a href="${escapeHtml(m.link)}">Choose a new password</a></p>`,
      `<p>The link works once and expires ${escapeHtml(expiry)}. ${escapeHtml(ignore)}</p>`,
    ].join('\n'),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The senders the configuration asks for: the log line always, the webhook and SMTP when set. */
export function passwordResetSenders(config: Config, logger: Logger): PasswordResetSender[] {
  const { passwordReset } = config;
  const senders: PasswordResetSender[] = [new LogSender(logger, passwordReset.logLinks)];
  if (passwordReset.webhookUrl) senders.push(new WebhookSender(passwordReset.webhookUrl, passwordReset.webhookSecret?.reveal() ?? null));
  if (passwordReset.smtp) senders.push(new SmtpSender(passwordReset.smtp));
  return senders;
}
