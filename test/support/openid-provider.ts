// A real OpenID provider on 127.0.0.1 for the single sign-on tests (oidc-provider, not a mock):
// one confidential client, accounts the test registers, and an interaction endpoint that logs in
// whichever account the test names next and grants `openid email`, so a test drives the whole
// browser trip with fetch and a cookie jar (signInThrough).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

interface TestAccount {
  email: string;
  emailVerified: boolean;
}

export interface TestOpenIdProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  /** The account the next interaction logs in (its key in `accounts`). */
  next: { accountId: string };
  stop(): Promise<void>;
}

export async function startOpenIdProvider(redirectUri: string): Promise<TestOpenIdProvider> {
  const accounts = new Map<string, TestAccount>();
  const next = { accountId: '' };
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientSecret = 'a-client-secret-of-at-least-32-characters';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'marginal',
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key'] },
    ttl: { Session: 3600, Grant: 3600, Interaction: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: account.email, email_verified: account.emailVerified }) };
    },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: next.accountId } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
      grant.addOIDCScope('openid email');
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    })().catch((e) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  });
  return {
    issuer,
    clientId: 'marginal',
    clientSecret,
    accounts,
    next,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A browser's cookies, by name, for one trip (every cookie to every path of its origin). */
export class CookieJar {
  private readonly jars = new Map<string, Map<string, string>>();

  header(url: URL): string {
    return [...(this.jars.get(url.origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  store(url: URL, res: Response): void {
    const jar = this.jars.get(url.origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    this.jars.set(url.origin, jar);
  }
}

/** Follows redirects by hand from `start` until one leads to `stopAt`'s origin; returns that URL (not fetched). */
export async function followUntil(start: string, stopAt: string, jar: CookieJar): Promise<string> {
  let url = new URL(start);
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } });
    jar.store(url, res);
    const location = res.headers.get('location');
    if (!location) throw new Error(`${url.href} answered ${res.status} without a redirect: ${await res.text()}`);
    await res.body?.cancel();
    url = new URL(location, url);
    if (url.origin === new URL(stopAt).origin) return url.href;
  }
  throw new Error('too many redirects');
}
