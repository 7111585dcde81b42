import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Integration suites share one Kafka broker started in globalSetup; files run one at a time
    // so a 2-core machine is not oversubscribed by several JVM-backed suites at once.
    fileParallelism: false,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
