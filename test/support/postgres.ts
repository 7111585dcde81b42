// A throwaway PostgreSQL cluster for one test run (scripts/postgres/local-cluster.ts under the
// run's temp dir, fsync off, one database); null with a warning when PostgreSQL is not installed.
import path from 'node:path';
import { startLocalPostgres, type LocalPostgres } from '../../scripts/postgres/local-cluster.js';

export type TestPostgres = LocalPostgres;

export async function startTestPostgres(tmpDir: string): Promise<TestPostgres | null> {
  try {
    return await startLocalPostgres({ dir: path.join(tmpDir, 'postgres'), database: 'marginal_test', throwaway: true });
  } catch (e) {
    console.warn(`[test postgres] ${(e as Error).message}: PostgreSQL tests will be skipped`);
    return null;
  }
}
