// Generates the express routes of each service and the one OpenAPI document from the tsoa
// controllers, plus the one operation tsoa cannot describe (POST /otlp/v1/traces, merged from
// otlp/otlp.openapi.ts), rewritten where tsoa's output is not valid OpenAPI 3.0 (`validSchemas`).
// `--check` generates the document in a temp dir and fails when openapi/openapi.json differs (the
// committed document must be current); `npm run openapi:lint` lints it (redocly.yaml).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateRoutes, generateSpec, type ExtendedRoutesConfig, type ExtendedSpecConfig } from '@tsoa/cli';
import { fromRoot, projectRoot } from '../core/paths.js';
import { withOtlpOperation } from '../otlp/otlp.openapi.js';

const INGEST_CONTROLLERS = ['ingest/**/*.controller.ts', 'api/ping/*.controller.ts'];
const API_CONTROLLERS = [
  'api/**/*.controller.ts',
  'pricing/**/*.controller.ts',
  'revenue/**/*.controller.ts',
  'otlp/**/*.controller.ts',
  'alerts/**/*.controller.ts',
  'people/**/*.controller.ts',
  'reconciliation/**/*.controller.ts',
];

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
    license: 'Proprietary',
    basePath: '/v1',
    spec: { servers: [{ url: '/v1' }] },
    securityDefinitions: {
      api_key: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Restricted API key: `Authorization: Bearer mk_live_…`. A signed-in person may call the same routes with the `marginal_session` cookie instead (see `session`): the scopes are those of their role in the organization `X-Organization-Id` names (or their only one).',
      } as never,
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: 'marginal_session',
        description:
          'A person’s session cookie from `POST /v1/auth/sign-in`. State-changing requests carry `X-CSRF-Token`; `X-Organization-Id` picks the organization when the person has several.',
      } as never,
      admin: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Admin token (MARGINAL_ADMIN_TOKEN). Operations that list `organization:admin` also take, instead, the `marginal_session` cookie of an owner or admin of the organization in their path (with `X-CSRF-Token` on writes).',
      } as never,
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

type Json = Record<string, unknown>;

/** Accepts only null: `nullable` widens the `type` beside it, and the enum then keeps only null. */
const NULL_ONLY = { type: 'string', nullable: true, enum: [null] };

/** Keys whose values are data, not schemas: left as they are. */
const DATA_KEYS = new Set(['example', 'examples', 'enum', 'default']);

/**
 * tsoa writes two shapes OpenAPI 3.0 does not define, which Redocly's recommended rules reject:
 * - `nullable` without `type` (its `T | null` where T is a $ref or a union). In 3.0.3 `nullable`
 *   only widens a `type` in the same schema, so it becomes an `anyOf` of the alternatives and
 *   NULL_ONLY (generated clients still read it as `T | null`);
 * - `$ref` with siblings (a property's JSDoc beside its type's $ref), which 3.0 ignores: the
 *   $ref moves into `allOf: [{ $ref }]` so the description stays.
 */
function validSchemas(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(validSchemas);
  if (node === null || typeof node !== 'object') return node;
  const schema: Json = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, DATA_KEYS.has(key) ? value : validSchemas(value)]),
  );
  if (schema.nullable === true && schema.type === undefined) {
    const { nullable: _nullable, allOf, anyOf, oneOf, ...rest } = schema as Json & Record<'allOf' | 'anyOf' | 'oneOf', Json[] | undefined>;
    const alternatives = allOf ? (allOf.length === 1 ? allOf : [{ allOf }]) : (anyOf ?? oneOf);
    if (!alternatives) throw new Error(`nullable schema without type or alternatives: ${JSON.stringify(schema)}`);
    return { ...rest, [oneOf ? 'oneOf' : 'anyOf']: [...alternatives, NULL_ONLY] };
  }
  if (typeof schema.$ref === 'string' && Object.keys(schema).length > 1) {
    const { $ref, ...siblings } = schema;
    return { allOf: [{ $ref }], ...siblings };
  }
  return schema;
}

/** The whole document as committed: tsoa's spec with the OTLP operation merged in, tab-indented as tsoa writes it. */
async function generateDocument(): Promise<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  try {
    await generateSpec(specConfig(tmp));
    const spec = JSON.parse(fs.readFileSync(path.join(tmp, 'swagger.json'), 'utf8'));
    return JSON.stringify(validSchemas(withOtlpOperation(spec)), null, '\t');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  process.chdir(projectRoot);
  const check = process.argv.includes('--check');
  if (check) {
    const fresh = await generateDocument();
    const committed = fs.existsSync(fromRoot('openapi/openapi.json')) ? fs.readFileSync(fromRoot('openapi/openapi.json'), 'utf8') : '';
    if (fresh !== committed) {
      console.error('openapi/openapi.json is stale: run `npm run tsoa` and commit it.');
      process.exit(1);
    }
    console.log('openapi/openapi.json is current');
    return;
  }
  // --routes: only the (git-ignored) route files, as the test and build steps need; the
  // committed spec is regenerated by `npm run tsoa` so the staleness test stays meaningful.
  if (!process.argv.includes('--routes')) {
    const document = await generateDocument();
    fs.mkdirSync(fromRoot('openapi'), { recursive: true });
    fs.writeFileSync(fromRoot('openapi/openapi.json'), document);
    console.log('generated openapi/openapi.json');
  }
  await generateRoutes(routesConfig(INGEST_CONTROLLERS, 'ingest/generated'));
  await generateRoutes(routesConfig(API_CONTROLLERS, 'api/generated'));
  console.log('generated ingest/generated/routes.ts, api/generated/routes.ts');
}

await main();
