// What the console shows a credential: each role's pages by its scopes (owner and admin alone see
// the admin pages), a key every read page and no admin page; and the page and token of a link.
import { describe, expect, it } from 'vitest';
import { mayOpen } from '../../../console/src/access.js';
import type { Credential } from '../../../console/src/api/client.js';
import { linkOf } from '../../../console/src/api/person-session.js';
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

describe('linkOf', () => {
  it('reads the page and token of an invitation or reset link, and nothing else', () => {
    expect(linkOf('#/accept-invitation?token=abc_DEF-123')).toEqual({ page: 'accept-invitation', token: 'abc_DEF-123' });
    expect(linkOf('#/reset-password?token=xyz')).toEqual({ page: 'reset-password', token: 'xyz' });
    expect(linkOf('#/accept-invitation?token=')).toBeNull();
    expect(linkOf('#/somewhere?token=abc')).toBeNull();
    expect(linkOf('')).toBeNull();
  });
});
