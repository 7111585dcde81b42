// The pure rules of people: role → scopes, the lockout schedule, who may give which role, email.
import { describe, expect, it } from 'vitest';
import { isRole, ROLES, scopesOfRole } from '../../../core/auth/roles.js';
import { normalizeEmail } from '../../../people/email-address.js';
import { ACCOUNT_LOCKOUT, ADDRESS_LOCKOUT, lockSeconds } from '../../../people/lockout.js';
import { judgeRemoval, judgeRoleChange } from '../../../people/member-rules.js';
import { checkNewPassword, hashPassword, passwordMatches } from '../../../people/passwords.js';

describe('role → scopes', () => {
  it('maps each role onto the API-key scopes, with organization:admin for owners and admins only', () => {
    expect(Object.fromEntries(ROLES.map((r) => [r, scopesOfRole(r).sort()]))).toEqual({
      owner: ['costs:read', 'dimensions:read', 'organization:admin', 'revenue:read', 'usage:read'],
      admin: ['costs:read', 'dimensions:read', 'organization:admin', 'revenue:read', 'usage:read'],
      analyst: ['costs:read', 'dimensions:read', 'revenue:read', 'usage:read'],
      finance: ['costs:read', 'revenue:read'],
      viewer: ['costs:read'],
    });
  });

  it('never grants ingestion', () => {
    for (const r of ROLES) expect(scopesOfRole(r)).not.toContain('usage:write');
  });

  it('knows its roles', () => {
    expect(isRole('finance')).toBe(true);
    expect(isRole('superuser')).toBe(false);
  });
});

describe('lockout schedule', () => {
  it('per account: four failures free, then 30 s doubling to a 15-minute ceiling', () => {
    expect([1, 2, 3, 4].map((f) => lockSeconds(ACCOUNT_LOCKOUT, f))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 11].map((f) => lockSeconds(ACCOUNT_LOCKOUT, f))).toEqual([30, 60, 120, 240, 480, 900, 900]);
    expect(lockSeconds(ACCOUNT_LOCKOUT, 10_000)).toBe(900);
  });

  it('per address: nineteen failures free, then the same doubling', () => {
    expect(lockSeconds(ADDRESS_LOCKOUT, 19)).toBe(0);
    expect([20, 21, 22].map((f) => lockSeconds(ADDRESS_LOCKOUT, f))).toEqual([30, 60, 120]);
  });
});

describe('who may give which role', () => {
  it('owners give any role; the last owner stays one', () => {
    expect(judgeRoleChange('owner', 'viewer', 'owner', 1)).toEqual({ allowed: true });
    expect(judgeRoleChange('owner', 'owner', 'admin', 2)).toEqual({ allowed: true });
    expect(judgeRoleChange('owner', 'owner', 'admin', 1)).toEqual({ allowed: false, reason: 'the organization would have no owner left' });
  });

  it('admins manage everyone below owner and make no owners', () => {
    expect(judgeRoleChange('admin', 'finance', 'analyst', 1)).toEqual({ allowed: true });
    expect(judgeRoleChange('admin', null, 'admin', 1)).toEqual({ allowed: true });
    expect(judgeRoleChange('admin', null, 'owner', 1).allowed).toBe(false);
    expect(judgeRoleChange('admin', 'admin', 'owner', 1).allowed).toBe(false);
    expect(judgeRoleChange('admin', 'owner', 'viewer', 3).allowed).toBe(false);
  });

  it('nobody else manages members', () => {
    for (const actor of ['analyst', 'finance', 'viewer'] as const) expect(judgeRoleChange(actor, null, 'viewer', 1).allowed).toBe(false);
  });
});

describe('email and password rules', () => {
  it('normalizes an email and names the field when it is not one', () => {
    expect(normalizeEmail('email', '  Ana@Example.COM ')).toBe('ana@example.com');
    expect(() => normalizeEmail('email', 'ana@localhost')).toThrow('email: must be an email address');
    expect(() => normalizeEmail('email', 'no at sign')).toThrow('email: must be an email address');
  });

  it('asks for 12 to 256 characters, not blank', () => {
    expect(checkNewPassword('password', 'x'.repeat(12))).toBe('x'.repeat(12));
    expect(() => checkNewPassword('password', 'x'.repeat(11))).toThrow('password: must be at least 12 characters');
    expect(() => checkNewPassword('password', 'x'.repeat(257))).toThrow('password: must be at most 256 characters');
    expect(() => checkNewPassword('password', ' '.repeat(12))).toThrow('password: must not be blank');
  });

  it('hashes with argon2id and verifies only the same password', async () => {
    const h = await hashPassword('correct horse battery staple');
    expect(h).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await passwordMatches(h, 'correct horse battery staple')).toBe(true);
    expect(await passwordMatches(h, 'Correct horse battery staple')).toBe(false);
    expect(await passwordMatches('not a hash', 'x')).toBe(false);
  });
});

describe('who may remove a member', () => {
  it('owners remove anyone but the last owner; admins remove everyone below owner; others no one', () => {
    expect(judgeRemoval('owner', 'owner', 2)).toEqual({ allowed: true });
    expect(judgeRemoval('owner', 'owner', 1)).toEqual({ allowed: false, reason: 'the organization would have no owner left' });
    expect(judgeRemoval('owner', 'viewer', 1)).toEqual({ allowed: true });
    expect(judgeRemoval('admin', 'admin', 1)).toEqual({ allowed: true });
    expect(judgeRemoval('admin', 'owner', 3)).toEqual({ allowed: false, reason: 'only an owner may remove an owner' });
    expect(judgeRemoval('finance', 'viewer', 1).allowed).toBe(false);
  });
});
