// The SDK as a user installs it: `npm pack` of this folder (its `prepare` builds dist/), the
// tarball installed into a scratch project outside the repository, and a child `node` there that
// imports @marginal/sdk by name, sends a signed event to the running service and reads it back.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameAmount } from '../support/expected-cost.js';
import { createTenant } from '../support/tenant.js';

const run = promisify(execFile);
const SDK_DIR = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../support/packed-client.mjs', import.meta.url));

// The child npm must not inherit `npm test`'s npm_* variables: npm_config_local_prefix would
// point it back at this folder instead of the scratch project.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && k !== 'INIT_CWD'));

/** Runs the npm that runs this test (npm_execpath under `npm test`), else the one on PATH. */
function npm(args: string[], cwd: string) {
  const cli = process.env.npm_execpath;
  const [file, argv] = cli?.endsWith('.js') ? [process.execPath, [cli, ...args]] : ['npm', args];
  return run(file, argv, { cwd, env: cleanEnv, timeout: 240_000, maxBuffer: 16 << 20 });
}

/** Every file under `dir`, relative to it, with forward slashes. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

let scratch: string;
let project: string;
let installed: string;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-sdk-pack-'));
  const packDir = path.join(scratch, 'pack');
  project = path.join(scratch, 'project');
  fs.mkdirSync(packDir);
  fs.mkdirSync(project);
  // No dist/ left from an earlier build: the package must build itself when packed.
  fs.rmSync(path.join(SDK_DIR, 'dist'), { recursive: true, force: true });
  await npm(['pack', '--pack-destination', packDir], SDK_DIR);
  const [tarball] = fs.readdirSync(packDir).filter((f) => f.endsWith('.tgz'));
  expect(tarball, 'npm pack wrote a tarball').toBeDefined();
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(packDir, tarball!)], project);
  installed = path.join(project, 'node_modules', '@marginal', 'sdk');
}, 300_000);

afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('the packed SDK', () => {
  it('holds the built modules and their types for every source file, and nothing else', () => {
    const sources = filesUnder(path.join(SDK_DIR, 'src')).filter((f) => f.endsWith('.ts'));
    const built = sources.flatMap((f) => [`dist/${f.replace(/\.ts$/, '.js')}`, `dist/${f.replace(/\.ts$/, '.d.ts')}`]);
    expect(sources).toContain('index.ts');
    expect(filesUnder(installed)).toEqual([...built, 'README.md', 'package.json'].sort());
  });

  it('installed outside the repository, sends a signed event and reads back its cost', async () => {
    // Rates in USD per million tokens.
    const card = {
      model_slug: 'pack-model',
      input_cost_per_million: '2.5',
      output_cost_per_million: '10',
      cache_read_cost_per_million: '0.3',
    };
    const tenant = await createTenant({ credits: 10, rateCards: [card] });
    const child = path.join(project, 'send-and-read.mjs');
    fs.copyFileSync(CHILD, child);
    const { stdout } = await run(process.execPath, [child], {
      cwd: project,
      env: {
        ...cleanEnv,
        MARGINAL_BASE_URL: tenant.url,
        WRITE_KEY: tenant.apiKey,
        SIGNING_SECRET: tenant.signingSecret,
        READ_KEY: tenant.readKey,
      },
      timeout: 120_000,
    });
    const { resolved, ingest, event } = JSON.parse(stdout.trim().split('\n').at(-1)!);

    expect(fileURLToPath(resolved)).toBe(path.join(fs.realpathSync(installed), 'dist', 'index.js'));
    expect(ingest).toMatchObject({ status: 'accepted', event_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(event).toMatchObject({ id: ingest.event_id, status: 'completed', model: 'pack-model', user_id: 'packed' });
    // 1,200 input × 2.5 + 300 output × 10 + 4,000 cache reads × 0.3, per million:
    // 0.003 + 0.003 + 0.0012 = 0.0072 USD.
    expect(sameAmount(event.cost.input_cost, new Big('0.003'))).toBe(true);
    expect(sameAmount(event.cost.output_cost, new Big('0.003'))).toBe(true);
    expect(sameAmount(event.cost.cache_read_cost, new Big('0.0012'))).toBe(true);
    expect(sameAmount(event.cost.total_cost, new Big('0.0072'))).toBe(true);
  });
});
