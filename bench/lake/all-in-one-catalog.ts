// The all-in-one's lake catalog server (scripts/postgres/lake-catalog-server.ts, decision 0148):
// first start (initdb + start + database), later starts, stop, and the server's memory idle (PSS
// summed over its processes, from /proc). Run: npx tsx bench/lake/all-in-one-catalog.ts [runs]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../core/logger.js';
import { planLakeCatalog, superviseLakeCatalog } from '../../scripts/postgres/lake-catalog-server.js';

const runs = Number(process.argv[2] ?? 3);
const logger = createLogger('silent');

/** PSS in MB of the postmaster and its children (Linux). */
function serverPssMb(postmaster: number): number {
  const pids = [
    postmaster,
    ...fs.readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
  ];
  let kb = 0;
  for (const pid of pids) {
    let rollup = '';
    try {
      rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    } catch {
      continue; // a short-lived backend already gone
    }
    const m = /^Pss:\s+(\d+) kB/m.exec(rollup);
    kb += m ? Number(m[1]) : 0;
  }
  return kb / 1024;
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(2);
for (let r = 0; r < runs; r++) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-bench-catalog-'));
  const dir = path.join(tmp, 'lake-catalog');
  try {
    let began = performance.now();
    let server = await superviseLakeCatalog(await planLakeCatalog(dir), logger);
    const first = seconds(began);
    const pss = serverPssMb(server.pid()!).toFixed(0);
    began = performance.now();
    await server.stop();
    const stop = seconds(began);
    began = performance.now();
    server = await superviseLakeCatalog(await planLakeCatalog(dir), logger);
    const later = seconds(began);
    await server.stop();
    const dataMb = (dirBytes(path.join(dir, 'data')) / 2 ** 20).toFixed(0);
    console.log(`run ${r + 1}: first start ${first} s, later start ${later} s, stop ${stop} s, idle PSS ${pss} MB, data ${dataMb} MB`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : e.isFile() ? fs.statSync(p).size : 0;
  }
  return total;
}
