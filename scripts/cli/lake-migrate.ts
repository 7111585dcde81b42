// `npm run cli -- lake migrate [--remove-old]`: moves the manifest lake in LAKE_DIR into the open
// lake of this environment (LAKE_URL, LAKE_CATALOG_URL; docs/configuration.md)
// with processor/lake/lake-migration.ts. Local, no server: every processor must be stopped (with
// KAFKA_BROKERS set, a member in the processors' consumer group is refused here; the migration
// itself refuses a manifest that moves). The
// bar goes to stderr (redrawn in place on a terminal, a line per unit otherwise); stdout gets the
// JSON report (what was verified per organization, day and status, and what was removed).
import { loadConfig } from '../../core/config.js';
import { createKafka } from '../../core/kafka/client.js';
import { LakeOpenError, type OpenLake, openLake } from '../../core/lake/lake-catalog.js';
import { PROCESSOR_GROUP_ID } from '../../processor/consumer.js';
import { LakeMigrationError, migrateLake, type MigrationProgress } from '../../processor/lake/lake-migration.js';
import { attachEmbeddedLakeCatalog } from './embedded-lake-catalog.js';
import { progressLine } from './progress-bar.js';

function drawProgress(p: MigrationProgress): void {
  const percent = p.unitsTotal === 0 ? 100 : (p.unitsDone / p.unitsTotal) * 100;
  const events = `${p.eventsCopied.toLocaleString('en-US')} / ${p.eventsTotal.toLocaleString('en-US')} events copied`;
  const line = `${progressLine(percent, p.unitsDone, p.unitsTotal, 'units')}  ${events}${p.unit ? `  (${p.unit})` : ''}`;
  process.stderr.write(process.stderr.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
}

/**
 * Members of the processors' consumer group, or null when no broker is configured or none answers
 * within a few seconds (then no processor is consuming either; the all-in-one's own broker is
 * down with the service).
 */
async function processorsRunning(brokers: string[] | null): Promise<number | null> {
  if (!brokers) return null;
  const admin = createKafka(brokers, 'marginal-lake-migrate', { logLevel: 'error', log: () => undefined, retry: { retries: 1 } }).admin();
  try {
    await admin.connect();
    const { groups } = await admin.describeGroups([PROCESSOR_GROUP_ID]);
    return groups[0]?.members.length ?? 0;
  } catch {
    return null;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export async function runLakeMigrate(args: readonly string[]): Promise<number> {
  const unknown = args.filter((a) => a !== '--remove-old');
  if (unknown.length > 0) {
    process.stderr.write(`lake migrate takes only --remove-old, got ${unknown.join(' ')}\n`);
    return 2;
  }
  // The all-in-one's own catalog: the running service's, else started for this run only.
  const catalog = await attachEmbeddedLakeCatalog({ start: true });
  try {
    return await migrate(args);
  } finally {
    await catalog?.stop();
  }
}

async function migrate(args: readonly string[]): Promise<number> {
  const config = loadConfig();
  const members = await processorsRunning(config.kafkaBrokers);
  if (members) {
    const message = `${members} processor(s) are members of the consumer group ${PROCESSOR_GROUP_ID}: stop every processor before migrating`;
    process.stderr.write(`${JSON.stringify({ error: { code: 'LAKE_MIGRATION', message } }, null, 2)}\n`);
    return 1;
  }
  let lake: OpenLake;
  try {
    lake = await openLake(config.lake, { threads: 2 });
  } catch (e) {
    if (!(e instanceof LakeOpenError)) throw e;
    process.stderr.write(`${JSON.stringify({ error: { code: 'LAKE_OPEN', step: e.step, message: e.message } }, null, 2)}\n`);
    return 1;
  }
  try {
    const report = await migrateLake(lake, config.lakeDir, {
      dataPath: config.lake.dataPath,
      removeOld: args.includes('--remove-old'),
      onProgress: drawProgress,
    });
    if (process.stderr.isTTY) process.stderr.write('\n');
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  } catch (e) {
    if (process.stderr.isTTY) process.stderr.write('\n');
    if (!(e instanceof LakeMigrationError)) throw e;
    process.stderr.write(`${JSON.stringify({ error: { code: 'LAKE_MIGRATION', message: e.message } }, null, 2)}\n`);
    return 1;
  } finally {
    lake.close();
  }
}
