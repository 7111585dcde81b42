// People's security, tried as an attacker would, over every operation of the OpenAPI document
// (PGlite and PostgreSQL): a session's write without its CSRF token (none, a made-up one, another
// session's) is refused on every state-changing route and changes nothing; a member below admin
// gets 403 from every admin and member-management route; an owner's session reaches only the admin
// routes of their own organization that owners manage; an admin cannot make themselves owner.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { fromRoot } from '../../core/paths.js';
import { admin, describeEachHost, http, type TestHost } from '../support/http.js';
import { asPerson, createOrganization, expectEnvelope, PASSWORD, type Person, signedInPerson } from '../support/people.js';

type Security = Record<string, string[]>[];
interface Operation {
  method: string;
  /** Under /v1, path parameters filled with random UUIDs. */
  path: string;
  security: Security;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Every operation; `{organizationId}` is `organizationId` when given, other path parameters random UUIDs. */
function operations(organizationId?: string): Operation[] {
  const doc = JSON.parse(fs.readFileSync(fromRoot('openapi', 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { security?: Security }>>;
  };
  return Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: `/v1${p.replace(/\{[^}]+\}/g, (name) => (name === '{organizationId}' && organizationId) || crypto.randomUUID())}`,
      security: op.security ?? [],
    })),
  );
}

const scheme = (op: Operation, name: string) => op.security.some((req) => name in req);
/** Admin operations an organization's owners and admins may call with their session. */
const ownersManage = (op: Operation) => op.security.some((req) => (req.admin ?? []).includes('organization:admin'));
/** Ingestion is the ingest component's (not this host's), and people never ingest. */
const ingests = (op: Operation) => op.security.some((req) => (req.api_key ?? []).includes('usage:write'));

