// `npm run fuzz`: schemathesis over openapi/openapi.json against the real all-in-one service.
// Installs schemathesis (pinned) from PyPI into the project's .venv-fuzz/ when missing, starts the
// service as a child process (free ports, temp DATA_DIR), creates a tenant through the admin API
// with rate cards, a dimension and a few events so reads have data, then runs every tenant-facing
// operation (admin ones excluded: they would fuzz other organizations into existence) for a
// bounded time with a hook that signs ingest bodies. It fails on any 5xx (the service's own
// /metrics counts every answer by status, independently of schemathesis) and on any failed check:
// no server error, status codes, content types, headers and bodies as documented, 405 for
// undocumented methods, and authentication never ignored. Checks it leaves out and why: see
// docs/decisions/0056-fuzzing-with-schemathesis.md (positive_data_acceptance cannot know
// cross-field rules such as start < end).
//   npm run fuzz -- [--seconds 120] [--workers 2] [--seed N] [--write] [--junit FILE]
//   (--write: bench/results/fuzz.md; --junit: schemathesis's JUnit report, one test case per
//   operation, copied to FILE so .ci/run can count it)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { signPayload } from '../../ingest/signature.js';
import { fromRoot, projectRoot } from '../../core/paths.js';
import { adminPost, createServiceTenant, startLocalService, type LocalService, type ServiceTenant } from '../local-service.js';

const SCHEMATHESIS = 'schemathesis==4.32.5';
const VENV = fromRoot('.venv-fuzz');
const CONFIG = fromRoot('scripts', 'fuzz', 'schemathesis.toml');

function ensureSchemathesis(): string {
  const st = path.join(VENV, 'bin', 'st');
  const version = fs.existsSync(st) ? spawnSync(st, ['--version'], { encoding: 'utf8' }).stdout : '';
  if (version.includes(SCHEMATHESIS.split('==')[1]!)) return st;
  console.error(`installing ${SCHEMATHESIS} into ${VENV}`);
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(cmd, args, { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
  };
  if (!fs.existsSync(path.join(VENV, 'bin', 'python'))) run('python3', ['-m', 'venv', VENV]);
  run(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', SCHEMATHESIS]);
  return st;
}

/** Answers by status class from the service's /metrics. */
async function answersByStatus(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^marginal_http_requests_total\{[^}]*status="(\d+)"[^}]*\} (\S+)$/gm)) {
    out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  }
  return out;
}

async function seed(svc: LocalService, t: ServiceTenant): Promise<void> {
  const org = `/organizations/${t.organizationId}`;
  await adminPost(svc, `${org}/rate-cards`, {
    model_slug: 'gpt-4o',
    input_cost_per_million: '2.5',
    output_cost_per_million: '10',
    cache_creation_cost_per_million: null,
    cache_read_cost_per_million: '1.25',
    reasoning_cost_per_million: null,
    effective_from: '2024-01-01T00:00:00Z',
  });
  await adminPost(svc, `${org}/dimensions`, { key: 'latency_ms', name: 'Latency', value_type: 'number', is_required: false });
  await adminPost(svc, `${org}/dimensions`, { key: 'team', name: 'Team', value_type: 'string', is_required: false });
  const now = Date.now();
  const events = Array.from({ length: 50 }, (_, i) => ({
    idempotency_key: `seed-${i}`,
    model: 'gpt-4o',
    input_tokens: 100 + i,
    output_tokens: 10 + i,
    user_id: `user-${i % 5}`,
    agent_id: `agent-${i % 3}`,
    session_id: `session-${i % 4}`,
    span_id: `span-${i}`,
    parent_span_id: i % 4 === 0 ? null : `span-${i - 1}`,
    timestamp: new Date(now - i * 3_600_000).toISOString(),
    metadata: { team: `team-${i % 2}`, latency_ms: i * 10 },
  }));
  const body = JSON.stringify({ events });
  const ts = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${svc.url}/v1/usage-events/batch`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${t.apiKey}`,
      'content-type': 'application/json',
      'x-timestamp': ts,
      'x-signature': signPayload(t.signingSecret, ts, body),
    },
    body,
  });
  if (res.status !== 200) throw new Error(`seeding events: ${res.status} ${await res.text()}`);
}

/**
 * An owner of the tenant's organization, signed in: its session (given to schemathesis as the
 * `session` scheme's value, see schemathesis.toml) and CSRF token reach people's session-only
 * operations (members, audit trail, the session itself).
 */
