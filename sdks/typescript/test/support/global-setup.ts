// vitest globalSetup: one real Marginal service per `vitest run` (skipped for unit-only runs,
// MARGINAL_SDK_UNIT=1), its origin and admin token handed to test files through provide/inject.
import type { TestProject } from 'vitest/node';
import { startService } from './service.js';

declare module 'vitest' {
  export interface ProvidedContext {
    marginalUrl: string;
    adminToken: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.MARGINAL_SDK_UNIT === '1') {
    project.provide('marginalUrl', '');
    project.provide('adminToken', '');
    return async () => undefined;
  }
  const service = await startService();
  project.provide('marginalUrl', service.url);
  project.provide('adminToken', service.adminToken);
  return () => service.stop();
}
