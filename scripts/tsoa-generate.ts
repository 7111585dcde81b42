// Generates the express routes of each service and the one OpenAPI document from the tsoa
// controllers. `--check` writes the spec to a temp dir and fails when openapi/openapi.json differs
// (the committed document must be current).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateRoutes, generateSpec, type ExtendedRoutesConfig, type ExtendedSpecConfig } from '@tsoa/cli';
import { fromRoot, projectRoot } from '../core/paths.js';

const INGEST_CONTROLLERS = ['ingest/**/*.controller.ts', 'api/ping/*.controller.ts'];
const API_CONTROLLERS = ['api/**/*.controller.ts'];

const common = {
  entryFile: 'api/ping/ping.controller.ts',
  noImplicitAdditionalProperties: 'throw-on-extras' as const,
};

export function specConfig(outputDirectory: string): ExtendedSpecConfig {
  return {
    ...common,
    controllerPathGlobs: [...new Set([...INGEST_CONTROLLERS, ...API_CONTROLLERS])],
    outputDirectory,
    specVersion: 3,
    name: 'Marginal',
    description:
      'Usage cost and margin analytics for AI products. Send one usage event per model call; read cost, attribution, dimension, session and margin analytics.',
    version: '1.0.0',
    basePath: '/v1',
    spec: { servers: [{ url: '/v1' }] },
    securityDefinitions: {
      api_key: { type: 'http', scheme: 'bearer', description: 'Restricted API key: `Authorization: Bearer mk_live_…`' } as never,
      admin: { type: 'http', scheme: 'bearer', description: 'Admin token (MARGINAL_ADMIN_TOKEN)' } as never,
    },
  };
}

function routesConfig(controllers: string[], routesDir: string): ExtendedRoutesConfig {
  return {
    ...common,
    controllerPathGlobs: controllers,
    routesDir,
    basePath: '/v1',
    middleware: 'express',
    authenticationModule: 'core/http/authentication.ts',
    esm: true,
    bodyCoercion: true,
  };
}

async function main(): Promise<void> {
  process.chdir(projectRoot);
  const check = process.argv.includes('--check');
  if (check) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
    await generateSpec(specConfig(tmp));
    const fresh = fs.readFileSync(path.join(tmp, 'swagger.json'), 'utf8');
    const committed = fs.existsSync(fromRoot('openapi/openapi.json'))
      ? fs.readFileSync(fromRoot('openapi/openapi.json'), 'utf8')
      : '';
    fs.rmSync(tmp, { recursive: true, force: true });
    if (fresh !== committed) {
      console.error('openapi/openapi.json is stale: run `npm run tsoa` and commit it.');
      process.exit(1);
    }
    console.log('openapi/openapi.json is current');
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  const metadata = await generateSpec(specConfig(tmp));
  fs.mkdirSync(fromRoot('openapi'), { recursive: true });
  fs.copyFileSync(path.join(tmp, 'swagger.json'), fromRoot('openapi/openapi.json'));
  fs.rmSync(tmp, { recursive: true, force: true });
  void metadata;
  await generateRoutes(routesConfig(INGEST_CONTROLLERS, 'ingest/generated'));
  await generateRoutes(routesConfig(API_CONTROLLERS, 'api/generated'));
  console.log('generated openapi/openapi.json, ingest/generated/routes.ts, api/generated/routes.ts');
}

await main();
