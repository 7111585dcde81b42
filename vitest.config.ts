import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Integration suites share one Kafka broker started in globalSetup; files run one at a time
    // so a 2-core machine is not oversubscribed by several JVM-backed suites at once.
    fileParallelism: false,
    // `npm test` sets UV_THREADPOOL_SIZE=16: some suites run several processors in one process (as
    // separate machines would), each DuckDB query holding a libuv thread while it runs; with the
    // default four, one member's compaction could starve the others' file writes under load.
    globalSetup: ['test/support/global-setup.ts'],
  },
});
