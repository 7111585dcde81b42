// What the console shows a credential: each role's pages by its scopes (owner and admin alone see
// the admin pages), a key every read page and no admin page; and the token of an invitation link.
import { describe, expect, it } from 'vitest';
import { mayOpen } from '../../../console/src/access.js';
import type { Credential } from '../../../console/src/api/client.js';
import { invitationToken } from '../../../console/src/api/person-session.js';
import type { Role } from '../../../console/src/api/types.js';

const person = (role: Role): Credential => ({ kind: 'session', csrfToken: 'c', organizationId: 'o', role, email: 'a@b.example' });
const key: Credential = { kind: 'api_key', key: 'mk_live_x' };

describe('mayOpen', () => {
  it('gives the admin pages to owners and admins only, never to a key', () => {
    expect(mayOpen(person('owner'), 'organization:admin')).toBe(true);
    expect(mayOpen(person('admin'), 'organization:admin')).toBe(true);
    for (const role of ['analyst', 'finance', 'viewer'] as const) expect(mayOpen(person(role), 'organization:admin')).toBe(false);
    expect(mayOpen(key, 'organization:admin')).toBe(false);
  });

  it('gives each role the reads its scopes hold', () => {
    expect(mayOpen(person('analyst'), 'usage:read')).toBe(true);
    expect(mayOpen(person('finance'), 'revenue:read')).toBe(true);
    expect(mayOpen(person('finance'), 'usage:read')).toBe(false);
    expect(mayOpen(person('finance'), 'dimensions:read')).toBe(false);
    expect(mayOpen(person('viewer'), 'costs:read')).toBe(true);
    expect(mayOpen(person('viewer'), 'revenue:read')).toBe(false);
    expect(mayOpen(key, 'usage:read')).toBe(true);
  });
});

describe('invitationToken', () => {
  it('reads the token of an invitation link, and nothing else', () => {
    expect(invitationToken('#/accept-invitation?token=abc_DEF-123')).toBe('abc_DEF-123');
    expect(invitationToken('#/accept-invitation?token=')).toBe('');
    expect(invitationToken('#/somewhere?token=abc')).toBeNull();
    expect(invitationToken('')).toBeNull();
  });
});
