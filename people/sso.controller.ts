// The browser's single sign-on trip: /start sends it to the organization's provider, the provider
// sends it back to /callback, which opens a session (the password sign-in's cookie) and sends it to
// the console. Both are redirects for browsers, not API operations, so they stay out of the
// OpenAPI document (decision 0129); refusals answer the spec's error envelope.
import type { Request as ExRequest } from 'express';
import { Controller, Get, Hidden, Query, Request, Route } from '@tsoa/runtime';
import { appContext } from '../core/app-context.js';
import { sessionCookie } from '../core/auth/person-sessions.js';
import { requireUuid } from '../core/http/input.js';
import { normalizeEmail } from './email-address.js';
import { clientAddress } from '../core/http/audit-trail.js';
import { requestOrigin } from './request-actor.js';
import { setSessionCookie } from './session-cookie.js';
import { ssoCallbackUrl } from './sso-views.js';
import { finishSsoSignIn, ssoOrganization, startSsoSignIn } from './sso.service.js';

@Route('auth/sso')
@Hidden()
export class SsoController extends Controller {
  @Get('start')
  public async startSso(@Request() req: ExRequest, @Query() organization_id?: string, @Query() email?: string): Promise<void> {
    const { db, masterKey } = appContext(req);
    const organizationId = await ssoOrganization(db, {
      organizationId: organization_id ? requireUuid('organization_id', organization_id) : null,
      email: email ? normalizeEmail('email', email) : null,
    });
    const to = await startSsoSignIn(db, masterKey, organizationId, ssoCallbackUrl(requestOrigin(req)));
    this.setStatus(302);
    this.setHeader('Location', to.href);
    this.setHeader('Cache-Control', 'no-store');
  }

  @Get('callback')
  public async ssoCallback(@Request() req: ExRequest): Promise<void> {
    const { db, masterKey } = appContext(req);
    const origin = requestOrigin(req);
    const signedIn = await finishSsoSignIn(db, masterKey, {
      callbackUrl: new URL(req.originalUrl, origin),
      redirectUri: ssoCallbackUrl(origin),
      address: clientAddress(req),
      previousToken: sessionCookie(req.headers),
    });
    setSessionCookie(req, req.res!, signedIn.token, signedIn.expiresAt);
    this.setStatus(302);
    this.setHeader('Location', '/');
    this.setHeader('Cache-Control', 'no-store');
  }
}
