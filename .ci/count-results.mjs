// Adds up what every CI runner really ran, from the files the runners wrote into one directory:
//   <name>.vitest.json  vitest's JSON reporter (tests by state; a file that failed to load counts
//                       as one failed test, since it holds no test results)
//   <name>.junit.xml    a JUnit report (pytest --junitxml, schemathesis --report junit): one
//                       <testcase> each, failed when it holds <failure> or <error>, skipped when
//                       it holds <skipped>
//   <name>.exit         the runner's exit code; a runner that exited non-zero without a failed
//                       test counted (a crash, a timeout, a check such as a linter) counts as one
//                       failed test, and a check without a report of its own counts as one test
// Prints one line per runner, then `summary: N passed, N failed, N skipped` alone on the last
// line, and exits 1 when anything failed.
//   node .ci/count-results.mjs <dir>
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node .ci/count-results.mjs <results dir>');
  process.exit(2);
}

function fromVitest(file) {
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  const crashedFiles = (r.testResults ?? []).filter((t) => t.status === 'failed' && (t.assertionResults ?? []).length === 0).length;
  return {
    passed: r.numPassedTests ?? 0,
    failed: (r.numFailedTests ?? 0) + crashedFiles,
    skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
  };
}

function fromJunit(file) {
  const xml = fs.readFileSync(file, 'utf8');
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const m of xml.matchAll(/<testcase\b[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = m[1] ?? '';
    if (/<(failure|error)\b/.test(body)) counts.failed++;
    else if (/<skipped\b/.test(body)) counts.skipped++;
    else counts.passed++;
  }
  return counts;
}

const runners = new Map();
for (const file of fs.readdirSync(dir).sort()) {
  const m = /^(.+?)\.(vitest\.json|junit\.xml|exit)$/.exec(file);
  if (!m) continue;
  const [, name, kind] = m;
  const entry = runners.get(name) ?? { passed: 0, failed: 0, skipped: 0, reported: false, exit: null };
  const full = path.join(dir, file);
  if (kind === 'exit') entry.exit = Number(fs.readFileSync(full, 'utf8').trim() || 1);
  else {
    let counts;
    try {
      counts = kind === 'junit.xml' ? fromJunit(full) : fromVitest(full);
    } catch (err) {
      console.error(`${file}: unreadable report (${err.message})`);
      counts = { passed: 0, failed: 1, skipped: 0 };
    }
    entry.passed += counts.passed;
    entry.failed += counts.failed;
    entry.skipped += counts.skipped;
    entry.reported = true;
  }
  runners.set(name, entry);
}

const total = { passed: 0, failed: 0, skipped: 0 };
for (const [name, r] of runners) {
  let note = '';
  if (!r.reported) {
    // A check (linter, type checker, build) is one test: passed when it exited 0.
    if (r.exit === 0) r.passed += 1;
    else r.failed += 1;
  } else if (r.exit !== null && r.exit !== 0 && r.failed === 0) {
    r.failed += 1;
    note = ` (exited ${r.exit} with no failed test in its report: counted as one failure)`;
  } else if (r.exit === null) {
    r.failed += 1;
    note = ' (never finished: counted as one failure)';
  }
  console.log(`${name}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped${note}`);
  total.passed += r.passed;
  total.failed += r.failed;
  total.skipped += r.skipped;
}
console.log(`summary: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 || runners.size === 0 ? 1 : 0);
