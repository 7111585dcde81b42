// A throwaway PostgreSQL cluster for one test run: initdb into the run's temp dir, start on a free
// 127.0.0.1 port with its unix socket in the same dir, create one database. PostgreSQL refuses to
// run as root, so as root the cluster belongs to (and runs as) the `postgres` OS user.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
const DATABASE = 'marginal_test';

/** Directory holding initdb, pg_ctl and postgres: PATH first, then the usual install places. */
function findBinDir(): string | null {
  const candidates = [
    ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
    '/usr/local/bin',
    '/usr/local/pgsql/bin',
    ...listVersionDirs('/usr/lib/postgresql'),
    ...rhelDirs(),
  ];
  for (const dir of candidates) {
    if (['initdb', 'pg_ctl', 'postgres'].every((b) => isExecutable(path.join(dir, b)))) return dir;
  }
  return null;
}

/** /usr/lib/postgresql/<version>/bin, newest version first. */
function listVersionDirs(root: string): string[] {
  try {
    return fs
      .readdirSync(root)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a))
      .map((v) => path.join(root, v, 'bin'));
  } catch {
    return [];
  }
}

/** RHEL-style /usr/pgsql-<version>/bin, newest first. */
function rhelDirs(): string[] {
  try {
    return fs
      .readdirSync('/usr')
      .filter((d) => /^pgsql-\d+$/.test(d))
      .sort((a, b) => Number(b.slice(6)) - Number(a.slice(6)))
      .map((d) => path.join('/usr', d, 'bin'));
  } catch {
    return [];
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function findOnPath(name: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/sbin', '/usr/bin', '/bin'];
  for (const d of dirs) if (d && isExecutable(path.join(d, name))) return path.join(d, name);
  return null;
}

interface RunAs {
  /** Prefix that makes argv run as the cluster owner; empty when we already are a normal user. */
  wrap(argv: string[]): [string, string[]];
  uid: number | null;
  gid: number | null;
}

function osUser(name: string): { uid: number; gid: number } | null {
  try {
    const line = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    if (!line) return null;
    const f = line.split(':');
    return { uid: Number(f[2]), gid: Number(f[3]) };
  } catch {
    return null;
  }
}

function runAsClusterOwner(): RunAs | string {
  if (process.getuid?.() !== 0) return { wrap: (argv) => [argv[0]!, argv.slice(1)], uid: null, gid: null };
  const user = osUser('postgres');
  if (!user) return 'running as root and no `postgres` OS user exists to own the cluster';
  const runuser = findOnPath('runuser');
  if (runuser) return { wrap: (argv) => [runuser, ['-u', 'postgres', '--', ...argv]], ...user };
  const su = findOnPath('su');
  if (su) {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    return { wrap: (argv) => [su, ['postgres', '-s', '/bin/sh', '-c', argv.map(quote).join(' ')]], ...user };
  }
  return 'running as root and neither runuser nor su is available';
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a cluster under tmpDir; null (with a warning) when PostgreSQL is not installed. */
export async function startTestPostgres(tmpDir: string): Promise<TestPostgres | null> {
  const bin = findBinDir();
  if (!bin) {
    console.warn('[test postgres] initdb/pg_ctl/postgres not found: PostgreSQL tests will be skipped');
    return null;
  }
  const owner = runAsClusterOwner();
  if (typeof owner === 'string') {
    console.warn(`[test postgres] ${owner}: PostgreSQL tests will be skipped`);
    return null;
  }

  const base = path.join(tmpDir, 'postgres');
  const dataDir = path.join(base, 'data');
  const sockDir = path.join(base, 'sock');
  const logFile = path.join(base, 'postgres.log');
  fs.mkdirSync(sockDir, { recursive: true });
  if (owner.uid !== null) {
    // The cluster owner must reach its directory through the (root-owned, 0700) run dir.
    fs.chmodSync(tmpDir, 0o711);
    for (const p of [base, sockDir]) fs.chownSync(p, owner.uid, owner.gid!);
  }

  const exec = async (argv: string[]) => {
    const [cmd, args] = owner.wrap(argv);
    return run(cmd, args, { timeout: 120_000, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
  };
  try {
    await exec([path.join(bin, 'initdb'), '-D', dataDir, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
  } catch (e) {
    console.warn(`[test postgres] initdb failed, PostgreSQL tests will be skipped: ${(e as Error).message}`);
    return null;
  }

  // Durability is irrelevant for a throwaway cluster; speed is not.
  const settings = [
    '-h 127.0.0.1',
    `-k ${sockDir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c shared_buffers=32MB',
    '-c max_connections=200',
  ];
  let port = 0;
  let started = false;
  for (let attempt = 0; attempt < 3 && !started; attempt++) {
    port = await freePort();
    try {
      await exec([path.join(bin, 'pg_ctl'), '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', `-p ${port} ${settings.join(' ')}`, 'start']);
      started = true;
    } catch (e) {
      // The port may have been taken between probing and binding; try another.
      if (attempt === 2) {
        const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
        console.warn(`[test postgres] pg_ctl start failed, PostgreSQL tests will be skipped: ${(e as Error).message}\n${log}`);
        return null;
      }
    }
  }

  const pgCtlStop = (mode: 'fast' | 'immediate') => [path.join(bin, 'pg_ctl'), '-D', dataDir, 'stop', '-m', mode, '-w'];
  // If the test process dies without teardown, do not leave a postmaster behind.
  const onExit = () => {
    try {
      const [cmd, args] = owner.wrap(pgCtlStop('immediate'));
      execFileSync(cmd, args, { stdio: 'ignore', timeout: 10_000 });
    } catch {
      /* already stopped */
    }
  };
  process.once('exit', onExit);

  const adminUrl = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }

  return {
    url: `postgres://${SUPERUSER}@127.0.0.1:${port}/${DATABASE}`,
    async stop() {
      process.removeListener('exit', onExit);
      await exec(pgCtlStop('fast'));
    },
  };
}
