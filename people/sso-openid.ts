// The OpenID Connect steps, through openid-client: discovery, the authorization URL (code flow
// with PKCE S256, state and nonce), and the code exchange with the ID token's checks (signature,
// issuer, audience, nonce, expiry: all the library's). Every request to the provider is bounded by
// PROVIDER_TIMEOUT_SECONDS; a provider that does not answer, or answers 5xx, is
// SsoProviderUnavailableError (503), never a hang; anything the provider refuses is SsoRefusedError.
import * as oidc from 'openid-client';
import { PROVIDER_RETRY_SECONDS, SsoProviderUnavailableError, SsoRefusedError } from './sso-errors.js';
import { isLoopbackIssuer } from './sso-settings.js';

const PROVIDER_TIMEOUT_SECONDS = PROVIDER_RETRY_SECONDS;

export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export async function discoverProvider(p: ProviderClient): Promise<oidc.Configuration> {
  const loopback = isLoopbackIssuer(p.issuer);
  try {
    const config = await oidc.discovery(new URL(p.issuer), p.clientId, undefined, oidc.ClientSecretBasic(p.clientSecret), {
      timeout: PROVIDER_TIMEOUT_SECONDS,
      ...(loopback ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
    config.timeout = PROVIDER_TIMEOUT_SECONDS;
    return config;
  } catch (e) {
    // A provider that answers with the wrong document is as unusable as one that is down.
    throw unreachable(e) ? new SsoProviderUnavailableError('discovery') : new SsoProviderUnavailableError(`discovery: ${String(e)}`);
  }
}

export function authorizationUrl(
  config: oidc.Configuration,
  a: { redirectUri: string; state: string; nonce: string; codeChallenge: string },
): URL {
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: a.redirectUri,
    scope: 'openid email',
    state: a.state,
    nonce: a.nonce,
    code_challenge: a.codeChallenge,
    code_challenge_method: 'S256',
  });
}

export interface ProvenIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

/** Exchanges the callback's code and returns who the provider vouches for (ID token, then userinfo for the email). */
export async function exchangeCode(
  config: oidc.Configuration,
  callbackUrl: URL,
  checks: { redirectUri: string; state: string; nonce: string; codeVerifier: string },
): Promise<ProvenIdentity> {
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(
      config,
      callbackUrl,
      { pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, expectedNonce: checks.nonce, idTokenExpected: true },
      { redirect_uri: checks.redirectUri },
    );
  } catch (e) {
    if (unreachable(e)) throw new SsoProviderUnavailableError('token');
    throw new SsoRefusedError(
      e instanceof oidc.AuthorizationResponseError ? 'error' : 'code',
      `The provider's answer was refused: ${describe(e)}`,
    );
  }
  const claims = tokens.claims()!;
  let email = typeof claims.email === 'string' ? claims.email : null;
  let verified = claims.email_verified === true;
  if (email === null) {
    // Providers that keep the ID token small (oidc-provider among them) answer the email at userinfo.
    try {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = typeof info.email === 'string' ? info.email : null;
      verified = info.email_verified === true;
    } catch (e) {
      if (unreachable(e)) throw new SsoProviderUnavailableError('userinfo');
      throw new SsoRefusedError('email', `The provider's userinfo was refused: ${describe(e)}`);
    }
  }
  return { subject: claims.sub, email, emailVerified: verified };
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Network errors, timeouts and 5xx answers, however deep the library wrapped them. */
function unreachable(e: unknown): boolean {
  for (let cause = e, depth = 0; cause && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (cause instanceof TypeError) return true;
    const name = (cause as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return true;
    const status = (cause as { status?: number }).status;
    if (typeof status === 'number' && status >= 500) return true;
    if (cause instanceof Response && cause.status >= 500) return true;
  }
  return false;
}
