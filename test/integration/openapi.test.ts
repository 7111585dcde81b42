// The committed OpenAPI document is current (regenerating it from the controllers changes
// nothing), passes Redocly's recommended rules (redocly.yaml) with no error and no warning, and
// documents the admin surface behind the admin token.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fromRoot, projectRoot } from '../../core/paths.js';

const run = promisify(execFile);

describe('OpenAPI document', () => {
  it('openapi/openapi.json matches the controllers (`npm run tsoa` was run and committed)', async () => {
    const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
    const result = await run(tsx, ['scripts/tsoa-generate.ts', '--check'], { cwd: projectRoot, timeout: 180_000 }).then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? -1, output: `${err.stdout}${err.stderr}` }),
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('openapi/openapi.json is current');
  });

  it('passes `npm run openapi:lint` (Redocly, recommended rules) with no error and no warning', async () => {
    // The CLI bundles its core, so @redocly/openapi-core does not resolve from here: run the CLI.
    const redocly = path.join(projectRoot, 'node_modules', '.bin', 'redocly');
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    const stdout = await run(redocly, ['lint', 'openapi/openapi.json', '--format=json', '--max-problems=1000'], {
      cwd: projectRoot,
      env,
      timeout: 120_000,
    }).then(
      (r) => r.stdout,
      (err: { stdout?: string }) => err.stdout ?? '', // exits 1 when it finds an error; the report is still on stdout
    );
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string; location: Array<{ pointer?: string }> }>;
    };
    const problems = report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('gives every operation a summary and a description (what Swagger UI and generated clients show)', () => {
    const spec = JSON.parse(fs.readFileSync(fromRoot('openapi', 'openapi.json'), 'utf8'));
    const missing = Object.entries(spec.paths as Record<string, Record<string, { summary?: string; description?: string }>>).flatMap(
      ([p, ops]) =>
        Object.entries(ops)
          .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .filter(([, op]) => !op.summary?.trim() || !op.description?.trim())
          .map(([method]) => `${method.toUpperCase()} ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('names every operation uniquely (generated clients key their methods and types by operationId)', () => {
    const spec = JSON.parse(fs.readFileSync(fromRoot('openapi', 'openapi.json'), 'utf8'));
    const ids = Object.values(spec.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) =>
      Object.values(ops).flatMap((op) => (op.operationId ? [op.operationId] : [])),
    );
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('documents every admin endpoint with the admin security scheme', () => {
    const spec = JSON.parse(fs.readFileSync(fromRoot('openapi', 'openapi.json'), 'utf8'));
    const expected: Array<[string, string]> = [
      ['/admin/organizations', 'post'],
      ['/admin/organizations', 'get'],
      ['/admin/organizations/{organizationId}', 'get'],
      ['/admin/organizations/{organizationId}/api-keys', 'post'],
      ['/admin/organizations/{organizationId}/api-keys', 'get'],
      ['/admin/organizations/{organizationId}/api-keys/{keyId}', 'delete'],
      ['/admin/organizations/{organizationId}/credits', 'post'],
      ['/admin/organizations/{organizationId}/credits', 'get'],
      ['/admin/organizations/{organizationId}/rate-cards', 'post'],
      ['/admin/organizations/{organizationId}/rate-cards', 'get'],
      ['/admin/organizations/{organizationId}/unit-rates', 'post'],
      ['/admin/organizations/{organizationId}/unit-rates', 'get'],
      ['/admin/organizations/{organizationId}/dimensions', 'post'],
      ['/admin/organizations/{organizationId}/dimensions', 'get'],
      ['/admin/organizations/{organizationId}/subscriptions', 'post'],
      ['/admin/organizations/{organizationId}/subscriptions', 'get'],
      ['/admin/organizations/{organizationId}/subscriptions/{subscriptionId}', 'patch'],
    ];
    for (const [p, method] of expected) {
      const op = spec.paths?.[p]?.[method];
      expect(op, `${method.toUpperCase()} ${p}`).toBeDefined();
      // What an organization's owners and admins manage also takes their session (organization:admin).
      const ownersManage = /\/(api-keys|rate-cards|unit-rates|dimensions)/.test(p);
      expect(op.security, `${method.toUpperCase()} ${p}`).toEqual([{ admin: ownersManage ? ['organization:admin'] : [] }]);
      expect(typeof op.description === 'string' && op.description.length > 0, `${method.toUpperCase()} ${p} description`).toBe(true);
      if (method === 'post') expect(Object.keys(op.responses)).toContain('201');
    }
    expect(spec.servers).toEqual([{ url: '/v1' }]);
  });
});