async function signedInOwner(svc: LocalService, t: ServiceTenant): Promise<{ session: string; csrf: string }> {
  const email = 'fuzz-owner@example.com';
  const password = 'fuzz owner password';
  const invitation = await adminPost<{ token: string }>(svc, `/organizations/${t.organizationId}/invitations`, { email, role: 'owner' });
  const post = (urlPath: string, body: unknown) =>
    fetch(`${svc.url}/v1${urlPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const accepted = await post('/auth/invitations/accept', { token: invitation.token, password });
  if (accepted.status !== 201) throw new Error(`accepting the fuzz owner's invitation: ${accepted.status} ${await accepted.text()}`);
  const signIn = await post('/auth/sign-in', { email, password });
  if (signIn.status !== 200) throw new Error(`signing the fuzz owner in: ${signIn.status} ${await signIn.text()}`);
  const { csrf_token } = (await signIn.json()) as { csrf_token: string };
  const session = /^marginal_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
  if (!session) throw new Error('signing the fuzz owner in: no session cookie');
  return { session, csrf: csrf_token };
}

function runSchemathesis(
  st: string,
  svc: LocalService,
  t: ServiceTenant,
  person: { session: string; csrf: string },
  opts: { seconds: number; workers: string; seed?: string; reportDir: string },
): Promise<{ code: number; output: string }> {
  const args = [
    '--config-file',
    CONFIG,
    'run',
    `${svc.url}/openapi.json`,
    '--url',
    `${svc.url}/v1`,
    '-H',
    `Authorization: Bearer ${t.apiKey}`,
    // Session writes need it; key requests ignore it.
    '-H',
    `X-CSRF-Token: ${person.csrf}`,
    '--exclude-path-regex',
    // Signing out would end the session the rest of the run uses.
    '^/admin/|^/auth/sign-out',
    '--max-time',
    String(opts.seconds),
    '--workers',
    opts.workers,
    '--phases',
    'examples,coverage,fuzzing',
    '--suppress-health-check',
    'all',
    '--request-timeout',
    '30',
    '--report',
    'junit,ndjson',
    '--report-dir',
    opts.reportDir,
    '--continue-on-failure',
    ...(opts.seed ? ['--seed', opts.seed] : []),
  ];
  return new Promise((resolve) => {
    const child = spawn(st, args, {
      cwd: projectRoot,
      env: {
        ...process.env,
        PYTHONPATH: fromRoot('scripts', 'fuzz'),
        SCHEMATHESIS_HOOKS: 'marginal_fuzz_hooks',
        MARGINAL_FUZZ_SIGNING_SECRET: t.signingSecret,
        MARGINAL_FUZZ_SESSION: person.session,
        MARGINAL_FUZZ_ORIGIN: svc.url,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      process.stdout.write(d);
    });
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '120' },
      workers: { type: 'string', default: '2' },
      seed: { type: 'string' },
      write: { type: 'boolean', default: false },
      junit: { type: 'string' },
    },
  });
  const st = ensureSchemathesis();
  const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-fuzz-report-'));
  const svc = await startLocalService({
    env: { RATE_LIMIT_INGEST_PER_MINUTE: '1000000000', RATE_LIMIT_READ_PER_15_MINUTES: '1000000000' },
  });
  let failed = true;
  try {
    const tenant = await createServiceTenant(svc, 'fuzz', 100_000_000);
    await seed(svc, tenant);
    const before = await answersByStatus(svc.url);
    const started = Date.now();
    const person = await signedInOwner(svc, tenant);
    const run = await runSchemathesis(st, svc, tenant, person, {
      seconds: Number(values.seconds),
      workers: values.workers!,
      seed: values.seed,
      reportDir,
    });
    const seconds = (Date.now() - started) / 1000;
    const after = await answersByStatus(svc.url);
    const byStatus: Record<string, number> = {};
    for (const [s, n] of Object.entries(after)) if (n - (before[s] ?? 0) > 0) byStatus[s] = n - (before[s] ?? 0);
    const requests = Object.values(byStatus).reduce((a, b) => a + b, 0);
    const serverErrors = Object.entries(byStatus)
      .filter(([s]) => s.startsWith('5'))
      .reduce((a, [, n]) => a + n, 0);
    const summary = {
      schemathesis: SCHEMATHESIS,
      seconds: Math.round(seconds),
      requests,
      serverErrors,
      schemathesisExit: run.code,
      checkFailures: checkFailures(run.output),
      toolErrors: toolErrors(run.output),
      byStatus,
      summaryLines: run.output
        .split('\n')
        .filter((l) => /passed|failed|errors?|Test cases|Operations|Seed/i.test(l))
        .slice(-12),
    };
    console.log(JSON.stringify(summary, null, 2));
    if (values.write) fs.writeFileSync(fromRoot('bench', 'results', 'fuzz.md'), report(summary));
    if (values.junit) copyJunitReport(reportDir, values.junit);
    failed = serverErrors > 0 || summary.checkFailures > 0 || (run.code !== 0 && summary.toolErrors === 0);
    if (serverErrors > 0) printServiceErrors(svc.logFile);
    if (summary.toolErrors > 0)
      console.error(
        `fuzz: schemathesis hit ${summary.toolErrors} runtime error(s) of its own (see ERRORS above); not counted as API failures`,
      );
  } finally {
    await svc.stop();
    fs.rmSync(reportDir, { recursive: true, force: true });
  }
  if (failed) {
    console.error('fuzz: FAILED (a server error or a failed check above)');
    process.exit(1);
  }
  console.error('fuzz: passed');
}

