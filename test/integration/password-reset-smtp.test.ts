// Password reset by mail (PGlite and PostgreSQL): a real SMTP server on loopback (smtp-server,
// authentication required, STARTTLS off) receives the link from the SMTP sender, the link sets the
// new password; with the server down (or silent) the ask still answers 202 at once, the failure stays
// inside the delivery within its time bound, and once the server is back the next ask arrives.
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { describeEachHost, http, type TestHost } from '../support/http.js';
import { asPerson, createOrganization, expectEnvelope, signIn, signedInPerson } from '../support/people.js';

const NEW_PASSWORD = 'a brand new passphrase, long enough';
const SMTP_USER = 'marginal-relay';
const SMTP_PASSWORD = 'relay password, not a reset token';
const LINK = /https:\/\/console\.example\.test\/#\/reset-password\?token=([A-Za-z0-9_-]{43})/;

interface ReceivedMail {
  /** The authenticated SMTP user of the session that carried it. */
  user: string | undefined;
  mailFrom: string;
  rcptTo: string[];
  raw: string;
}

/** An SMTP server on 127.0.0.1 that takes mail only from SMTP_USER and keeps each message. */
class MailCatcher {
  readonly mails: ReceivedMail[] = [];
  port = 0;
  private server: SMTPServer | null = null;

  async start(port = 0): Promise<this> {
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      disableReverseLookup: true,
      closeTimeout: 1_000,
      onAuth: (auth, _session, callback) => {
        if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          this.mails.push({
            user: session.user as string | undefined,
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as { port: number }).port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The header `name` and each part's decoded body by content type (quoted-printable, base64 or 7bit). */
function readMail(raw: string): { header(name: string): string | undefined; part(type: string): string } {
  const [head = ''] = raw.split('\r\n\r\n');
  const unfolded = head.replace(/\r\n[ \t]+/g, ' ');
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(unfolded)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`).slice(1, -1) : [];
  return {
    header: (name) => new RegExp(`^${name}: (.*)$`, 'im').exec(unfolded)?.[1],
    part(type) {
      const found = parts.find((p) => new RegExp(`^Content-Type: ${type}\\b`, 'im').test(p));
      if (!found) throw new Error(`no ${type} part in:\n${raw}`);
      const [partHead = '', ...rest] = found.replace(/^\r\n/, '').split('\r\n\r\n');
      const body = rest.join('\r\n\r\n');
      const encoding = /^Content-Transfer-Encoding: (\S+)/im.exec(partHead)?.[1]?.toLowerCase();
      if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8');
      if (encoding !== 'quoted-printable') return body;
      return Buffer.from(
        body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
        'latin1',
      ).toString('utf8');
    },
  };
}

/** A TCP server on `port` that accepts connections and never says a word (an SMTP relay that hangs). */
async function silentServer(port: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const catcher = await new MailCatcher().start();
afterAll(() => catcher.stop());

describeEachHost(
  'password reset by SMTP',
  ({ host }) => {
    let h: TestHost;
    let org: string;

    beforeAll(async () => {
      h = host();
      org = await createOrganization(h, 'Reset by mail');
    });

    function ask(email: string) {
      return http(h.url, 'POST', '/v1/auth/password-reset', { json: { email } });
    }

    /** The mail the SMTP server received for `email` (waits for it). */
    async function delivered(email: string, after: number): Promise<ReceivedMail> {
      for (let i = 0; i < 400; i++) {
        const found = catcher.mails.slice(after).find((m) => m.rcptTo.includes(email));
        if (found) return found;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no reset mail received for ${email}`);
    }

    /** Waits for the links still being made and sent (the api's own wait at stop). */
    async function deliveriesSettled(): Promise<void> {
      const resets = h.host.ctx.services.passwordResets;
      if (!resets) throw new Error('the api has no password resets');
      await resets.settled();
    }

    async function expiresAt(token: string): Promise<Date> {
      const rows = await h.db.query<{ expires_at: Date }>(
        "SELECT expires_at FROM password_resets WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')",
        [token],
      );
      expect(rows).toHaveLength(1);
      return new Date(rows[0]!.expires_at);
    }

    it('the mail arrives through the authenticated relay, names the link and its expiry, and the link sets the new password', async () => {
      const p = await signedInPerson(h, org, 'analyst');
      const before = catcher.mails.length;
      const res = await ask(p.email);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ status: 'accepted' });

      const mail = await delivered(p.email, before);
      expect(mail.user).toBe(SMTP_USER);
      expect(mail.mailFrom).toBe('reset@marginal.example');
      expect(mail.rcptTo).toEqual([p.email]);
      const read = readMail(mail.raw);
      expect(read.header('From')).toBe('Marginal <reset@marginal.example>');
      expect(read.header('To')).toBe(p.email);
      expect(read.header('Subject')).toBe('Reset your Marginal password');

      const text = read.part('text/plain');
      const [url, token] = LINK.exec(text) ?? [];
      expect(token, text).toBeDefined();
      const expiry = (await expiresAt(token!)).toISOString().slice(0, 16).replace('T', ' ');
      expect(text).toContain(`expires in 30 minutes (${expiry} UTC)`);
      const html = read.part('text/html');
      expect(html).toContain(`<a href="${url}">`);
      expect(html).toContain(`expires in 30 minutes (${expiry} UTC)`);

      const done = await http(h.url, 'POST', '/v1/auth/password-reset/confirm', { json: { token, password: NEW_PASSWORD } });
      expect(done.status, JSON.stringify(done.body)).toBe(204);
      expect((await signIn(h, p.email)).res.status).toBe(401);
      const signedIn = await signIn(h, p.email, NEW_PASSWORD);
      expect(signedIn.res.status).toBe(200);
      expect((await asPerson(h, signedIn, 'GET', '/v1/cost-data/summary')).status).toBe(200);
    });

