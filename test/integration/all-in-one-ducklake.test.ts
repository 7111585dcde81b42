// `npm start` with LAKE_FORMAT=ducklake and no catalog URL (docs/decisions/0106, 0148): the
// all-in-one starts the lake catalog's PostgreSQL itself under $DATA_DIR/lake-catalog (loopback
// only, a password kept 0600), the processor commits to it and the api reads it. The whole service
// SIGKILLed with events in flight and started again on the same data counts every event once; the
// catalog's server killed alone is started again by its supervisor; an outside DuckDB reads it.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fromRoot } from '../../core/paths.js';
import { findFreePort } from '../../scripts/kafka/broker.js';
import { spawnService, waitUntilServing, type ServiceProcess } from '../../scripts/service-process.js';
import { eventually } from '../support/eventually.js';
import { http } from '../support/http.js';
import { signedPost } from '../support/ingest-harness.js';
import { llmEvent } from '../support/pipeline.js';

/** The postmaster's pid from its postmaster.pid, or null when there is none. */
function postmasterPid(dataDir: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'lake-catalog', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pid of the watchdog shell that stops `postmaster` when the service dies. */
function watchdogOf(postmaster: number): number {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes('lake-catalog-watchdog') && args.includes(String(postmaster))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no watchdog for ${postmaster}`);
}

describe('the all-in-one on DuckLake with its own catalog', () => {
  let tmp: string;
  let dataDir: string;
  const token = `mk_admin_${crypto.randomBytes(8).toString('hex')}`;
  const masterKey = crypto.randomBytes(32).toString('hex');
  let service: ServiceProcess | null = null;
  /** Every postmaster seen, so none outlives the file. */
  const postmasters = new Set<number>();

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-aio-ducklake-'));
    dataDir = path.join(tmp, 'data');
  });
  afterAll(async () => {
    await service?.stop();
    for (const pid of postmasters) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  async function start(port: number, name: string): Promise<string> {
    const url = `http://127.0.0.1:${port}`;
    service = spawnService({
      name,
      entry: 'scripts/start',
      built: false,
      logFile: path.join(tmp, `${name}.log`),
      env: {
        PORT: String(port),
        DATA_DIR: dataDir,
        KAFKA_BROKERS: inject('kafkaBrokers'),
        SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
        MARGINAL_ADMIN_TOKEN: token,
        MARGINAL_MASTER_KEY: masterKey,
        LAKE_FORMAT: 'ducklake',
        // Whatever the test run's environment holds: no catalog given.
        LAKE_CATALOG_URL: '',
        DATABASE_URL: '',
        PROCESSOR_FLUSH_MAX_DELAY_MS: '200',
        LOG_LEVEL: 'info',
      },
    });
    await waitUntilServing(service, url, 120_000);
    const pid = postmasterPid(dataDir);
    expect(pid).not.toBeNull();
    postmasters.add(pid!);
    return url;
  }

  it('counts every event once across a SIGKILL of the whole service and a death of the catalog', async () => {
    const port = await findFreePort();
    let url = await start(port, 'first');

    // The catalog: initialised, its password kept 0600, listening on loopback only.
    const catalogDir = path.join(dataDir, 'lake-catalog');
    expect(fs.statSync(path.join(catalogDir, 'password')).mode & 0o777).toBe(0o600);
    const firstPostmaster = postmasterPid(dataDir)!;
    const cmdline = fs.readFileSync(`/proc/${firstPostmaster}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain('listen_addresses=127.0.0.1');
    expect(cmdline).toContain('unix_socket_directories=');
    if (process.getuid?.() === 0) expect(fs.statSync(path.join(catalogDir, 'data')).uid).not.toBe(0);

    const admin = (method: string, p: string, json?: unknown) => http(url, method, `/v1/admin${p}`, { token, json });
    const org = (await admin('POST', '/organizations', { name: 'aio-ducklake' })).body.organization_id;
    await admin('POST', `/organizations/${org}/credits`, { amount: 100 });
    const writer = (await admin('POST', `/organizations/${org}/api-keys`, { scopes: ['usage:write'] })).body;
    const reader = (await admin('POST', `/organizations/${org}/api-keys`, { scopes: ['costs:read'] })).body;
    const send = async (keys: string[]) => {
      const at = new Date(Date.now() - 60_000).toISOString();
      const res = await signedPost(url, { apiKey: writer.api_key, signingSecret: writer.signing_secret }, '/v1/usage-events/batch', {
        events: keys.map((k) => llmEvent(k, { input_tokens: 1000, output_tokens: 100, timestamp: at })),
      });
      // The batch answers 200 with one result per event; each accepted one is a 202's promise.
      expect(res.status).toBe(200);
      expect(res.body.results.map((r: { status?: string; error?: unknown }) => r.status ?? JSON.stringify(r))).toEqual(
        keys.map(() => 'accepted'),
      );
    };
    /** The api's last-7-days summary once it shows `events` completed events and none pending. */
    const summaryWith = (events: number) =>
      eventually(
        async () => {
          const res = await http(url, 'GET', '/v1/cost-data/summary?time_window=last-7-days', { token: reader.api_key });
          return res.status === 200 && res.body.event_count === events && res.body.status_counts.pending === 0 ? res.body : undefined;
        },
        60_000,
        `${events} events in the lake`,
      );

    // gpt-4o since 2024-10-02: $2.5 per million input tokens, $10 per million output tokens, so one
    // event of 1,000 in and 100 out costs 1000 × 2.5/1e6 + 100 × 10/1e6 = 0.0025 + 0.001 = 0.0035.
    await send(Array.from({ length: 10 }, (_, i) => `a-${i}`));
    expect((await summaryWith(10)).current_period_cost).toBe('0.035'); // 10 × 0.0035

    // Accepted, then the whole service is killed: some of these may be flushed, some not. Its
    // watchdog goes first, as in a kill of everything, so the catalog's server is left running.
    await send(Array.from({ length: 5 }, (_, i) => `b-${i}`));
    process.kill(watchdogOf(firstPostmaster), 'SIGKILL');
    service!.kill('SIGKILL');
    await service!.exited;
    expect(isRunning(firstPostmaster)).toBe(true);

    url = await start(port, 'second');
    // The new start stopped the predecessor's postmaster before its own ran on the same data.
    expect(isRunning(firstPostmaster)).toBe(false);
    expect(fs.readFileSync(path.join(tmp, 'second.log'), 'utf8')).toContain('of a previous run is still running; stopping it');
    expect((await summaryWith(15)).current_period_cost).toBe('0.0525'); // 15 × 0.0035

    // The catalog's server dies alone: its supervisor starts it again, the processor retries its
    // commit, and the next events land once.
    const secondPostmaster = postmasterPid(dataDir)!;
    process.kill(secondPostmaster, 'SIGKILL');
    const thirdPostmaster = await eventually(
      () => {
        const pid = postmasterPid(dataDir);
        return pid !== null && pid !== secondPostmaster && isRunning(pid) ? pid : undefined;
      },
      60_000,
      'the catalog started again',
    );
    postmasters.add(thirdPostmaster);
    await send(Array.from({ length: 3 }, (_, i) => `c-${i}`));
    expect((await summaryWith(18)).current_period_cost).toBe('0.063'); // 18 × 0.0035

    // An outside DuckDB (no Marginal code) given `lake connect`'s statements reads the same
    // totals; the CLI finds the running service's catalog by itself (its port from postmaster.pid).
    const cliEnv = { ...process.env, DATA_DIR: dataDir, LAKE_FORMAT: 'ducklake', LAKE_CATALOG_URL: '', DATABASE_URL: '' };
    const run = (args: string[]) => promisify(execFile)(process.execPath, args, { cwd: fromRoot(), env: cliEnv });
    const { stdout: statements } = await run(['--import', 'tsx', fromRoot('scripts', 'cli.ts'), 'lake', 'connect']);
    const outside = `
      import { DuckDBInstance } from '@duckdb/node-api';
      const conn = await (await DuckDBInstance.create(':memory:')).connect();
      for (const s of JSON.parse(process.argv[1])) await conn.run(s);
      const r = await conn.runAndReadAll("SELECT CAST(count(*) AS VARCHAR) AS n, CAST(count(DISTINCT event_id) AS VARCHAR) AS ids, CAST(sum(total_cost) AS VARCHAR) AS cost FROM events WHERE organization_id = '${org}'");
      console.log(JSON.stringify(r.getRowObjectsJson()));`;
    const list = statements.split(';\n').filter((line) => line.trim());
    const [totals] = JSON.parse((await run(['--input-type=module', '-e', outside, JSON.stringify(list)])).stdout);
    expect({ n: totals.n, ids: totals.ids, cost: new Big(totals.cost).toFixed() }).toEqual({ n: '18', ids: '18', cost: '0.063' });

    // A clean stop takes the catalog with it.
    await service!.stop();
    service = null;
    expect(isRunning(thirdPostmaster)).toBe(false);
    // With the service stopped there is no catalog to read: the CLI says so, and starts none.
    const stopped = await run(['--import', 'tsx', fromRoot('scripts', 'cli.ts'), 'lake', 'connect']).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain("the all-in-one's lake catalog is not running");
    expect(postmasterPid(dataDir)).toBeNull();
    // `lake migrate` starts the catalog for its own run: it opens the lake (so the catalog
    // answered), finds no manifest lake to move here, and stops the catalog again.
    const migrated = await run(['--import', 'tsx', fromRoot('scripts', 'cli.ts'), 'lake', 'migrate']).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(migrated.code).toBe(1);
    expect(migrated.stderr).toContain('no manifest lake in');
    expect(postmasterPid(dataDir)).toBeNull();
  }, 300_000);
});
