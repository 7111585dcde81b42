import { defineConfig } from 'vitest/config';

// The suite runs as two lanes side by side (`npm test` runs scripts/test-lanes.mjs: one vitest
// process per lane), each one file at a time: `long` holds the files that take longest (crash,
// outage, browser and all-in-one suites, measured in CI), `rest` everything else. Two files at
// once keep a 2-core machine busy while most files wait on a broker, a child process or a poll,
// without the oversubscription of one worker per file. Each lane runs the globalSetup for itself
// (its own broker, registry and PostgreSQL), so the lanes share no infrastructure; every file
// already makes its own topics, databases and temp folders. `npx vitest run` alone runs the lanes
// one after the other (vitest puts every single-worker project in one sequence).
// A file that grows long belongs in LONG (keep the lanes within a minute of each other).
const LONG = [
  'test/browser/**/*.test.ts',
  'test/integration/all-in-one-ducklake.test.ts',
  'test/integration/availability.test.ts',
  'test/integration/dimension-backfill.test.ts',
  'test/integration/distributed.test.ts',
  'test/integration/ducklake-processor.test.ts',
  'test/integration/ingest-crash.test.ts',
  'test/integration/lake-migrate.test.ts',
  'test/integration/open-lake-foundation.test.ts',
  'test/integration/password-reset-smtp.test.ts',
  'test/integration/people.test.ts',
  'test/integration/processor-crash.test.ts',
  'test/integration/processor-poison.test.ts',
  'test/integration/processor-rebalance.test.ts',
  'test/integration/sso.test.ts',
  'test/integration/repricing-history.test.ts',
  'test/integration/revenue.test.ts',
  'test/integration/sessions.test.ts',
];

// Settings both lanes share. The root project defines none of them: vitest runs the root project's
// globalSetup too, which would start a third broker.
const shared = {
  testTimeout: 120_000,
  hookTimeout: 300_000,
  // `npm test` sets UV_THREADPOOL_SIZE=16: some suites run several processors in one process (as
  // separate machines would), each DuckDB query holding a libuv thread while it runs; with the
  // default four, one member's compaction could starve the others' file writes under load.
  globalSetup: ['test/support/global-setup.ts'],
  fileParallelism: false,
};

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: 'long', include: LONG } },
      { test: { ...shared, name: 'rest', include: ['test/**/*.test.ts'], exclude: LONG } },
    ],
  },
});
