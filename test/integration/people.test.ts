// People, end to end on a live host (PGlite and PostgreSQL): the CLI invites, the invitation is
// accepted, the person signs in with the session cookie and reads as an API key of the same
// organization would, within their role; CSRF, fixation, cross-organization reads, invitations
// reused or expired, brute force, sign-out everywhere, per-person rate limits and the audit trail.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { fromRoot, projectRoot } from '../../core/paths.js';
import { admin, describeEachHost, http, type HttpResult, type TestHost } from '../support/http.js';
import {
  asPerson,
  createOrganization,
  expectEnvelope,
  PASSWORD,
  type Session,
  signIn as signInOn,
  signedInPerson,
  uniqueEmail as email,
} from '../support/people.js';

const run = promisify(execFile);
/** The API key read limit of this host: small, so a key meets its 429 quickly. */
const KEY_READ_LIMIT = 25;

describeEachHost(
  'people',
  ({ host }) => {
    let h: TestHost;
    let orgA: string;
    let orgB: string;

    async function invite(org: string, to: string, role: string, extra: object = {}): Promise<string> {
      const res = await admin(h, 'POST', `/organizations/${org}/invitations`, { email: to, role, ...extra });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.token;
    }

    function accept(token: string, password = PASSWORD) {
      return http(h.url, 'POST', '/v1/auth/invitations/accept', { json: { token, password } });
    }

    const signIn = (who: string, password = PASSWORD, headers: Record<string, string> = {}) => signInOn(h, who, password, headers);
    const person = (org: string, role: string) => signedInPerson(h, org, role);
    const as = (s: Session, method: string, path: string, opts: Parameters<typeof asPerson>[4] = {}) => asPerson(h, s, method, path, opts);

    beforeAll(async () => {
      h = host();
      orgA = await createOrganization(h, 'Org A');
      orgB = await createOrganization(h, 'Org B');
    });

    it('the CLI invites; the person accepts, signs in and reads costs with the cookie', async () => {
      const who = email('owner');
      const env: NodeJS.ProcessEnv = { ...process.env, MARGINAL_URL: h.url, MARGINAL_ADMIN_TOKEN: h.adminToken };
      const { stdout } = await run(
        'npm',
        ['run', '--silent', 'cli', '--', 'users', 'invite', '--org', orgA, '--email', who, '--role', 'owner'],
        {
          cwd: projectRoot,
          env,
          timeout: 60_000,
        },
      );
      const printed = JSON.parse(stdout.slice(stdout.indexOf('{')));
      expect(printed).toMatchObject({ organization_id: orgA, email: who, role: 'owner' });
      expect(printed.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(printed.url).toBe(`${h.url}/#/accept-invitation?token=${printed.token}`);

      const accepted = await accept(printed.token);
      expect(accepted.status).toBe(201);
      expect(accepted.body).toEqual({ person_id: expect.any(String), email: who, organization_id: orgA, role: 'owner' });

      const s = await signIn(who.toUpperCase());
      expect(s.res.status).toBe(200);
      expect(s.body).toMatchObject({
        person_id: accepted.body.person_id,
        email: who,
        organizations: [{ organization_id: orgA, organization_name: 'Org A', role: 'owner' }],
      });
      expect(s.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // Cookie flags: httpOnly, SameSite, Path=/, no Secure over plain HTTP.
      const flags = (s.res.headers.get('set-cookie') ?? '').split(';').map((f) => f.trim());
      expect(flags[0]).toMatch(/^marginal_session=[A-Za-z0-9_-]{43}$/);
      expect(flags).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));
      expect(flags).not.toContain('Secure');

      const summary = await as(s, 'GET', '/v1/cost-data/summary');
      expect(summary.status, JSON.stringify(summary.body)).toBe(200);
      // The same answer an API key of the organization gets.
      const key = await admin(h, 'POST', `/organizations/${orgA}/api-keys`, { scopes: ['costs:read'] });
      const byKey = await http(h.url, 'GET', '/v1/cost-data/summary', { token: key.body.api_key });
      expect(byKey.status).toBe(200);
      // period_end is "now", read a moment apart.
      expect({ ...summary.body, period_end: 'now' }).toEqual({ ...byKey.body, period_end: 'now' });
      expect(summary.body.current_period_cost).toBe('0');
    });

    it('the cookie is Secure behind a proxy that says https (TRUST_PROXY is off here, so not)', async () => {
      const p = await person(orgA, 'viewer');
      const s = await signIn(p.email, PASSWORD, { 'x-forwarded-proto': 'https' });
      expect(s.res.headers.get('set-cookie')).not.toContain('Secure');
    });

    it('a finance person reads margins and costs, and gets 403 on admin, member and out-of-role routes', async () => {
      const fin = await person(orgA, 'finance');
      const range = { start_date: '2026-10-01', end_date: '2026-11-01' };
      const q = new URLSearchParams(range).toString();
      expect((await as(fin, 'GET', `/v1/margin-data/summary?${q}`)).status).toBe(200);
      expect((await as(fin, 'GET', '/v1/cost-data/summary')).status).toBe(200);
      const usage = await as(fin, 'GET', `/v1/usage/events?${q}`);
      expect(usage.status).toBe(403);
      expect(usage.body.error.details.requiredScope).toBe('usage:read');
      expect((await as(fin, 'GET', '/v1/dimension-data/definitions')).status).toBe(403);
      expect((await as(fin, 'GET', '/v1/audit-events')).status).toBe(403);
      expect((await as(fin, 'GET', '/v1/members')).status).toBe(403);
      const inviteAsFinance = await as(fin, 'POST', '/v1/members/invitations', { json: { email: email('x'), role: 'viewer' } });
      expect(inviteAsFinance.status).toBe(403);
      const keys = await as(fin, 'GET', `/v1/admin/organizations/${orgA}/api-keys`);
      expect(keys.status).toBe(403);
      expect(keys.body.error.details.requiredScope).toBe('organization:admin');
      expectEnvelope(await as(fin, 'GET', `/v1/admin/organizations/${orgA}/credits`), 403, 'Authorization');
    });

    it('CSRF: every state-changing route with a session answers 403 without or with a wrong X-CSRF-Token', async () => {
      const owner = await person(orgA, 'owner');
      const viewer = await person(orgA, 'viewer');
      const writes: [string, string, unknown][] = [
        ['POST', '/v1/auth/sign-out', undefined],
        ['POST', '/v1/auth/sign-out-everywhere', undefined],
        ['POST', '/v1/members/invitations', { email: email('c'), role: 'viewer' }],
        ['PATCH', `/v1/members/${viewer.personId}`, { role: 'analyst' }],
      ];
      for (const [method, path, json] of writes) {
        for (const csrf of [null, 'wrong-token', viewer.csrf]) {
          const res = await as(owner, method, path, { json, csrf });
          expectEnvelope(res, 403, 'X-CSRF-Token');
          expect(res.body.error.code).toBe('CSRF_TOKEN_INVALID');
        }
      }
      // Nothing happened: the owner is still signed in, the viewer is still a viewer.
      const members = await as(owner, 'GET', '/v1/members');
      expect(members.body.members.find((m: any) => m.person_id === viewer.personId).role).toBe('viewer');
    });

    it('sign-in gives a new session each time and ends the one the cookie carried (no fixation)', async () => {
      const p = await person(orgA, 'analyst');
      const again = await signIn(p.email, PASSWORD, { cookie: p.cookie });
      expect(again.cookie).not.toBe(p.cookie);
      expect((await as(p, 'GET', '/v1/cost-data/summary')).status).toBe(401);
      expect((await as(again, 'GET', '/v1/cost-data/summary')).status).toBe(200);
      // A cookie the attacker planted is never adopted: it is not a live session, and sign-in replaces it.
      const planted = `marginal_session=${crypto.randomBytes(32).toString('base64url')}`;
      const s = await signIn(p.email, PASSWORD, { cookie: planted });
      expect(s.cookie).not.toBe(planted);
    });

    it('a session of organization A reads nothing of B', async () => {
      const a = await person(orgA, 'owner');
      const other = await as(a, 'GET', '/v1/cost-data/summary', { headers: { 'x-organization-id': orgB } });
      expectEnvelope(other, 403, 'X-Organization-Id');
      expect(JSON.stringify(other.body)).not.toContain('current_period_cost');
      expect((await as(a, 'GET', '/v1/audit-events', { headers: { 'x-organization-id': orgB } })).status).toBe(403);
      expect((await as(a, 'GET', '/v1/members', { headers: { 'x-organization-id': orgB } })).status).toBe(403);
      expectEnvelope(await as(a, 'GET', '/v1/cost-data/summary', { headers: { 'x-organization-id': 'nope' } }), 400, 'X-Organization-Id');
    });

    it('a session of organization A gets 403 and no data from every route for B, reads and writes', async () => {
      const a = await person(orgA, 'owner');
      const doc = JSON.parse(fs.readFileSync(fromRoot('openapi', 'openapi.json'), 'utf8')) as {
        paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
      };
      const routes = Object.entries(doc.paths).flatMap(([p, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => (op.security ?? []).some((req) => 'api_key' in req || 'session' in req))
          // Ingestion is the ingest component's (not this host's), and people never ingest.
          .filter(([, op]) => !(op.security ?? []).some((req) => (req.api_key ?? []).includes('usage:write')))
          .map(([method, op]) => [method.toUpperCase(), p.replace(/\{[^}]+\}/g, crypto.randomUUID()), op] as const),
      );
      expect(routes.length).toBeGreaterThan(30);
      for (const [method, p, op] of routes) {
        const needsOrganization = (op.security ?? []).some((req) => 'api_key' in req || (req.session ?? []).length > 0);
        if (!needsOrganization) continue;
        const res = await as(a, method, `/v1${p}`, { headers: { 'x-organization-id': orgB }, json: method === 'GET' ? undefined : {} });
        expect(res.status, `${method} ${p}`).toBe(403);
        expect(res.body.error.details.field, `${method} ${p}`).toBe('X-Organization-Id');
      }
      // B's trail holds nothing A's owner did, and B has no new member.
      const bOwner = await person(orgB, 'owner');
      const members = await as(bOwner, 'GET', '/v1/members');
      expect(members.body.members.map((m: any) => m.person_id)).toEqual([bOwner.personId]);
    });

    it('an invitation accepted twice at once makes one member', async () => {
      const token = await invite(orgA, email('race'), 'viewer');
      const answers = await Promise.all([accept(token), accept(token), accept(token)]);
      expect(answers.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    });

    it('a person of two organizations picks one with X-Organization-Id', async () => {
      const who = email('both');
      expect((await accept(await invite(orgA, who, 'viewer'))).status).toBe(201);
      // The second invitation of an existing account needs that account's password.
      const wrong = await accept(await invite(orgB, who, 'owner'), 'not the password at all');
      expectEnvelope(wrong, 400, 'password');
      expect((await accept(await invite(orgB, who, 'owner'))).status).toBe(201);
      const s = await signIn(who);
      expect(s.body.organizations.map((o: any) => [o.organization_id, o.role]).sort()).toEqual(
        [
          [orgA, 'viewer'],
          [orgB, 'owner'],
        ].sort(),
      );
      expectEnvelope(await as(s, 'GET', '/v1/cost-data/summary'), 400, 'X-Organization-Id');
      expectEnvelope(await as(s, 'GET', '/v1/ping'), 400, 'X-Organization-Id');
      expect((await as(s, 'GET', '/v1/auth/session')).status).toBe(200);
      expect((await as(s, 'GET', '/v1/members', { headers: { 'x-organization-id': orgA } })).status).toBe(403);
      expect((await as(s, 'GET', '/v1/members', { headers: { 'x-organization-id': orgB } })).status).toBe(200);
    });

    it('an invitation works once and not after it expires', async () => {
      const token = await invite(orgA, email('once'), 'viewer');
      expect((await accept(token)).status).toBe(201);
      const reused = await accept(token);
      expectEnvelope(reused, 400, 'token');
      expect(reused.body.error.message).toBe('token: was already used');

      const late = await invite(orgA, email('late'), 'viewer', { expires_in_hours: 1 });
      await h.db.query(
        "UPDATE invitations SET expires_at = now() - interval '1 second' WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')",
        [late],
      );
      const expired = await accept(late);
      expectEnvelope(expired, 400, 'token');
      expect(expired.body.error.message).toBe('token: has expired; ask for a new invitation');
      expectEnvelope(await accept('not-a-token-at-all'), 400, 'token');
      expectEnvelope(await accept(await invite(orgA, email('short'), 'viewer'), 'short'), 400, 'password');
    });

    it('brute force: the account locks after five failures, even for the right password, and the address after twenty', async () => {
      const p = await person(orgA, 'viewer');
      for (let i = 0; i < 5; i++) {
        const res = await signIn(p.email, `wrong password ${i}`);
        expectEnvelope(res.res, 401, 'password');
      }
      const locked = await signIn(p.email);
      expectEnvelope(locked.res, 429, 'email');
      expect(locked.res.body.error.code).toBe('SIGN_IN_LOCKED');
      expect(Number(locked.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
      // Another account from the same address is not locked yet (5 of the address's 20).
      const other = await person(orgA, 'viewer');
      for (let i = 0; i < 15; i++) await signIn(email('nobody'), 'wrong password');
      expectEnvelope((await signIn(other.email)).res, 429, 'email');
      await h.db.query('DELETE FROM sign_in_failures');
    });

    it('sign out ends this session; sign out everywhere ends every session of the person', async () => {
      const p = await person(orgA, 'analyst');
      const second = await signIn(p.email);
      const third = await signIn(p.email);
      const out = await as(second, 'POST', '/v1/auth/sign-out');
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
      expect((await as(second, 'GET', '/v1/cost-data/summary')).status).toBe(401);
      expect((await as(p, 'GET', '/v1/cost-data/summary')).status).toBe(200);
      expect((await as(third, 'POST', '/v1/auth/sign-out-everywhere')).status).toBe(204);
      for (const s of [p, third]) {
        const res = await as(s, 'GET', '/v1/cost-data/summary');
        expectEnvelope(res, 401, 'marginal_session');
        expect(res.body.error.code).toBe('UNAUTHORIZED');
      }
    });

    it('300 page views by one person (1,350 GETs) meet no 429, while an API key meets its limit', async () => {
      const p = await person(orgA, 'analyst');
      const statuses = new Map<number, number>();
      for (let view = 0; view < 300; view++) {
        const pageRequests = ['/v1/cost-data/summary', '/v1/auth/session', '/v1/ping', '/v1/cost-data/summary'];
        if (view % 2 === 0) pageRequests.push('/v1/ping');
        const results = await Promise.all(pageRequests.map((path) => as(p, 'GET', path)));
        for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 200: 1350 });

      const key = await admin(h, 'POST', `/organizations/${orgA}/api-keys`, { scopes: ['costs:read'] });
      const keyStatuses: number[] = [];
      for (let i = 0; i < KEY_READ_LIMIT + 2; i++) {
        keyStatuses.push((await http(h.url, 'GET', '/v1/cost-data/summary', { token: key.body.api_key })).status);
      }
      expect(keyStatuses.filter((s) => s === 200)).toHaveLength(KEY_READ_LIMIT);
      expect(keyStatuses.slice(KEY_READ_LIMIT)).toEqual([429, 429]);
    });

    it('owners and admins invite and change roles within the rules; the audit trail names each actor', async () => {
      const owner = await person(orgA, 'owner');
      const adm = await person(orgA, 'admin');
      // Role escalation: an admin may not make owners, nor invite them.
      const who = email('colleague');
      expectEnvelope(await as(adm, 'POST', '/v1/members/invitations', { json: { email: who, role: 'owner' } }), 403, 'role');
      expectEnvelope(await as(adm, 'PATCH', `/v1/members/${adm.personId}`, { json: { role: 'owner' } }), 403, 'role');
      const invited = await as(owner, 'POST', '/v1/members/invitations', { json: { email: who, role: 'finance' } });
      expect(invited.status).toBe(201);
      const colleague = await accept(invited.body.token);
      expect(colleague.status).toBe(201);
      const changed = await as(adm, 'PATCH', `/v1/members/${colleague.body.person_id}`, { json: { role: 'analyst' } });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ person_id: colleague.body.person_id, email: who, role: 'analyst' });
      await signIn(who, 'a wrong password!');
      await as(owner, 'POST', '/v1/auth/sign-out');

      const audit = await as(adm, 'GET', '/v1/audit-events?limit=1000');
      expect(audit.status).toBe(200);
      const events = audit.body.audit_events as any[];
      expect(audit.body.total).toBe(events.length);
      // Bounds outside PostgreSQL's calendar (year 0000, found by the fuzz job as a 500) select the same rows.
      const wide = await as(adm, 'GET', '/v1/audit-events?limit=1000&start_date=0000-01-01&end_date=9999-12-31T23:59:59Z');
      expect(wide.status).toBe(200);
      expect(wide.body.total).toBe(events.length);
      const find = (action: string, pred: (e: any) => boolean = () => true) => events.find((e) => e.action === action && pred(e));
      expect(find('invitation.created', (e) => e.details.email === who)).toMatchObject({
        organization_id: orgA,
        actor: { kind: 'person', id: owner.personId },
        details: { role: 'finance' },
      });
      expect(find('invitation.created', (e) => e.details.email === owner.email)).toMatchObject({
        actor: { kind: 'admin_token', id: null },
      });
      expect(find('invitation.accepted', (e) => e.details.email === who)).toMatchObject({
        actor: { kind: 'person', id: colleague.body.person_id },
      });
      const roleChange = find('member.role_changed', (e) => e.subject_person_id === colleague.body.person_id);
      expect(roleChange).toMatchObject({
        actor: { kind: 'person', id: adm.personId },
        details: { before: { role: 'finance' }, after: { role: 'analyst' } },
      });
      expect(roleChange.address).toMatch(/127\.0\.0\.1/);
      expect(find('sign_in', (e) => e.subject_person_id === owner.personId)).toMatchObject({
        organization_id: null,
        actor: { kind: 'person', id: owner.personId },
      });
      expect(find('sign_in.failed', (e) => e.subject_person_id === colleague.body.person_id)).toMatchObject({ details: { email: who } });
      expect(find('sign_out', (e) => e.actor.id === owner.personId)).toBeDefined();
      // Never a secret in the trail.
      const text = JSON.stringify(events);
      expect(text).not.toContain(invited.body.token);
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain('a wrong password!');
      // Filters and paging.
      const onlyRoles = await as(adm, 'GET', '/v1/audit-events?action=member.role_changed');
      expect(onlyRoles.body.audit_events.every((e: any) => e.action === 'member.role_changed')).toBe(true);
      const byAdminToken = await as(adm, 'GET', '/v1/audit-events?actor_kind=admin_token&limit=2&offset=1');
      expect(byAdminToken.body).toMatchObject({ limit: 2, offset: 1 });
      expect(byAdminToken.body.audit_events.every((e: any) => e.actor.kind === 'admin_token')).toBe(true);
      expectEnvelope(await as(adm, 'GET', '/v1/audit-events?limit=0'), 400, 'limit');
      expectEnvelope(await as(adm, 'GET', '/v1/audit-events?actor_kind=robot'), 400, 'actor_kind');
      // Org B's admins see none of A's events.
      const bOwner = await person(orgB, 'owner');
      const bAudit = await as(bOwner, 'GET', '/v1/audit-events?limit=1000');
      expect(bAudit.body.audit_events.some((e: any) => e.organization_id === orgA || e.subject_person_id === owner.personId)).toBe(false);
    });
  },
  { env: { RATE_LIMIT_READ_PER_15_MINUTES: String(KEY_READ_LIMIT) } },
);

