// A processor stand-in for crash tests: resumes partition 0 of the lake in argv[2] from its
// manifest and flushes numberedEvent batches until killed, printing each committed offset.
import { LakeWriter } from '../../processor/lake/lake-writer.js';
import { numberedEvent } from './lake-event-builder.js';

const lakeDir = process.argv[2]!;
const batch = Number(process.argv[3] ?? 300);
const writer = await LakeWriter.open(lakeDir);
let { nextOffset } = await writer.readManifest(0);
process.stdout.write(`resumed ${nextOffset}\n`);
for (;;) {
  const rows = Array.from({ length: batch }, (_, i) => numberedEvent(nextOffset + i));
  await writer.flush(0, rows, nextOffset + batch);
  nextOffset += batch;
  process.stdout.write(`flushed ${nextOffset}\n`);
}
