// `npm run cli -- lake migrate [--remove-old]`: moves the manifest lake in LAKE_DIR into the open
// lake of this environment (LAKE_FORMAT=ducklake, LAKE_URL, LAKE_CATALOG_URL; docs/configuration.md)
// with processor/lake/lake-migration.ts. Local, no server: every processor must be stopped. The
// bar goes to stderr (redrawn in place on a terminal, a line per unit otherwise); stdout gets the
// JSON report (what was verified per organization, day and status, and what was removed).
import { loadConfig } from '../../core/config.js';
import { LakeOpenError, type OpenLake, openLake } from '../../core/lake/lake-catalog.js';
import { LakeMigrationError, migrateLake, type MigrationProgress } from '../../processor/lake/lake-migration.js';
import { progressLine } from './progress-bar.js';

function drawProgress(p: MigrationProgress): void {
  const percent = p.unitsTotal === 0 ? 100 : (p.unitsDone / p.unitsTotal) * 100;
  const events = `${p.eventsCopied.toLocaleString('en-US')} / ${p.eventsTotal.toLocaleString('en-US')} events copied`;
  const line = `${progressLine(percent, p.unitsDone, p.unitsTotal, 'units')}  ${events}${p.unit ? `  (${p.unit})` : ''}`;
  process.stderr.write(process.stderr.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
}

export async function runLakeMigrate(args: readonly string[]): Promise<number> {
  const unknown = args.filter((a) => a !== '--remove-old');
  if (unknown.length > 0) {
    process.stderr.write(`lake migrate takes only --remove-old, got ${unknown.join(' ')}\n`);
    return 2;
  }
  const config = loadConfig();
  if (config.lakeFormat !== 'ducklake') {
    process.stderr.write(
      'set LAKE_FORMAT=ducklake and the open lake the service will use (LAKE_URL, LAKE_CATALOG_URL): the migration writes there\n',
    );
    return 2;
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