describeEachHost(
  'people behind a proxy (TRUST_PROXY), with a per-person limit of 10',
  ({ host }) => {
    it('a person past their own limit gets 429 with RateLimit-* headers, counted per person, not per key', async () => {
      const h = host();
      const org = (await admin(h, 'POST', '/organizations', { name: 'Limited' })).body.organization_id;
      const who = `limited-${crypto.randomBytes(4).toString('hex')}@example.com`;
      const invitation = await admin(h, 'POST', `/organizations/${org}/invitations`, { email: who, role: 'viewer' });
      expect(
        (await http(h.url, 'POST', '/v1/auth/invitations/accept', { json: { token: invitation.body.token, password: PASSWORD } })).status,
      ).toBe(201);
      const signedIn = await http(h.url, 'POST', '/v1/auth/sign-in', { json: { email: who, password: PASSWORD } });
      const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
      const answers: HttpResult[] = [];
      for (let i = 0; i < 12; i++) answers.push(await http(h.url, 'GET', '/v1/cost-data/summary', { headers: { cookie } }));
      expect(answers.map((r) => r.status)).toEqual([...Array(10).fill(200), 429, 429]);
      expect(answers[0]!.headers.get('ratelimit-limit')).toBe('10');
      expect(answers[10]!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(answers[10]!.headers.get('retry-after'))).toBeGreaterThan(0);
      // A key of the same organization keeps its own window.
      const key = await admin(h, 'POST', `/organizations/${org}/api-keys`, { scopes: ['costs:read'] });
      expect((await http(h.url, 'GET', '/v1/cost-data/summary', { token: key.body.api_key })).status).toBe(200);
    });

    it('the cookie is Secure when the proxy says https, and the audit trail records the forwarded address', async () => {
      const h = host();
      const org = (await admin(h, 'POST', '/organizations', { name: 'Proxied' })).body.organization_id;
      const who = `proxied-${crypto.randomBytes(4).toString('hex')}@example.com`;
      const invitation = await admin(h, 'POST', `/organizations/${org}/invitations`, { email: who, role: 'owner' });
      expect(
        (await http(h.url, 'POST', '/v1/auth/invitations/accept', { json: { token: invitation.body.token, password: PASSWORD } })).status,
      ).toBe(201);
      const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7, 198.51.100.9' };
      const res = await http(h.url, 'POST', '/v1/auth/sign-in', { json: { email: who, password: PASSWORD }, headers: forwarded });
      expect(res.status).toBe(200);
      const flags = (res.headers.get('set-cookie') ?? '').split(';').map((f) => f.trim());
      expect(flags).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax', 'Path=/']));
      const plain = await http(h.url, 'POST', '/v1/auth/sign-in', { json: { email: who, password: PASSWORD } });
      expect(plain.headers.get('set-cookie')).not.toContain('Secure');
      const audit = await http(h.url, 'GET', '/v1/audit-events?action=sign_in', {
        headers: { cookie: (plain.headers.get('set-cookie') ?? '').split(';')[0]! },
      });
      expect(audit.status).toBe(200);
      expect(audit.body.audit_events.map((e: any) => e.address)).toContain('198.51.100.9');
    });
  },
  { env: { TRUST_PROXY: 'true', RATE_LIMIT_SESSION_PER_15_MINUTES: '10' } },
);
