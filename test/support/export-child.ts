// A scheduled-export attempt in a process of its own, for the kill test: writes one claimed run
// of an events schedule (argv[2]: JSON of { lakeDir, dataDir, extensionDirectory, masterKey (hex),
// schedule, run }) through the runner's own write step, then waits to be killed before recording.
import { writeExportRun } from '../../api/exports/export-runner.js';
import { LakeQuery } from '../../api/lake/lake-query.js';
import type { ControlDb } from '../../core/control/db.js';
import { testLakeQueryOptions } from './test-lake.js';

const job = JSON.parse(process.argv[2]!);
const lake = await LakeQuery.open(job.lakeDir, { ...testLakeQueryOptions(job.lakeDir), derivedDir: false });
// An events export reads the lake only; the control plane is the parent's (PGlite is one process).
const db = null as unknown as ControlDb;
process.stdout.write('writing\n');
const written = await writeExportRun(
  { db, lake, masterKey: Buffer.from(job.masterKey, 'hex'), dataDir: job.dataDir, extensionDirectory: job.extensionDirectory },
  { ...job.schedule, created_at: new Date(job.schedule.created_at) },
  job.run,
);
process.stdout.write(`written ${JSON.stringify(written)}\n`);
await new Promise(() => undefined);
