// checkSsoSettings: each field checked and named; https issuers, or http on a loopback host only.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../core/errors.js';
import { checkSsoSettings, isLoopbackIssuer } from '../../../people/sso-settings.js';

const good = {
  issuer: 'https://login.acme.example/realms/staff',
  client_id: ' marginal ',
  client_secret: 's3cret',
  allowed_domains: ['Acme.example', 'acme.co.uk', 'acme.example'],
  default_role: 'finance' as const,
};

function fieldOf(body: object): string | undefined {
  try {
    checkSsoSettings(body);
  } catch (e) {
    if (e instanceof ValidationError) return e.field;
    throw e;
  }
  return undefined;
}

describe('checkSsoSettings', () => {
  it('keeps the issuer as written, trims the client id, lower-cases and de-duplicates domains', () => {
    expect(checkSsoSettings(good)).toEqual({
      issuer: 'https://login.acme.example/realms/staff',
      clientId: 'marginal',
      clientSecret: 's3cret',
      allowedDomains: ['acme.example', 'acme.co.uk'],
      defaultRole: 'finance',
    });
  });

  it('names the field it refuses', () => {
    expect(fieldOf({ ...good, issuer: 'http://login.acme.example' })).toBe('issuer');
    expect(fieldOf({ ...good, issuer: 'https://login.acme.example?x=1' })).toBe('issuer');
    expect(fieldOf({ ...good, issuer: 'not a url' })).toBe('issuer');
    expect(fieldOf({ ...good, client_id: '' })).toBe('client_id');
    expect(fieldOf({ ...good, client_secret: undefined })).toBe('client_secret');
    expect(fieldOf({ ...good, allowed_domains: [] })).toBe('allowed_domains');
    expect(fieldOf({ ...good, allowed_domains: ['@acme.example'] })).toBe('allowed_domains');
    expect(fieldOf({ ...good, default_role: 'root' })).toBe('default_role');
  });

  it('allows http only for an issuer on this machine', () => {
    expect(fieldOf({ ...good, issuer: 'http://127.0.0.1:4000' })).toBeUndefined();
    expect(fieldOf({ ...good, issuer: 'http://localhost:4000/oidc' })).toBeUndefined();
    expect(isLoopbackIssuer('http://127.0.0.1:4000')).toBe(true);
    expect(isLoopbackIssuer('https://127.0.0.1:4000')).toBe(false);
    expect(isLoopbackIssuer('http://10.0.0.1')).toBe(false);
  });
});
