// Single sign-on per organization: its settings (secret sealed under the master key), starting a
// sign-in (state, nonce and PKCE verifier stored server-side, ten minutes, each state taken once),
// and finishing it: the provider's verified email, in an allowed domain, finds or creates the
// person and the membership (new members get the configured role, existing ones keep theirs),
// then people.service's startSession opens the same session password sign-in opens. Every refusal
// after the state is known is audited as sign_in.failed with method sso.
import * as oidc from 'openid-client';
import { sealSecret, unsealSecret } from '../core/auth/secrets.js';
import type { ControlDb } from '../core/control/db.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { recordAudit } from './audit.store.js';
import type { Actor } from '../core/http/audit-trail.js';
import type { SignedIn } from './people.service.js';
import { startSession } from './people.service.js';
import * as people from './people.store.js';
import { hashPassword } from './passwords.js';
import { hashToken, newToken } from './people-tokens.js';
import { SsoRefusedError } from './sso-errors.js';
import { authorizationUrl, discoverProvider, exchangeCode } from './sso-openid.js';
import type { SsoSettings } from './sso-settings.js';
import * as store from './sso.store.js';

const ATTEMPT_LIFETIME_SECONDS = 10 * 60;

const secretAad = (organizationId: string) => `sso-client-secret:${organizationId}`;

function publicSettings(row: store.SsoConfigurationRow) {
  return { issuer: row.issuer, client_id: row.client_id, allowed_domains: row.allowed_domains, default_role: row.default_role };
}

export async function configureSso(
  db: ControlDb,
  masterKey: Buffer,
  actor: Actor,
  organizationId: string,
  s: SsoSettings,
): Promise<store.SsoConfigurationRow> {
  return db.transaction(async (tx) => {
    const before = await store.ssoConfiguration(tx, organizationId);
    const row = await store.upsertSsoConfiguration(tx, {
      organization_id: organizationId,
      issuer: s.issuer,
      client_id: s.clientId,
      client_secret_sealed: sealSecret(masterKey, s.clientSecret, secretAad(organizationId)),
      allowed_domains: s.allowedDomains,
      default_role: s.defaultRole,
    });
    await recordAudit(tx, {
      organizationId,
      action: 'sso.configured',
      actorKind: actor.kind,
      actorId: actor.id,
      subjectPersonId: null,
      address: actor.address,
      // The secret never enters the trail; only whether it changed.
      details: {
        before: before ? publicSettings(before) : null,
        after: publicSettings(row),
        client_secret_changed:
          !before || unsealSecret(masterKey, before.client_secret_sealed, secretAad(organizationId)) !== s.clientSecret,
      },
    });
    return row;
  });
}

export async function removeSso(db: ControlDb, actor: Actor, organizationId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await store.ssoConfiguration(tx, organizationId);
    if (!before || !(await store.deleteSsoConfiguration(tx, organizationId))) throw new NotFoundError('SSO configuration', organizationId);
    await recordAudit(tx, {
      organizationId,
      action: 'sso.removed',
      actorKind: actor.kind,
      actorId: actor.id,
      subjectPersonId: null,
      address: actor.address,
      details: { before: publicSettings(before) },
    });
  });
}

/** The organization a sign-in starts for: given, or found by the email's domain. */
export async function ssoOrganization(db: ControlDb, by: { organizationId: string | null; email: string | null }): Promise<string> {
  if (by.organizationId) return by.organizationId;
  if (!by.email) throw new ValidationError('organization_id', 'give organization_id, or email to find it by domain');
  const organizationId = await store.organizationOfDomain(db, by.email.split('@')[1]!);
  if (!organizationId) throw new NotFoundError('SSO configuration for the domain of', by.email);
  return organizationId;
}

async function providerOf(db: ControlDb, masterKey: Buffer, organizationId: string) {
  const row = await store.ssoConfiguration(db, organizationId);
  if (!row) throw new NotFoundError('SSO configuration', organizationId);
  const config = await discoverProvider({
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: unsealSecret(masterKey, row.client_secret_sealed, secretAad(organizationId)),
  });
  return { row, config };
}