describeEachHost('people security', ({ host }) => {
  let h: TestHost;
  let org: string;
  let owner: Person;

  beforeAll(async () => {
    h = host();
    org = await createOrganization(h, 'Guarded');
    owner = await signedInPerson(h, org, 'owner');
  });

  it('CSRF: every state-changing route a session reaches refuses it without its own X-CSRF-Token, and nothing changes', async () => {
    const other = await signedInPerson(h, org, 'viewer');
    const writes = operations(org).filter(
      (op) => WRITE_METHODS.has(op.method) && (scheme(op, 'api_key') || scheme(op, 'session') || ownersManage(op)) && !ingests(op),
    );
    expect(writes.length).toBeGreaterThan(3);
    const before = (await asPerson(h, owner, 'GET', '/v1/audit-events?limit=1000')).body.total;
    for (const op of writes) {
      for (const csrf of [null, 'made-up-token', other.csrf]) {
        const res = await asPerson(h, owner, op.method, op.path, { csrf, json: {} });
        expectEnvelope(res, 403, 'X-CSRF-Token');
        expect(res.body.error.code, `${op.method} ${op.path}`).toBe('CSRF_TOKEN_INVALID');
      }
    }
    // The owner is still signed in (sign-out was refused) and the trail gained nothing.
    const after = await asPerson(h, owner, 'GET', '/v1/audit-events?limit=1000');
    expect(after.status).toBe(200);
    expect(after.body.total).toBe(before);
  });

  it('role escalation: finance, viewer and analyst people get 403 from every admin route and every member-management route', async () => {
    const ops = operations(org);
    const adminOps = ops.filter((op) => scheme(op, 'admin'));
    const managing = ops.filter((op) => op.security.some((req) => (req.session ?? []).includes('organization:admin')));
    expect(adminOps.length).toBeGreaterThan(30);
    expect(managing.length).toBeGreaterThan(3);
    for (const role of ['finance', 'viewer', 'analyst']) {
      const p = await signedInPerson(h, org, role);
      for (const op of adminOps) {
        const res = await asPerson(h, p, op.method, op.path, { json: op.method === 'GET' ? undefined : {} });
        if (ownersManage(op)) {
          expect(res.status, `${role} ${op.method} ${op.path}`).toBe(403);
          expect(res.body.error.details.requiredScope, `${role} ${op.method} ${op.path}`).toBe('organization:admin');
        } else {
          expectEnvelope(res, 403, 'Authorization');
        }
      }
      for (const op of managing) {
        const res = await asPerson(h, p, op.method, op.path, { json: op.method === 'GET' ? undefined : {} });
        expect(res.status, `${role} ${op.method} ${op.path}`).toBe(403);
        expect(res.body.error.details.requiredScope, `${role} ${op.method} ${op.path}`).toBe('organization:admin');
      }
    }
  });

  it("an owner's session reaches the admin routes owners manage for their own organization only, never the instance's", async () => {
    const reads = operations(org).filter((op) => scheme(op, 'admin') && op.method === 'GET');
    expect(reads.filter(ownersManage).length).toBeGreaterThan(5);
    for (const op of reads) {
      const res = await asPerson(h, owner, 'GET', op.path);
      if (!ownersManage(op)) expectEnvelope(res, 403, 'Authorization');
      else expect([200, 404], `GET ${op.path}: ${JSON.stringify(res.body)}`).toContain(res.status);
    }
    // Another organization in the path: 403 naming it, whatever the header says; nothing made there.
    const other = await createOrganization(h, 'Not theirs');
    expectEnvelope(await asPerson(h, owner, 'GET', `/v1/admin/organizations/${other}/api-keys`), 403, 'organizationId');
    const crossed = await asPerson(h, owner, 'POST', `/v1/admin/organizations/${other}/api-keys`, { json: { scopes: ['costs:read'] } });
    expectEnvelope(crossed, 403, 'organizationId');
    const mismatched = await asPerson(h, owner, 'GET', `/v1/admin/organizations/${org}/api-keys`, {
      headers: { 'x-organization-id': other },
    });
    expectEnvelope(mismatched, 403, 'X-Organization-Id');
    expect((await admin(h, 'GET', `/organizations/${other}/api-keys`)).body.total).toBe(0);
  });

  it('an admin cannot make themselves owner, demote an owner, or invite one; the roles stay as they were', async () => {
    const adm = await signedInPerson(h, org, 'admin');
    expectEnvelope(await asPerson(h, adm, 'PATCH', `/v1/members/${adm.personId}`, { json: { role: 'owner' } }), 403, 'role');
    expectEnvelope(await asPerson(h, adm, 'PATCH', `/v1/members/${owner.personId}`, { json: { role: 'viewer' } }), 403, 'role');
    const invite = await asPerson(h, adm, 'POST', '/v1/members/invitations', {
      json: { email: `boss-${Date.now()}@example.com`, role: 'owner' },
    });
    expectEnvelope(invite, 403, 'role');
    const members = (await asPerson(h, owner, 'GET', '/v1/members')).body.members as { person_id: string; role: string }[];
    expect(members.find((m) => m.person_id === adm.personId)?.role).toBe('admin');
    expect(members.find((m) => m.person_id === owner.personId)?.role).toBe('owner');
  });

  it('invitations are listed without tokens and revoked within the rules; a revoked one is never accepted', async () => {
    const adm = await signedInPerson(h, org, 'admin');
    const invite = (s: Person, role: string) =>
      asPerson(h, s, 'POST', '/v1/members/invitations', { json: { email: `${role}-${crypto.randomUUID()}@example.com`, role } });
    const [forOwner, forViewer] = [await invite(owner, 'owner'), await invite(adm, 'viewer')];
    expect([forOwner.status, forViewer.status]).toEqual([201, 201]);
    const listed = await asPerson(h, adm, 'GET', '/v1/members/invitations');
    expect(listed.body.invitations.map((i: any) => i.invitation_id)).toEqual(
      expect.arrayContaining([forOwner.body.invitation_id, forViewer.body.invitation_id]),
    );
    expect(JSON.stringify(listed.body)).not.toContain(forOwner.body.token);
    // An admin may not revoke an owner's invitation (as they may not make one).
    expectEnvelope(await asPerson(h, adm, 'DELETE', `/v1/members/invitations/${forOwner.body.invitation_id}`), 403, 'invitationId');
    expect((await asPerson(h, adm, 'DELETE', `/v1/members/invitations/${forViewer.body.invitation_id}`)).status).toBe(200);
    const accepted = await http(h.url, 'POST', '/v1/auth/invitations/accept', {
      json: { token: forViewer.body.token, password: PASSWORD },
    });
    expectEnvelope(accepted, 400, 'token');
    expect(accepted.body.error.message).toBe('token: was revoked; ask for a new invitation');
    expect((await asPerson(h, owner, 'DELETE', `/v1/members/invitations/${forViewer.body.invitation_id}`)).status).toBe(404);
    // Another organization's owner neither sees nor revokes them.
    const stranger = await signedInPerson(h, await createOrganization(h, 'Strangers'), 'owner');
    expect((await asPerson(h, stranger, 'GET', '/v1/members/invitations')).body.total).toBe(0);
    expect((await asPerson(h, stranger, 'DELETE', `/v1/members/invitations/${forOwner.body.invitation_id}`)).status).toBe(404);
    expect((await asPerson(h, owner, 'DELETE', `/v1/members/invitations/${forOwner.body.invitation_id}`)).status).toBe(200);
  });

  it('members are removed within the rules: no owner by an admin, never the last owner; the removed person reads nothing more', async () => {
    const solo = await createOrganization(h, 'Solo');
    const only = await signedInPerson(h, solo, 'owner');
    expectEnvelope(await asPerson(h, only, 'DELETE', `/v1/members/${only.personId}`), 403, 'personId');
    const adm = await signedInPerson(h, solo, 'admin');
    expectEnvelope(await asPerson(h, adm, 'DELETE', `/v1/members/${only.personId}`), 403, 'personId');
    const analyst = await signedInPerson(h, solo, 'analyst');
    const byAnalyst = await asPerson(h, analyst, 'DELETE', `/v1/members/${adm.personId}`);
    expect(byAnalyst.status).toBe(403);
    expect(byAnalyst.body.error.details.requiredScope).toBe('organization:admin');
    expect((await asPerson(h, analyst, 'GET', '/v1/cost-data/summary')).status).toBe(200);
    expect((await asPerson(h, adm, 'DELETE', `/v1/members/${analyst.personId}`)).status).toBe(204);
    // The same session now has no organization: no data.
    expectEnvelope(await asPerson(h, analyst, 'GET', '/v1/cost-data/summary'), 403, 'X-Organization-Id');
    expect((await asPerson(h, adm, 'DELETE', `/v1/members/${analyst.personId}`)).status).toBe(404);
    const trail = (await asPerson(h, only, 'GET', '/v1/audit-events?action=member.removed')).body.audit_events as any[];
    expect(trail[0]).toMatchObject({
      actor: { kind: 'person', id: adm.personId },
      subject_person_id: analyst.personId,
      details: { before: { role: 'analyst' } },
    });
  });
});
