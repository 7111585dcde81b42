// Password reset, as a person and as an attacker would try it (PGlite and PostgreSQL): the link
// arrives by the webhook sender, works once, expires, refuses a wrong token, ends every session of
// the person; a known and an unknown email get the same answer; asks are limited per email.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachHost, http, type TestHost } from '../support/http.js';
import { asPerson, createOrganization, expectEnvelope, PASSWORD, signIn, signedInPerson, uniqueEmail } from '../support/people.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const NEW_PASSWORD = 'a brand new passphrase, long enough';
const receiver = await new WebhookReceiver().start();
afterAll(() => receiver.stop());

describeEachHost(
  'password reset',
  ({ host }) => {
    let h: TestHost;
    let org: string;

    beforeAll(async () => {
      h = host();
      org = await createOrganization(h, 'Reset');
    });

    function ask(email: string, headers: Record<string, string> = {}) {
      return http(h.url, 'POST', '/v1/auth/password-reset', { json: { email }, headers });
    }

    function confirm(token: string, password = NEW_PASSWORD) {
      return http(h.url, 'POST', '/v1/auth/password-reset/confirm', { json: { token, password } });
    }

    /** The link the webhook sender delivered for `email` (waits for it). */
    async function delivered(email: string, after = 0): Promise<{ token: string; url: string; expires_at: string }> {
      for (let i = 0; i < 200; i++) {
        const found = receiver.received
          .slice(after)
          .map((r) => JSON.parse(r.body))
          .find((b) => b.email === email);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no reset link delivered for ${email}`);
    }

    it('the link arrives signed, sets the new password, and ends every session of the person', async () => {
      const p = await signedInPerson(h, org, 'analyst');
      const other = await signIn(h, p.email);
      const before = receiver.received.length;
      const res = await ask(p.email.toUpperCase());
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ status: 'accepted' });
      const link = await delivered(p.email, before);
      expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(link.url).toBe(`https://console.example.test/#/reset-password?token=${link.token}`);
      const hook = receiver.received.slice(before).find((r) => r.body.includes(link.token))!;
      expect(hook.headers['marginal-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      // Only the hash is stored.
      const stored = await h.db.query<{ token_hash: string }>('SELECT token_hash FROM password_resets');
      expect(JSON.stringify(stored)).not.toContain(link.token);

      const done = await confirm(link.token);
      expect(done.status, JSON.stringify(done.body)).toBe(204);
      for (const s of [p, other]) expectEnvelope(await asPerson(h, s, 'GET', '/v1/cost-data/summary'), 401, 'marginal_session');
      expect((await signIn(h, p.email)).res.status).toBe(401);
      expect((await signIn(h, p.email, NEW_PASSWORD)).res.status).toBe(200);

      // Used twice: refused, and the password stays the one set.
      const again = await confirm(link.token, 'yet another passphrase here');
      expectEnvelope(again, 400, 'token');
      expect(again.body.error.message).toBe('token: was already used');
      expect((await signIn(h, p.email, NEW_PASSWORD)).res.status).toBe(200);

      // Audited as the person's own rows, never with the token or a password.
      const owner = await signedInPerson(h, org, 'owner');
      const trail = await asPerson(h, owner, 'GET', `/v1/audit-events?person_id=${p.personId}&limit=1000`);
      const actions = trail.body.audit_events.map((e: any) => e.action);
      expect(actions).toEqual(expect.arrayContaining(['password_reset.requested', 'password_reset.completed']));
      const completed = trail.body.audit_events.find((e: any) => e.action === 'password_reset.completed');
      expect(completed).toMatchObject({ actor: { kind: 'person', id: p.personId }, details: { sessions_ended: 2 } });
      const text = JSON.stringify(trail.body);
      for (const secret of [link.token, NEW_PASSWORD, PASSWORD]) expect(text).not.toContain(secret);
    });

    it('an expired token and a wrong token are refused, and a weak password names the field', async () => {
      const p = await signedInPerson(h, org, 'viewer');
      const before = receiver.received.length;
      expect((await ask(p.email)).status).toBe(202);
      const link = await delivered(p.email, before);
      expectEnvelope(await confirm(link.token, 'short'), 400, 'password');
      expectEnvelope(await confirm(`${link.token.slice(0, -2)}xx`), 400, 'token');
      expectEnvelope(await confirm('not-a-token'), 400, 'token');
      await h.db.query(
        "UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')",
        [link.token],
      );
      const expired = await confirm(link.token);
      expectEnvelope(expired, 400, 'token');
      expect(expired.body.error.message).toBe('token: has expired; ask for a new link');
      // Nothing changed: the old password still signs in, the session still reads.
      expect((await signIn(h, p.email)).res.status).toBe(200);
      expect((await asPerson(h, p, 'GET', '/v1/cost-data/summary')).status).toBe(200);
    });

    it('a known and an unknown email get the same status and body; only the known one gets a link', async () => {
      const p = await signedInPerson(h, org, 'viewer');
      const unknown = uniqueEmail('nobody');
      const before = receiver.received.length;
      const [known, stranger] = [await ask(p.email), await ask(unknown)];
      expect(stranger.status).toBe(known.status);
      expect(stranger.body).toEqual(known.body);
      await delivered(p.email, before);
      await new Promise((r) => setTimeout(r, 200));
      expect(receiver.received.slice(before).some((r) => r.body.includes(unknown))).toBe(false);
      expectEnvelope(await ask('not an email'), 400, 'email');
    });

    it('asks are limited per email (an unknown one alike), then answer 429 naming the field', async () => {
      for (const email of [uniqueEmail('flood'), (await signedInPerson(h, org, 'viewer')).email]) {
        const statuses = [];
        for (let i = 0; i < 4; i++) statuses.push((await ask(email)).status);
        expect(statuses).toEqual([202, 202, 202, 429]);
        const limited = await ask(email);
        expectEnvelope(limited, 429, 'email');
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    });
  },
  {
    env: {
      PASSWORD_RESET_WEBHOOK_URL: receiver.url,
      PASSWORD_RESET_WEBHOOK_SECRET: 'whsec_test_reset',
      PUBLIC_URL: 'https://console.example.test',
    },
  },
);
