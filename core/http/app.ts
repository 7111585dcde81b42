// The HTTP shell shared by ingest, api and the all-in-one process: request ids, JSON body
// limits (raw body kept for request signing), request guards (request-guards.ts), tsoa routes,
// /docs, /openapi.json, /metrics, and the error envelope on every failure, including unknown
// routes (404) and unsupported methods (405).
import fs from 'node:fs';
import express, { type Express, type Request, type Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { AppContext } from '../app-context.js';
import { NotFoundError } from '../errors.js';
import { httpDuration, httpRequests, metricsText, registry } from '../metrics.js';
import { fromRoot } from '../paths.js';
import { errorHandler } from './error-handler.js';
import { answerOptions, authenticateEncodedBody, checkRequestText, methodNotAllowed, RouteTable } from './request-guards.js';
import { requestContext } from './request-context.js';

export type RegisterRoutes = (router: Router) => void;

/** Body limits: a single event is small; a batch holds up to 1000 events with metadata. */
/** Body limit of a single event (the ingest fast path declines anything larger to this app). */
export const BODY_LIMIT = 1024 * 1024;
const BATCH_BODY_LIMIT = '20mb';

export function rawBodyOf(req: Request): Buffer | undefined {
  return (req as Request & { rawBody?: Buffer }).rawBody;
}

export function createHttpApp(ctx: AppContext, routeSets: RegisterRoutes[]): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);
  app.locals.marginal = ctx;

  app.use(requestContext);
  app.use((req, res, next) => {
    const end = httpDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      end({ method: req.method, route });
    });
    next();
  });

  const openapiPath = fromRoot('openapi', 'openapi.json');
  const openapi = fs.existsSync(openapiPath) ? JSON.parse(fs.readFileSync(openapiPath, 'utf8')) : {};
  const routes = new RouteTable(openapi.paths ?? {});
  app.use(answerOptions(routes));
  app.use(authenticateEncodedBody(ctx));
  app.use(checkRequestText(routes));
  // Before the routes: a documented path's own methods decide, even where a templated route would
  // take the method (PATCH /members/invitations is not PATCH /members/{personId}).
  app.use(methodNotAllowed(routes));

  const keepRaw = (req: Request, _res: unknown, buf: Buffer) => {
    (req as Request & { rawBody?: Buffer }).rawBody = buf;
  };
  app.use('/v1/usage-events/batch', express.json({ limit: BATCH_BODY_LIMIT, verify: keepRaw }));
  const json = express.json({ limit: BODY_LIMIT, verify: keepRaw });
  // OTLP bodies (protobuf or JSON, larger than an event) are read by the receiver itself (otlp/).
  app.use((req, res, next) => (req.path.startsWith('/otlp/') ? next() : json(req, res, next)));

  const router = express.Router();
  for (const register of routeSets) register(router);
  app.use(router);

  app.get('/openapi.json', (_req, res) => res.json(openapi));
  // Swagger UI fetches the document from /openapi.json: embedding it would go through
  // swagger-ui-express's String.replace, where text such as "$`" in a description is a replacement
  // pattern and broke the page's script.
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(undefined, { customSiteTitle: 'Marginal API', swaggerUrl: '/openapi.json' }));
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', registry.contentType);
    res.send(await metricsText());
  });
  app.get('/healthz', (_req, res) => res.json({ ok: true }));

  app.use((req, _res, next) => next(new NotFoundError('Route', `${req.method} ${req.path}`)));
  app.use(errorHandler(ctx.logger));
  return app;
}
