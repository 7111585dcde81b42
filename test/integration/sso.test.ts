// Single sign-on end to end against a real OpenID provider on 127.0.0.1 (oidc-provider): the CLI
// sets an organization's provider, a browser trip (fetch, by hand, with a cookie jar) signs a new
// person in with the configured role and the password sign-in's cookie and CSRF token; a second
// trip reuses the person; an existing member keeps their role; wrong domain, unverified email,
// tampered and replayed state, a reused code, a provider down or hanging, and an organization
// without SSO are refused in the error envelope; the audit trail records each.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { projectRoot } from '../../core/paths.js';
import { admin, describeEachHost, http, type TestHost } from '../support/http.js';
import { CookieJar, followUntil, startOpenIdProvider, type TestOpenIdProvider } from '../support/openid-provider.js';

const run = promisify(execFile);

describeEachHost('single sign-on', ({ host }) => {
  let h: TestHost;
  let idp: TestOpenIdProvider;
  let org: string;
  const suffix = crypto.randomBytes(4).toString('hex');
  const domain = `acme-${suffix}.example`;

  function account(name: string, email: string, emailVerified = true): string {
    const id = `${name}-${suffix}`;
    idp.accounts.set(id, { email, emailVerified });
    return id;
  }

  /** The browser's trip up to the callback URL the provider sends it back to (not yet fetched). */
  async function throughProvider(accountId: string, organizationId = org): Promise<{ callback: string; jar: CookieJar }> {
    idp.next.accountId = accountId;
    const jar = new CookieJar();
    const callback = await followUntil(`${h.url}/v1/auth/sso/start?organization_id=${organizationId}`, h.url, jar);
    expect(callback).toMatch(new RegExp(`^${h.url}/v1/auth/sso/callback\\?code=`));
    return { callback, jar };
  }

  function callBack(url: string, cookie = '') {
    return fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  }

  async function signInThrough(accountId: string) {
    const { callback } = await throughProvider(accountId);
    const res = await callBack(callback);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get('location')).toBe('/');
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^marginal_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const cookie = setCookie.split(';')[0]!;
    const session = await http(h.url, 'GET', '/v1/auth/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    return { cookie, session: session.body };
  }

  async function refusal(res: Response, status: number, field: string) {
    const body: any = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(body.success).toBe(false);
    expect(body.error.details.field).toBe(field);
    return body;
  }

  async function audit(action: string) {
    return h.db.query<{ organization_id: string | null; actor_kind: string; actor_id: string | null; details: any }>(
      'SELECT organization_id, actor_kind, actor_id, details FROM audit_events WHERE action = $1 ORDER BY occurred_at',
      [action],
    );
  }

  beforeAll(async () => {
    h = host();
    idp = await startOpenIdProvider(`${h.url}/v1/auth/sso/callback`);
    org = (await admin(h, 'POST', '/organizations', { name: 'SSO Org' })).body.organization_id;
    const env = { ...process.env, MARGINAL_URL: h.url, MARGINAL_ADMIN_TOKEN: h.adminToken };
    const { stdout } = await run(
      'npm',
      [
        'run',
        '--silent',
        'cli',
        '--',
        'sso',
        'set',
        '--org',
        org,
        '--issuer',
        idp.issuer,
        '--client-id',
        idp.clientId,
        '--client-secret',
        idp.clientSecret,
        '--domains',
        `${domain},other-${suffix}.example`,
        '--role',
        'analyst',
      ],
      { cwd: projectRoot, env, timeout: 60_000 },
    );
    const printed = JSON.parse(stdout.slice(stdout.indexOf('{')));
    expect(printed).toMatchObject({
      organization_id: org,
      issuer: idp.issuer,
      client_id: 'marginal',
      client_secret_set: true,
      allowed_domains: [domain, `other-${suffix}.example`],
      default_role: 'analyst',
      redirect_uri: `${h.url}/v1/auth/sso/callback`,
    });
    expect(JSON.stringify(printed)).not.toContain(idp.clientSecret);
  });

  afterAll(async () => {
    await idp?.stop();
  });

  it('stores the client secret encrypted, and shows the settings without it', async () => {
    const rows = await h.db.query<{ client_secret_sealed: string }>(
      'SELECT client_secret_sealed FROM sso_configurations WHERE organization_id = $1',
      [org],
    );
    expect(rows[0]!.client_secret_sealed).toMatch(/^v1\./);
    expect(rows[0]!.client_secret_sealed).not.toContain(idp.clientSecret);
    const shown = await admin(h, 'GET', `/organizations/${org}/sso`);
    expect(shown.status).toBe(200);
    expect(Object.keys(shown.body)).not.toContain('client_secret');
    const configured = await audit('sso.configured');
    expect(configured.at(-1)).toMatchObject({ organization_id: org, actor_kind: 'admin_token' });
    expect(JSON.stringify(configured)).not.toContain(idp.clientSecret);
  });

  it('refuses invalid settings naming the field', async () => {
    const good = { issuer: idp.issuer, client_id: 'c', client_secret: 's', allowed_domains: [domain], default_role: 'viewer' };
    const cases: [object, string][] = [
      [{ issuer: 'ftp://idp.example' }, 'issuer'],
      [{ issuer: 'http://idp.example' }, 'issuer'],
      [{ client_id: ' ' }, 'client_id'],
      [{ client_secret: '' }, 'client_secret'],
      [{ allowed_domains: [] }, 'allowed_domains'],
      [{ allowed_domains: ['not a domain'] }, 'allowed_domains'],
    ];
    for (const [change, field] of cases) {
      const res = await admin(h, 'PUT', `/organizations/${org}/sso`, { ...good, ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.error.details.field, JSON.stringify(change)).toBe(field);
    }
    expect((await admin(h, 'PUT', `/organizations/${org}/sso`, { ...good, default_role: 'emperor' })).status).toBe(400);
    // Nothing changed.
    expect((await admin(h, 'GET', `/organizations/${org}/sso`)).body.default_role).toBe('analyst');
  });

  it('owners and admins set it with their session; an admin may not make SSO give owner; an analyst may not', async () => {
    const password = 'correct horse battery staple';
    async function member(role: string) {
      const who = `${role}-${suffix}@example.com`;
      const invitation = await admin(h, 'POST', `/organizations/${org}/invitations`, { email: who, role });
      expect((await http(h.url, 'POST', '/v1/auth/invitations/accept', { json: { token: invitation.body.token, password } })).status).toBe(
        201,
      );
      const signedIn = await http(h.url, 'POST', '/v1/auth/sign-in', { json: { email: who, password } });
      return { headers: { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!, 'x-csrf-token': signedIn.body.csrf_token } };
    }
    const settings = (role: string) => ({
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      allowed_domains: [domain, `other-${suffix}.example`],
      default_role: role,
    });
    const owner = await member('owner');
    const shown = await http(h.url, 'GET', '/v1/members/sso', owner);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ organization_id: org, default_role: 'analyst', client_secret_set: true });
    const set = await http(h.url, 'PUT', '/v1/members/sso', { ...owner, json: settings('analyst') });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const bad = await http(h.url, 'PUT', '/v1/members/sso', { ...owner, json: { ...settings('analyst'), issuer: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('issuer');

    const anAdmin = await member('admin');
    const escalation = await http(h.url, 'PUT', '/v1/members/sso', { ...anAdmin, json: settings('owner') });
    expect(escalation.status).toBe(403);
    expect(escalation.body.error.details.field).toBe('default_role');
    const analyst = await member('analyst');
    expect((await http(h.url, 'GET', '/v1/members/sso', analyst)).status).toBe(403);
    expect((await admin(h, 'GET', `/organizations/${org}/sso`)).body.default_role).toBe('analyst');
    const byPerson = (await audit('sso.configured')).filter((r) => r.actor_kind === 'person');
    expect(byPerson).toHaveLength(1);
    expect(byPerson[0]!.details.client_secret_changed).toBe(false);
  });

  it('signs a new person in through the provider with the configured role, as password sign-in would', async () => {
    const email = `carol@${domain}`;
    const { cookie, session } = await signInThrough(account('carol', email));
    expect(session).toMatchObject({ email, organizations: [{ organization_id: org, organization_name: 'SSO Org', role: 'analyst' }] });
    expect(session.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The analyst reads costs; the CSRF token guards writes as for any session.
    expect((await http(h.url, 'GET', '/v1/cost-data/summary', { headers: { cookie } })).status).toBe(200);
    expect((await http(h.url, 'POST', '/v1/auth/sign-out', { headers: { cookie } })).status).toBe(403);
    expect((await http(h.url, 'POST', '/v1/auth/sign-out', { headers: { cookie, 'x-csrf-token': session.csrf_token } })).status).toBe(204);

    const signIns = (await audit('sign_in')).filter((r) => r.actor_id === session.person_id);
    expect(signIns).toEqual([expect.objectContaining({ actor_kind: 'person', details: expect.objectContaining({ method: 'sso' }) })]);
    const added = (await audit('member.added')).filter((r) => r.actor_id === session.person_id);
    expect(added.map((r) => r.details)).toEqual([{ method: 'sso', email, role: 'analyst', new_account: true }]);
    // The person has no password anyone knows: password sign-in stays shut.
    const byPassword = await http(h.url, 'POST', '/v1/auth/sign-in', { json: { email, password: 'correct horse battery staple' } });
    expect(byPassword.status).toBe(401);
  });

  it('a second sign-in reuses the person; an existing member keeps their role', async () => {
    const email = `dave@${domain}`;
    const id = account('dave', email);
    const first = await signInThrough(id);
    const second = await signInThrough(id);
    expect(second.session.person_id).toBe(first.session.person_id);
    expect(second.cookie).not.toBe(first.cookie);
    const people = await h.db.query('SELECT id FROM people WHERE email = $1', [email]);
    expect(people).toHaveLength(1);

    // A finance member by invitation signs in by SSO and stays finance.
    const erin = `erin@${domain}`;
    const invitation = await admin(h, 'POST', `/organizations/${org}/invitations`, { email: erin, role: 'finance' });
    expect(
      (
        await http(h.url, 'POST', '/v1/auth/invitations/accept', {
          json: { token: invitation.body.token, password: 'correct horse battery staple' },
        })
      ).status,
    ).toBe(201);
    const viaSso = await signInThrough(account('erin', erin));
    expect(viaSso.session.organizations).toEqual([{ organization_id: org, organization_name: 'SSO Org', role: 'finance' }]);
  });

  it('refuses an email outside the allowed domains, and an unverified one', async () => {
    const outsider = await throughProvider(account('mallory', `mallory@elsewhere-${suffix}.example`));
    const body = await refusal(await callBack(outsider.callback), 400, 'email');
    expect(body.error.code).toBe('SSO_REFUSED');
    const unverified = await throughProvider(account('ursula', `ursula@${domain}`, false));
    await refusal(await callBack(unverified.callback), 400, 'email');
    expect(
      await h.db.query('SELECT id FROM people WHERE email IN ($1, $2)', [`mallory@elsewhere-${suffix}.example`, `ursula@${domain}`]),
    ).toEqual([]);
    const failed = (await audit('sign_in.failed')).filter((r) => r.details.method === 'sso' && r.organization_id === org);
    expect(failed.map((r) => r.details.reason)).toEqual(expect.arrayContaining(['email']));
    expect(failed.some((r) => String(r.details.message).includes(`mallory@elsewhere-${suffix}.example`))).toBe(true);
  });

  it('refuses a tampered state, a replayed callback and a reused code', async () => {
    const { callback } = await throughProvider(account('frank', `frank@${domain}`));
    const tampered = new URL(callback);
    tampered.searchParams.set('state', `${tampered.searchParams.get('state')!.slice(0, -2)}xx`);
    await refusal(await callBack(tampered.href), 400, 'state');
    await refusal(await callBack(`${h.url}/v1/auth/sso/callback?code=abc`), 400, 'state');

    // The untampered callback still works once; the same callback again is refused.
    expect((await callBack(callback)).status).toBe(302);
    await refusal(await callBack(callback), 400, 'state');

    // The used code with a fresh, valid state: the provider refuses the code.
    const fresh = await throughProvider(account('grace', `grace@${domain}`));
    const reused = new URL(fresh.callback);
    reused.searchParams.set('code', new URL(callback).searchParams.get('code')!);
    await refusal(await callBack(reused.href), 400, 'code');

    const failed = (await audit('sign_in.failed')).filter((r) => r.details.method === 'sso');
    expect(failed.filter((r) => r.details.reason === 'state').length).toBeGreaterThanOrEqual(3);
    expect(failed.some((r) => r.details.reason === 'code' && r.organization_id === org)).toBe(true);
  });

  it('answers 404 for an organization without SSO, and 503 with Retry-After, within seconds, when the provider is down or hangs', async () => {
    const plain = (await admin(h, 'POST', '/organizations', { name: 'No SSO' })).body.organization_id;
    const missing = await fetch(`${h.url}/v1/auth/sso/start?organization_id=${plain}`, { redirect: 'manual' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).success).toBe(false);
    const unknownDomain = await fetch(`${h.url}/v1/auth/sso/start?email=someone@nowhere-${suffix}.example`, { redirect: 'manual' });
    expect(unknownDomain.status).toBe(404);
    const byDomain = await fetch(`${h.url}/v1/auth/sso/start?email=someone@${domain}`, { redirect: 'manual' });
    expect(byDomain.status).toBe(302);
    expect(byDomain.headers.get('location')).toMatch(new RegExp(`^${idp.issuer}/auth\\?.*code_challenge_method=S256`));

    // Down: a closed port. Hanging: a socket that accepts and never answers.
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const hanging = net.createServer(() => {});
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    try {
      for (const issuer of [`http://127.0.0.1:${closedPort}`, `http://127.0.0.1:${(hanging.address() as net.AddressInfo).port}`]) {
        const settings = {
          issuer,
          client_id: 'c',
          client_secret: 's',
          allowed_domains: [`down-${suffix}.example`],
          default_role: 'viewer',
        };
        expect((await admin(h, 'PUT', `/organizations/${plain}/sso`, settings)).status).toBe(200);
        const started = Date.now();
        const res = await fetch(`${h.url}/v1/auth/sso/start?organization_id=${plain}`, { redirect: 'manual' });
        expect(Date.now() - started).toBeLessThan(9_000);
        expect(res.headers.get('retry-after')).toBe('5');
        expect((await refusal(res, 503, 'issuer')).error.code).toBe('SSO_PROVIDER_UNAVAILABLE');
      }
    } finally {
      hanging.close();
    }
    expect((await admin(h, 'DELETE', `/organizations/${plain}/sso`)).status).toBe(204);
    expect((await fetch(`${h.url}/v1/auth/sso/start?organization_id=${plain}`, { redirect: 'manual' })).status).toBe(404);
  });
});
