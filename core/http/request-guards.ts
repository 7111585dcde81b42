// Checks every request meets before any route runs, named from the OpenAPI document's path
// templates (the routes' own description): path ids and query parameters must be client text
// (well-formed Unicode without NUL, core/text.ts) and path ids valid percent-encoded UTF-8, else
// 400 naming the parameter; a known path asked with a method it does not support is 405 with
// Allow, and OPTIONS lists the same methods; a compressed body is inflated only for a caller holding a valid key or the admin token.
import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../app-context.js';
import { bearerToken } from '../auth/api-key-authenticator.js';
import { AppError, UnauthorizedError, ValidationError } from '../errors.js';
import { textFault } from '../text.js';
import { constantTimeEqual } from './authentication.js';

/** API routes live under this prefix (the document's server); the OpenAPI paths are relative to it. */
const PREFIX = '/v1';

interface PathTemplate {
  /** The path's own server when it names one (OTLP at the origin: ''), else PREFIX. */
  prefix: string;
  /** Each segment: a literal, or { param } for "{param}". */
  segments: Array<string | { param: string }>;
  methods: string[];
  /** Method → the query parameters its operation declares (the only ones any code reads). */
  query: Map<string, Set<string>>;
  literals: number;
}

interface OpenApiOperation {
  parameters?: Array<{ in?: string; name?: string }>;
}

/** A path item: its operations by method, and optionally servers of its own. */
type OpenApiPathItem = { [method: string]: OpenApiOperation | Array<{ url?: string }> | undefined; servers?: Array<{ url?: string }> };

/** The API's path templates, matched segment by segment (more literal segments win). */
export class RouteTable {
  private readonly templates: PathTemplate[];

  constructor(openapiPaths: Record<string, OpenApiPathItem>) {
    this.templates = Object.entries(openapiPaths).map(([path, ops]) => {
      const server = ops.servers?.[0]?.url;
      const segments = path
        .split('/')
        .slice(1)
        .map((s) => {
          const m = /^\{(.+)\}$/.exec(s);
          return m ? { param: m[1]! } : s;
        });
      const operations = Object.entries(ops).filter((e): e is [string, OpenApiOperation] =>
        ['get', 'post', 'put', 'patch', 'delete'].includes(e[0]),
      );
      const query = new Map(
        operations.map(([k, op]) => [
          k.toUpperCase(),
          new Set((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name ?? '')),
        ]),
      );
      const prefix = server === undefined ? PREFIX : server.replace(/\/$/, '');
      return {
        prefix,
        segments,
        methods: operations.map(([k]) => k.toUpperCase()),
        query,
        literals: segments.filter((s) => typeof s === 'string').length,
      };
    });
    this.templates.sort((a, b) => b.literals - a.literals);
  }

  /** The template a raw (still percent-encoded) request path fits, if any. */
  match(rawPath: string): PathTemplate | null {
    // The path split once per prefix (there are two: '/v1' and the origin's ''), not per template.
    const split = new Map<string, string[]>();
    return (
      this.templates.find((t) => {
        if (!rawPath.startsWith(`${t.prefix}/`)) return false;
        let parts = split.get(t.prefix);
        if (!parts) split.set(t.prefix, (parts = rawPath.slice(t.prefix.length).split('/').slice(1)));
        return t.segments.length === parts.length && t.segments.every((s, i) => typeof s !== 'string' || s === parts[i]);
      }) ?? null
    );
  }
}

function checkPathIds(template: PathTemplate, rawPath: string): void {
  const parts = rawPath.slice(template.prefix.length).split('/').slice(1);
  template.segments.forEach((s, i) => {
    if (typeof s === 'string') return;
    let value: string;
    try {
      value = decodeURIComponent(parts[i]!);
    } catch {
      throw new ValidationError(s.param, 'must be valid percent-encoded UTF-8');
    }
    const fault = textFault(value);
    if (fault) throw new ValidationError(s.param, fault);
  });
}

function checkQueryValue(value: unknown, name: string): void {
  if (typeof value === 'string') {
    const fault = textFault(value);
    if (fault) throw new ValidationError(name, fault);
  } else if (Array.isArray(value)) {
    for (const v of value) checkQueryValue(v, name);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) checkQueryValue(v, `${name}.${k}`);
  }
}

/**
 * 400 naming the path id or declared query parameter that is not client text. Query parameters
 * the operation does not declare are never read by any code, so they are left alone (as routes
 * ignore them), and an operation without parameters cannot answer 400 here.
 */
export function checkRequestText(routes: RouteTable) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    try {
      const template = routes.match(req.path);
      if (template) {
        checkPathIds(template, req.path);
        const declared = template.query.get(req.method);
        for (const [name, value] of Object.entries(req.query)) if (declared?.has(name)) checkQueryValue(value, name);
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * A documented path asked with a method the document does not list for it is 405 (with Allow),
 * before any route sees it: the most literal template is the path the document means, so a
 * templated route with that method (PATCH /members/{personId}) must not take PATCH
 * /members/invitations. HEAD goes where GET does (Express answers it with the GET route).
 */
export function methodNotAllowed(routes: RouteTable) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const template = routes.match(req.path);
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (!template || template.methods.includes(method)) return next();
    const allow = template.methods.join(', ');
    next(
      new AppError(
        405,
        'METHOD_NOT_ALLOWED',
        `${req.method} is not supported on this path; use ${allow}`,
        { allow: template.methods },
        { Allow: allow },
      ),
    );
  };
}

/**
 * OPTIONS on a known path answers 204 with Allow listing exactly the methods the OpenAPI document
 * has for it (Express would list those of every route that happens to match).
 */
export function answerOptions(routes: RouteTable) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const template = req.method === 'OPTIONS' ? routes.match(req.path) : null;
    if (!template) return next();
    res.setHeader('Allow', template.methods.join(', '));
    res.status(204).end();
  };
}

/**
 * A body with a Content-Encoding is inflated only after its bearer token checks out (an API key
 * or the admin token), so no anonymous caller can make us decompress; scope, rate limit and
 * signature are still checked by the route as usual.
 */
export function authenticateEncodedBody(ctx: AppContext) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const encoding = req.headers['content-encoding'];
    if (encoding === undefined || encoding.trim().toLowerCase() === 'identity') return next();
    const token = bearerToken(req.headers.authorization);
    if (!token) return next(new UnauthorizedError('Missing API key: send Authorization: Bearer <API_KEY>'));
    if (constantTimeEqual(token, ctx.adminToken)) return next();
    ctx.auth.authenticate(token).then((auth) => next(auth ? undefined : new UnauthorizedError('Invalid API key')), next);
  };
}
