// Serves the built console (the web dashboard, source in console/, built by Vite into
// dist/console) at `/`: hashed files under /assets are cached for good, every other GET that is
// not an API, docs, metrics, OTLP or health path gets index.html so the console's own routes
// (/customers/…, /sessions/…) load on refresh. The console reads only the public /v1 API.
import fs from 'node:fs';
import path from 'node:path';
import compression from 'compression';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { RegisterRoutes } from '../../core/http/app.js';
import { fromRoot } from '../../core/paths.js';

/** Where `npm run build` puts the console (vite.config.ts `build.outDir`). */
export const CONSOLE_DIR = fromRoot('dist', 'console');

/** Paths the console never answers, so an unknown API route still gets the JSON 404 envelope. */
const NOT_CONSOLE = /^\/(v1|docs|metrics|otlp|openapi\.json|healthz)(\/|$)/;

function isConsolePath(p: string): boolean {
  return !NOT_CONSOLE.test(p);
}

/** Adds the console's routes after `routes` (the API's own routes keep precedence). */
export function withConsole(routes: RegisterRoutes, dir: string = CONSOLE_DIR): RegisterRoutes {
  return (router: Router) => {
    routes(router);
    registerConsole(router, dir);
  };
}

function registerConsole(router: Router, dir: string): void {
  const assets = express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: false });
  // gzip only the console's own files (its script is ~400 KB raw, ~130 KB gzipped); API answers are untouched.
  const gzip = compression();
  router.use('/assets', gzip, (req, res, next) => (fs.existsSync(dir) ? assets(req, res, next) : next()));
  router.get(/.*/, (req: Request, res: Response, next: NextFunction) => {
    if (!isConsolePath(req.path)) return next();
    // Top-level files the build emits (favicon): served as they are; anything else is a console route.
    const file = path.join(dir, path.normalize(req.path));
    if (req.path !== '/' && file.startsWith(dir + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) {
      return res.sendFile(file, { maxAge: '1h' });
    }
    // Browsers ask for HTML first; API clients (Accept: */* or JSON) keep the JSON 404 envelope.
    if (req.accepts(['json', 'html']) !== 'html') return next();
    const index = path.join(dir, 'index.html');
    if (!fs.existsSync(index)) {
      res.status(503).type('text/plain').send('The console is not built: run `npm run build` (it builds console/ into dist/console).\n');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    gzip(req, res, () => res.sendFile(index));
  });
}
