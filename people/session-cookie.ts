// The session cookie on the wire. The cookie is httpOnly, Path=/,
// SameSite=Lax (links into the console still arrive signed in; CSRF tokens guard every write),
// and Secure when the request came over TLS, or through a proxy that says so when TRUST_PROXY is on.
import type { Request, Response } from 'express';
import { appContext } from '../core/app-context.js';
import { SESSION_COOKIE } from '../core/auth/person-sessions.js';

function servedOverTls(req: Request): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  if (!appContext(req).config.trustProxy) return false;
  const proto = req.headers['x-forwarded-proto'];
  return typeof proto === 'string' && proto.split(',')[0]!.trim().toLowerCase() === 'https';
}

export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  res.setHeader('Set-Cookie', cookieText(req, `${SESSION_COOKIE}=${token}`, maxAge));
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.setHeader('Set-Cookie', cookieText(req, `${SESSION_COOKIE}=`, 0));
}

function cookieText(req: Request, pair: string, maxAgeSeconds: number): string {
  return [pair, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`, ...(servedOverTls(req) ? ['Secure'] : [])].join('; ');
}
