// A read-API benchmark's api in a process of its own (started by bench/api/fresh-api.ts), so a
// "first request" is the first of a fresh process and its RSS is the api's alone. Hosts the api
// component on the data directory a benchmark wrote (PGlite control plane, lake), prints
// {"url": …} on stdout when it listens, and stops cleanly on SIGTERM.
//   BENCH_API_OPTIONS='{"dataDir": …, "now"?: ISO, "useRollups"?: bool, "derivedDir"?: path, "databaseUrl"?: url, "derivedTables"?: …, "prepare"?: false, "apiKeyCache"?: false, "rateBookCache"?: false, "revenueCache"?: false, "lake"?: {…}}'
import { collectGarbageWhenIdle } from '../../api/idle-gc.js';
import { ApiKeyAuthenticator } from '../../core/auth/api-key-authenticator.js';
import { findActiveApiKey } from '../../core/control/api-keys.js';
import type { FreshApiOptions } from './fresh-api.js';
import { startSyntheticLakeHost } from './synthetic-lake-host.js';

const opts = JSON.parse(process.env.BENCH_API_OPTIONS ?? '{}') as FreshApiOptions;
const now = opts.now ? new Date(opts.now) : null;
const bench = await startSyntheticLakeHost({
  label: 'bench-api-process',
  dataDir: opts.dataDir,
  databaseUrl: opts.databaseUrl,
  api: {
    ...(now ? { now: () => now } : {}),
    revenue: { checkIntervalMs: 0 },
    ...(opts.prepare === false ? { prepare: false as const } : {}),
    ...(opts.rateBookCache === false ? { rateBookCache: false as const } : {}),
    ...(opts.revenueCache === false ? { revenueCache: false as const } : {}),
    lake: {
      useRollups: opts.useRollups ?? true,
      ...(opts.derivedDir ? { derivedDir: opts.derivedDir } : {}),
      ...(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {}),
      ...(opts.derivedTables ? { derivedTables: opts.derivedTables } : {}),
      ...opts.lake,
    },
  },
});
// The key cache off: every request looks its key up (core/bootstrap.ts builds it with the default ttl).
const { ctx } = bench.host;
if (opts.apiKeyCache === false) ctx.auth = new ApiKeyAuthenticator((key) => findActiveApiKey(ctx.db, ctx.masterKey, key), 0);
// As api/main.ts does.
collectGarbageWhenIdle(bench.host.server);
process.stdout.write(`${JSON.stringify({ url: bench.host.url })}\n`);
const stop = () => void bench.stop().finally(() => process.exit(0));
process.once('SIGTERM', stop);
// The benchmark holds our stdin: when it ends (the benchmark died), stop instead of lingering.
process.stdin.once('end', stop).resume();