    it('with the SMTP server down the ask answers 202 at once, nothing else fails, and the next ask after it is back arrives', async () => {
      const p = await signedInPerson(h, org, 'viewer');
      const port = catcher.port;
      await catcher.stop();
      try {
        const started = performance.now();
        const res = await ask(p.email);
        expect(res.status).toBe(202);
        expect(res.body).toEqual({ status: 'accepted' });
        expect(performance.now() - started).toBeLessThan(2_000);
        // The refused connection ends the delivery well within its bound (no hang for the api's stop).
        const settling = performance.now();
        await deliveriesSettled();
        expect(performance.now() - settling).toBeLessThan(10_000);
        // The link was made (and audited) before delivery failed; the person and the service are untouched.
        const made = await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM password_resets WHERE person_id = $1', [p.personId]);
        expect(made[0]!.n).toBe(1);
        expect((await asPerson(h, p, 'GET', '/v1/cost-data/summary')).status).toBe(200);
        expect((await signIn(h, p.email)).res.status).toBe(200);
      } finally {
        await catcher.start(port);
      }

      const before = catcher.mails.length;
      expect((await ask(p.email)).status).toBe(202);
      const [, token] = LINK.exec(readMail((await delivered(p.email, before)).raw).part('text/plain')) ?? [];
      const done = await http(h.url, 'POST', '/v1/auth/password-reset/confirm', { json: { token, password: NEW_PASSWORD } });
      expect(done.status, JSON.stringify(done.body)).toBe(204);
      expect((await signIn(h, p.email, NEW_PASSWORD)).res.status).toBe(200);
      expectEnvelope(
        await http(h.url, 'POST', '/v1/auth/password-reset/confirm', { json: { token, password: NEW_PASSWORD } }),
        400,
        'token',
      );
    });

    it('a server that accepts the connection and never answers holds neither the ask nor the delivery past its bound', async () => {
      const p = await signedInPerson(h, org, 'viewer');
      const port = catcher.port;
      await catcher.stop();
      const silent = await silentServer(port);
      try {
        const started = performance.now();
        expect((await ask(p.email)).status).toBe(202);
        expect(performance.now() - started).toBeLessThan(2_000);
        // The greeting waits 10 s at most (SMTP_STEP_TIMEOUT_MS); then the delivery gives up.
        const settling = performance.now();
        await deliveriesSettled();
        expect(performance.now() - settling).toBeLessThan(25_000);
        expect((await asPerson(h, p, 'GET', '/v1/cost-data/summary')).status).toBe(200);
      } finally {
        await silent.close();
        await catcher.start(port);
      }
    });
  },
  {
    env: {
      PUBLIC_URL: 'https://console.example.test',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(catcher.port),
      SMTP_USER,
      SMTP_PASSWORD,
      SMTP_FROM: 'Marginal <reset@marginal.example>',
    },
  },
);
