// `npm test`: the two lanes of vitest.config.ts (long, rest) as two vitest processes side by side,
// each running its files one at a time with its own broker, registry and PostgreSQL (one vitest
// process runs every single-worker project in one sequence, so the lanes must be processes).
// Arguments go to both lanes (a file filter runs in whichever lane holds the file; the other
// passes with no tests). Each output line is prefixed with its lane. `--outputFile.json=F` is
// written once, by merging the lanes' reports, so CI counts one vitest runner. The exit code is
// non-zero when either lane failed; SIGINT/SIGTERM are passed on to both.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createInterface } from 'node:readline';

const LANES = ['long', 'rest'];
const args = process.argv.slice(2);
const jsonArg = args.find((a) => a.startsWith('--outputFile.json='));
const jsonFile = jsonArg?.slice('--outputFile.json='.length);

function runLane(lane) {
  const laneArgs = args.map((a) => (a === jsonArg ? `--outputFile.json=${jsonFile}.${lane}` : a));
  const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', lane, '--passWithNoTests', ...laneArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    createInterface({ input: from }).on('line', (line) => to.write(`[${lane}] ${line}\n`));
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  return { child, exited };
}

const lanes = LANES.map(runLane);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const { child } of lanes) child.kill(signal);
  });
}
const codes = await Promise.all(lanes.map((l) => l.exited));

if (jsonFile) {
  // The lanes' reports as one: counts added, file results concatenated; a lane without a report
  // (it crashed) leaves its exit code to tell.
  const merged = { numTotalTests: 0, numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [] };
  let success = true;
  for (const lane of LANES) {
    const file = `${jsonFile}.${lane}`;
    if (!fs.existsSync(file)) continue;
    const report = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const key of Object.keys(merged)) {
      if (key === 'testResults') merged.testResults.push(...(report.testResults ?? []));
      else merged[key] += report[key] ?? 0;
    }
    success &&= report.success !== false;
    fs.rmSync(file);
  }
  fs.writeFileSync(jsonFile, JSON.stringify({ ...merged, success }));
}
const failed = codes.find((c) => c !== 0);
console.log(`lanes: ${LANES.map((lane, i) => `${lane} exit ${codes[i]}`).join(', ')}`);
process.exit(failed ?? 0);
