// A local PostgreSQL cluster from the machine's server binaries: initdb into a directory, start on
// a free 127.0.0.1 port with its unix socket beside the data, create one database. For the test
// run (throwaway: fsync off) and the distributed launcher (durable). PostgreSQL refuses to run as
// root, so as root the cluster belongs to (and runs as) the `postgres` OS user.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface LocalPostgres {
  /** Superuser URL of the created database. */
  url: string;
  /** The server binaries' folder. */
  binDir: string;
  stop(): Promise<void>;
}

export interface LocalPostgresOptions {
  /** Holds data/, sock/ and postgres.log; a cluster already there is started again, not re-created. */
  dir: string;
  /** Database created on the first start. */
  database: string;
  /** Throwaway (tests): fsync and full-page writes off. Default false. */
  throwaway?: boolean;
  /** Folder of initdb/pg_ctl/postgres; default: found on PATH and in the usual places. */
  binDir?: string;
  /** More server settings (`-c name=value`), after the defaults (e.g. a benchmark's shared_buffers). */
  settings?: string[];
}

const SUPERUSER = 'postgres';

/** Directory holding initdb, pg_ctl and postgres: PATH first, then the usual install places. */
function findPostgresBinDir(): string | null {
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

/** The uid and gid of an OS user from /etc/passwd, or null. */
export function osUser(name: string): { uid: number; gid: number } | null {
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

/** Starts the cluster (initdb on first use); throws with the reason when it cannot. */
export async function startLocalPostgres(opts: LocalPostgresOptions): Promise<LocalPostgres> {
  const bin = opts.binDir ?? findPostgresBinDir();
  if (!bin) throw new Error('initdb/pg_ctl/postgres not found (install PostgreSQL or give its bin folder)');
  const owner = runAsClusterOwner();
  if (typeof owner === 'string') throw new Error(owner);

  const base = path.resolve(opts.dir);
  const dataDir = path.join(base, 'data');
  const sockDir = path.join(base, 'sock');
  const logFile = path.join(base, 'postgres.log');
  fs.mkdirSync(sockDir, { recursive: true });
  if (owner.uid !== null) {
    // The cluster owner must reach its directory through the (root-owned, e.g. 0700 temp) parent.
    const parent = path.dirname(base);
    fs.chmodSync(parent, fs.statSync(parent).mode | 0o011);
    for (const p of [base, sockDir]) fs.chownSync(p, owner.uid, owner.gid!);
  }

  const exec = async (argv: string[]) => {
    const [cmd, args] = owner.wrap(argv);
    return run(cmd, args, { timeout: 120_000, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
  };
  const fresh = !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh) {
    await exec([
      path.join(bin, 'initdb'),
      '-D',
      dataDir,
      '-U',
      SUPERUSER,
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-locale',
      ...(opts.throwaway ? ['--no-sync'] : []),
    ]);
  }

  const settings = [
    '-h 127.0.0.1',
    `-k ${sockDir}`,
    '-c shared_buffers=32MB',
    '-c max_connections=200',
    // Durability is irrelevant for a throwaway cluster; speed is not.
    ...(opts.throwaway ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
    ...(opts.settings ?? []).map((s) => `-c ${s}`),
  ];
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await exec([
        path.join(bin, 'pg_ctl'),
        '-D',
        dataDir,
        '-l',
        logFile,
        '-w',
        '-t',
        '60',
        '-o',
        `-p ${port} ${settings.join(' ')}`,
        'start',
      ]);
      break;
    } catch (e) {
      // The port may have been taken between probing and binding; try another.
      if (attempt === 2) {
        const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
        throw new Error(`pg_ctl start failed: ${(e as Error).message}\n${log}`);
      }
    }
  }

  const pgCtlStop = (mode: 'fast' | 'immediate') => [path.join(bin, 'pg_ctl'), '-D', dataDir, 'stop', '-m', mode, '-w'];
  // If this process dies without stopping it, do not leave a postmaster behind.
  const onExit = () => {
    try {
      const [cmd, args] = owner.wrap(pgCtlStop('immediate'));
      execFileSync(cmd, args, { stdio: 'ignore', timeout: 10_000 });
    } catch {
      /* already stopped */
    }
  };
  process.once('exit', onExit);

  if (fresh) {
    const client = new pg.Client({ connectionString: `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres` });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${opts.database}`);
    } finally {
      await client.end();
    }
  }

  return {
    url: `postgres://${SUPERUSER}@127.0.0.1:${port}/${opts.database}`,
    binDir: bin,
    async stop() {
      process.removeListener('exit', onExit);
      await exec(pgCtlStop('fast'));
    },
  };
}