/** Where the browser goes next: the provider's authorization URL for a fresh state. */
export async function startSsoSignIn(db: ControlDb, masterKey: Buffer, organizationId: string, redirectUri: string): Promise<URL> {
  const { config } = await providerOf(db, masterKey, organizationId);
  const state = newToken();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  await store.insertAttempt(db, {
    stateHash: hashToken(state),
    organizationId,
    nonce,
    codeVerifier,
    lifetimeSeconds: ATTEMPT_LIFETIME_SECONDS,
  });
  return authorizationUrl(config, { redirectUri, state, nonce, codeChallenge: await oidc.calculatePKCECodeChallenge(codeVerifier) });
}

export async function finishSsoSignIn(
  db: ControlDb,
  masterKey: Buffer,
  c: { callbackUrl: URL; redirectUri: string; address: string | null; previousToken: string | null },
): Promise<SignedIn> {
  const state = c.callbackUrl.searchParams.get('state');
  const attempt = state ? await store.takeAttempt(db, hashToken(state)) : null;
  if (!attempt) {
    await auditFailure(db, null, c.address, { reason: 'state' });
    throw new SsoRefusedError('state', 'Unknown, expired or already used sign-in state; start the sign-in again');
  }
  const organizationId = attempt.organization_id;
  try {
    const { row, config } = await providerOf(db, masterKey, organizationId);
    const identity = await exchangeCode(config, c.callbackUrl, {
      redirectUri: c.redirectUri,
      state: state!,
      nonce: attempt.nonce,
      codeVerifier: attempt.code_verifier,
    });
    if (!identity.email) throw new SsoRefusedError('email', 'The provider gave no email for this account');
    const email = identity.email.toLowerCase();
    if (!identity.emailVerified) throw new SsoRefusedError('email', `${email} is not verified at the provider`);
    if (!row.allowed_domains.includes(email.split('@')[1] ?? '')) {
      throw new SsoRefusedError('email', `${email} is not in a domain allowed to sign in to this organization`);
    }
    const person = await joinedPerson(db, organizationId, email, row.default_role, c.address);
    return await startSession(db, masterKey, { person, address: c.address, previousToken: c.previousToken, method: 'sso' });
  } catch (e) {
    const field = (e as { details?: { field?: string } }).details?.field ?? 'unknown';
    await auditFailure(db, organizationId, c.address, { reason: field, message: e instanceof Error ? e.message : String(e) });
    throw e;
  }
}

/** The person of this email (created without a usable password when new), a member of the organization. */
async function joinedPerson(
  db: ControlDb,
  organizationId: string,
  email: string,
  role: store.SsoConfigurationRow['default_role'],
  address: string | null,
) {
  // SSO people sign in through their provider; the random password nobody knows keeps the password path shut.
  const unusableHash = (await people.personByEmail(db, email)) ? null : await hashPassword(newToken());
  return db.transaction(async (tx) => {
    const existing = await people.personByEmail(tx, email);
    const person = existing ?? (await people.insertPerson(tx, email, unusableHash ?? (await hashPassword(newToken()))));
    if (await people.insertMembership(tx, organizationId, person.id, role)) {
      await recordAudit(tx, {
        organizationId,
        action: 'member.added',
        actorKind: 'person',
        actorId: person.id,
        subjectPersonId: person.id,
        address,
        details: { method: 'sso', email, role, new_account: !existing },
      });
    }
    return { id: person.id, email: person.email };
  });
}

async function auditFailure(db: ControlDb, organizationId: string | null, address: string | null, details: Record<string, unknown>) {
  await recordAudit(db, {
    organizationId,
    action: 'sign_in.failed',
    actorKind: 'anonymous',
    actorId: null,
    subjectPersonId: null,
    address,
    details: { method: 'sso', ...details },
  });
}
