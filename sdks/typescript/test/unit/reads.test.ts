import fs from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { READ_ENDPOINTS } from '../../src/reads.js';
import { REPO_ROOT } from '../support/service.js';

const DOCUMENT = path.join(REPO_ROOT, 'openapi/openapi.json');

describe('read methods', () => {
  it('one method per GET endpoint of openapi/openapi.json an API key may call (admin and session-only aside)', () => {
    const doc = JSON.parse(fs.readFileSync(DOCUMENT, 'utf8')) as { paths: Record<string, Record<string, { security?: object[] }>> };
    const sessionOnly = (security: object[] = []) => security.length > 0 && security.every((req) => Object.keys(req).join() === 'session');
    const gets = Object.entries(doc.paths)
      .filter(([p, ops]) => ops.get !== undefined && !p.startsWith('/admin') && !sessionOnly(ops.get.security))
      .map(([p]) => p)
      .sort();
    expect(Object.values(READ_ENDPOINTS).sort()).toEqual(gets);
  });

  it('src/generated/openapi.ts is what `npm run generate` makes from the current document', async () => {
    const generated = astToString(await openapiTS(new URL(`file://${DOCUMENT}`)));
    const committed = fs.readFileSync(path.join(REPO_ROOT, 'sdks/typescript/src/generated/openapi.ts'), 'utf8');
    const strip = (s: string) => s.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '').trim();
    expect(strip(committed)).toBe(strip(generated));
  });
});
