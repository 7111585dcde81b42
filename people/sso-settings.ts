// An organization's single sign-on settings as a request states them, checked field by field:
// the issuer is https (or http on a loopback host, for a provider on the same machine), domains are
// lower-case host names, the role is one of the roles. Pure; the service stores what this returns.
import { isRole, type Role } from '../core/auth/roles.js';
import { ValidationError } from '../core/errors.js';

export interface SsoSettingsBody {
  /**
   * The provider's issuer URL (https; http only on a loopback host); its discovery document is
   * `<issuer>/.well-known/openid-configuration`.
   * @minLength 1
   * @maxLength 2000
   */
  issuer: string;
  /**
   * @minLength 1
   * @maxLength 255
   */
  client_id: string;
  /**
   * Stored encrypted under the master key; never answered back.
   * @minLength 1
   */
  client_secret: string;
  /**
   * Email domains whose people may sign in (and join), e.g. `["acme.com"]`.
   * @minItems 1
   * @maxItems 50
   */
  allowed_domains: string[];
  /** The role a person gets when SSO adds them to the organization; existing members keep theirs. */
  default_role: Role;
}

export interface SsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedDomains: string[];
  defaultRole: Role;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** True for an http issuer on this machine (tests' provider): openid-client then allows http. */
export function isLoopbackIssuer(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

export function checkSsoSettings(body: Partial<SsoSettingsBody>): SsoSettings {
  return {
    issuer: checkIssuer(body.issuer),
    clientId: checkText('client_id', body.client_id, 255),
    clientSecret: checkText('client_secret', body.client_secret, 1000),
    allowedDomains: checkDomains(body.allowed_domains),
    defaultRole: checkRole(body.default_role),
  };
}

function checkIssuer(value: unknown): string {
  const text = checkText('issuer', value, 2000);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValidationError('issuer', 'must be a URL, e.g. https://accounts.example.com');
  }
  if (url.protocol !== 'https:' && !isLoopbackIssuer(text))
    throw new ValidationError('issuer', 'must use https (http only on a loopback host)');
  if (url.search || url.hash || url.username) throw new ValidationError('issuer', 'must have no query, fragment or credentials');
  // Kept as written: the discovery document's issuer must equal it exactly.
  return text;
}

function checkText(field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ValidationError(field, 'is required');
  if (value.length > max) throw new ValidationError(field, `must be at most ${max} characters`);
  return value.trim();
}

function checkDomains(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new ValidationError('allowed_domains', 'must list at least one email domain');
  if (value.length > 50) throw new ValidationError('allowed_domains', 'must list at most 50 domains');
  const domains = value.map((d) => (typeof d === 'string' ? d.trim().toLowerCase() : ''));
  const bad = domains.find((d) => !DOMAIN.test(d));
  if (bad !== undefined) throw new ValidationError('allowed_domains', `"${bad}" is not a domain name like acme.com`);
  return [...new Set(domains)];
}

function checkRole(value: unknown): Role {
  if (typeof value !== 'string' || !isRole(value))
    throw new ValidationError('default_role', 'must be owner, admin, analyst, finance or viewer');
  return value;
}
