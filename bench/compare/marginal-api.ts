// One Marginal api process on bench/compare's data directory (bench/api's host: PGlite control
// plane, the lake, no Kafka, no warm-up), its clock at bench/api's "now". Prints {"url": ...} on a
// line when listening; stops on SIGTERM. Started fresh for every cold measurement.
//   node --import tsx bench/compare/marginal-api.ts <data-dir> <days>
import { benchNow } from '../api/bench-lake.js';
import { startSyntheticLakeHost } from '../api/synthetic-lake-host.js';

const [dataDir, days] = process.argv.slice(2);
if (!dataDir || !days) throw new Error('usage: marginal-api.ts <data-dir> <days>');
const now = benchNow(Number(days));
const bench = await startSyntheticLakeHost({ label: 'bench-compare-api', dataDir, api: { now: () => now } });
process.stdout.write(`${JSON.stringify({ url: bench.host.url })}\n`);
process.once('SIGTERM', () => {
  void bench.stop().then(() => process.exit(0));
});