/**
 * Schemathesis's JUnit report (junit-<timestamp>.xml in the report directory), copied for .ci/run's
 * count. A runtime error of schemathesis itself (<error>, e.g. hypothesis's "AST constructor
 * recursion depth mismatch") means the operation went untested, not that it failed: like this job
 * (toolErrors above), the copy counts it as skipped. Check failures stay <failure>.
 */
function copyJunitReport(reportDir: string, target: string): void {
  const file = fs.readdirSync(reportDir).find((f) => f.startsWith('junit') && f.endsWith('.xml'));
  if (!file) {
    console.error(`fuzz: schemathesis wrote no JUnit report in ${reportDir}`);
    return;
  }
  const xml = fs.readFileSync(path.join(reportDir, file), 'utf8');
  const toolErrorsAsSkipped = xml.replace(
    /<error\b[^>]*>([\s\S]*?)<\/error>/g,
    (_all, text: string) => `<skipped message="schemathesis runtime error, not an API fault">${text}</skipped>`,
  );
  fs.writeFileSync(target, toolErrorsAsSkipped);
}

/** The service's error log lines (level ≥ 50), so a 5xx in CI can be traced to its cause. */
function printServiceErrors(logFile: string): void {
  const lines = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n') : [];
  const errors = lines.filter((l) => /"level":(5\d|60)\b/.test(l));
  console.error(`fuzz: the service logged ${errors.length} error(s); the first ${Math.min(errors.length, 20)}:`);
  for (const line of errors.slice(0, 20)) console.error(line.slice(0, 4000));
}

/** Failed checks, from schemathesis's summary ("… found 2 unique failures"). */
function checkFailures(output: string): number {
  return Number(/found (\d+) unique failures?/.exec(output)?.[1] ?? 0);
}

/**
 * Schemathesis's own runtime errors (its generator, e.g. hypothesis's "AST constructor recursion
 * depth mismatch" seen once in the coverage phase), which make it exit 1 without any API fault;
 * they are reported, and fail the job only when they are all there is to the non-zero exit.
 */
function toolErrors(output: string): number {
  return [...output.matchAll(/🚫\s+(\d+) errors?/g)].reduce((n, m) => n + Number(m[1]), 0);
}

function report(s: {
  schemathesis: string;
  seconds: number;
  requests: number;
  serverErrors: number;
  schemathesisExit: number;
  checkFailures: number;
  toolErrors: number;
  byStatus: Record<string, number>;
  summaryLines: string[];
}): string {
  return [
    '# Fuzzing (`npm run fuzz`)',
    '',
    `Schemathesis (${s.schemathesis}) over \`openapi/openapi.json\`, every tenant-facing operation, against the all-in-one`,
    'service started as a child process (real broker, registry, PGlite, DuckDB), ingest bodies signed by the hook.',
    "Checks: all of schemathesis's defaults (`scripts/fuzz/schemathesis.toml` says the one exception).",
    '',
    `- Run: ${new Date().toISOString()}, ${s.seconds} s, ${os.cpus().length} cores.`,
    `- Requests answered (service's own /metrics): **${s.requests}**; server errors (5xx): **${s.serverErrors}**.`,
    `- Failed checks (schema violations, undocumented statuses, …): **${s.checkFailures}**; schemathesis exit code ${s.schemathesisExit}; its own runtime errors: ${s.toolErrors}.`,
    `- Answers by status: ${Object.entries(s.byStatus)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}.`,
    '',
    "Schemathesis's summary:",
    '',
    '```',
    ...s.summaryLines,
    '```',
    '',
  ].join('\n');
}

await main();
