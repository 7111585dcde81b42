import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    // One real service for the whole run (test/support/global-setup.ts); files share it, one at a time.
    fileParallelism: false,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
