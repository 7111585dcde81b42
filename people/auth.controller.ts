// People's sign-in surface: accept an invitation, sign in (the session cookie and its CSRF token),
// who am I, sign out here or everywhere, reset a forgotten password. Sign-in, accepting and
// resetting carry no session yet, so no CSRF token; every other write here needs X-CSRF-Token
// (core/http/authentication.ts).
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import { appContext, service } from '../core/app-context.js';
import { sessionCookie } from '../core/auth/person-sessions.js';
import { personAuthOf } from '../core/http/authentication.js';
import { ValidationError } from '../core/errors.js';
import type { ErrorEnvelope } from '../core/http/error-envelope.js';
import { requireText } from '../core/http/input.js';
import { normalizeEmail } from './email-address.js';
import { acceptInvitation, signIn, signOut } from './people.service.js';
import { personEmail, membershipsOfPerson } from './people.store.js';
import { csrfTokenOf } from './people-tokens.js';
import { clientAddress } from '../core/http/audit-trail.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';
import type {
  AcceptedInvitationView,
  AcceptInvitationBody,
  ConfirmPasswordResetBody,
  PasswordResetBody,
  PasswordResetRequestedView,
  SessionView,
  SignInBody,
} from './people-views.js';
import { sessionView } from './people-views.js';

@Route('auth')
@Tags('People: sign-in')
@Response<ErrorEnvelope>(400, 'Invalid body; error.details.field names the field')
export class AuthController extends Controller {
  /**
   * Accepts an invitation (from `npm run cli -- users invite` or a member's invitation): creates
   * the person with this password, or adds the membership to the account the email already has
   * (then the password must be that account's). Each invitation works once, until it expires.
   * @summary Accept an invitation
   */
  @Post('invitations/accept')
  @SuccessResponse(201, 'Created')
  @Response<ErrorEnvelope>(409, 'Already a member of the organization')
  public async acceptInvitation(@Request() req: ExRequest, @Body() body: AcceptInvitationBody): Promise<AcceptedInvitationView> {
    const token = requireText('token', body.token, 200);
    const accepted = await acceptInvitation(appContext(req).db, token, body.password, clientAddress(req));
    this.setStatus(201);
    return { person_id: accepted.personId, email: accepted.email, organization_id: accepted.organizationId, role: accepted.role };
  }

  /**
   * Signs in with email and password: sets the httpOnly session cookie and answers the CSRF token
   * to send as `X-CSRF-Token` on every state-changing request. A new session every time. Repeated
   * failures lock the account and the address for a while (429 with Retry-After).
   * @summary Sign in
   */
  @Post('sign-in')
  @Response<ErrorEnvelope>(401, 'Wrong email or password')
  @Response<ErrorEnvelope>(429, 'Too many failed sign-ins for this account or address; Retry-After says when to try again')
  public async signIn(@Request() req: ExRequest, @Body() body: SignInBody): Promise<SessionView> {
    const ctx = appContext(req);
    const email = normalizeEmail('email', body.email);
    if (body.password === '') throw new ValidationError('password', 'must not be empty');
    const signedIn = await signIn(ctx.db, ctx.masterKey, {
      email,
      password: body.password,
      address: clientAddress(req),
      previousToken: sessionCookie(req.headers),
    });
    setSessionCookie(req, req.res!, signedIn.token, signedIn.expiresAt);
    return sessionView(signedIn);
  }

  /**
   * The signed-in person, their organizations and roles, and the session's CSRF token.
   * @summary Current session
   */
  @Get('session')
  @Security('session')
  @Response<ErrorEnvelope>(401, 'Not signed in')
  public async session(@Request() req: ExRequest): Promise<SessionView> {
    const ctx = appContext(req);
    const { person } = personAuthOf(req);
    const [email, memberships] = await Promise.all([personEmail(ctx.db, person.personId), membershipsOfPerson(ctx.db, person.personId)]);
    const csrfToken = csrfTokenOf(ctx.masterKey, sessionCookie(req.headers)!);
    return sessionView({ personId: person.personId, email, csrfToken, memberships, expiresAt: null });
  }

  /**
   * Ends this session and clears the cookie. Needs `X-CSRF-Token`.
   * @summary Sign out
   */
  @Post('sign-out')
  @Security('session')
  @SuccessResponse(204, 'Signed out')
  @Response<ErrorEnvelope>(401, 'Not signed in')
  @Response<ErrorEnvelope>(403, 'X-CSRF-Token missing or wrong')
  public async signOut(@Request() req: ExRequest): Promise<void> {
    await signOut(appContext(req).db, personAuthOf(req).person, clientAddress(req), false);
    clearSessionCookie(req, req.res!);
    this.setStatus(204);
  }

  /**
   * Ends every session of the signed-in person, on every device, this one included. Needs `X-CSRF-Token`.
   * @summary Sign out everywhere
   */
  @Post('sign-out-everywhere')
  @Security('session')
  @SuccessResponse(204, 'Signed out everywhere')
  @Response<ErrorEnvelope>(401, 'Not signed in')
  @Response<ErrorEnvelope>(403, 'X-CSRF-Token missing or wrong')
  public async signOutEverywhere(@Request() req: ExRequest): Promise<void> {
    await signOut(appContext(req).db, personAuthOf(req).person, clientAddress(req), true);
    clearSessionCookie(req, req.res!);
    this.setStatus(204);
  }

  /**
   * Asks for a password-reset link for this email. The answer is the same whether or not the
   * email has an account; when it has, a link with a single-use token (valid 30 minutes) is sent
   * by the configured senders (a log line, a webhook, mail). Limited per email and per address.
   * @summary Ask for a password reset
   */
  @Post('password-reset')
  @SuccessResponse(202, 'Accepted (whether or not the email has an account)')
  @Response<ErrorEnvelope>(429, 'Too many requests for this email or from this address; Retry-After says when to try again')
  public async requestPasswordReset(@Request() req: ExRequest, @Body() body: PasswordResetBody): Promise<PasswordResetRequestedView> {
    const email = normalizeEmail('email', body.email);
    service(req, 'passwordResets').request(appContext(req).rateLimiter, email, clientAddress(req));
    this.setStatus(202);
    return { status: 'accepted' };
  }

  /**
   * Sets a new password with the token of a reset link. The token works once and expires; every
   * session of the person ends (sign in again with the new password).
   * @summary Confirm a password reset
   */
  @Post('password-reset/confirm')
  @SuccessResponse(204, 'Password set; every session of the person ended')
  public async confirmPasswordReset(@Request() req: ExRequest, @Body() body: ConfirmPasswordResetBody): Promise<void> {
    const token = requireText('token', body.token, 200);
    await service(req, 'passwordResets').confirm(token, body.password, clientAddress(req));
    clearSessionCookie(req, req.res!);
    this.setStatus(204);
  }
}
