import { describe, expect, it } from 'vitest';
import { ApiKeyAuthenticator } from '../../../../core/auth/api-key-authenticator.js';
import type { AuthContext } from '../../../../core/auth/scopes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A key table the test edits, counting lookups. */
function keyTable() {
  const keys = new Map<string, AuthContext>();
  let lookups = 0;
  const resolve = async (key: string) => {
    lookups++;
    return keys.get(key) ?? null;
  };
  return { keys, lookups: () => lookups, resolve };
}

const ctx: AuthContext = { organizationId: 'org-1', keyId: 'key-1', ownerUserId: null, scopes: [], signingSecret: 's' };

describe('ApiKeyAuthenticator', () => {
  it('keeps a found key for the ttl and an unknown key for the shorter negative ttl', async () => {
    const table = keyTable();
    table.keys.set('good', ctx);
    const auth = new ApiKeyAuthenticator(table.resolve, 400, 40);
    expect(await auth.authenticate('good')).toBe(ctx);
    expect(await auth.authenticate('new')).toBeNull();
    table.keys.delete('good'); // revoked
    table.keys.set('new', ctx); // created
    expect(await auth.authenticate('good')).toBe(ctx); // still within its ttl
    expect(await auth.authenticate('new')).toBeNull();
    expect(table.lookups()).toBe(2);
    await sleep(80);
    expect(await auth.authenticate('new')).toBe(ctx); // the negative answer expired
    expect(await auth.authenticate('good')).toBe(ctx);
    await sleep(400);
    expect(await auth.authenticate('good')).toBeNull(); // the revocation is seen after the ttl
  });

  it('invalidate() drops every cached answer', async () => {
    const table = keyTable();
    table.keys.set('k', ctx);
    const auth = new ApiKeyAuthenticator(table.resolve);
    expect(await auth.authenticate('k')).toBe(ctx);
    table.keys.delete('k');
    auth.invalidate();
    expect(await auth.authenticate('k')).toBeNull();
  });

  it('with ttl 0 looks every key up and gives the same answers', async () => {
    const table = keyTable();
    table.keys.set('k', ctx);
    const auth = new ApiKeyAuthenticator(table.resolve, 0);
    expect(await auth.authenticate('k')).toBe(ctx);
    expect(await auth.authenticate('k')).toBe(ctx);
    expect(await auth.authenticate('other')).toBeNull();
    expect(table.lookups()).toBe(3);
    table.keys.delete('k'); // revoked: seen at once
    expect(await auth.authenticate('k')).toBeNull();
  });
});
