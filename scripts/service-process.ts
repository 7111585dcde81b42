// A Marginal process started as a child: the all-in-one (`scripts/start`) or one distributed
// service (`ingest/main`, `processor/main`, `api/main`). Built, it runs `node dist/<entry>.js`
// with the flags `npm start` uses; otherwise the source through tsx. Its stdout and stderr go to
// a log file. Used by the distributed launcher (scripts/distributed.ts), bench/recovery and the
// availability tests, which kill these processes on purpose.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fromRoot } from '../core/paths.js';

export type ServiceEntry = 'scripts/start' | 'ingest/main' | 'processor/main' | 'api/main';

export interface ServiceProcessOptions {
  name: string;
  entry: ServiceEntry;
  /** Added to this process's environment (PORT, DATA_DIR, KAFKA_BROKERS, …). */
  env: Record<string, string>;
  logFile: string;
  /** Run dist/<entry>.js (default: when it exists) or the source through tsx. */
  built?: boolean;
  /** Another checkout to run (benchmarks compare with an older build); default this one. */
  root?: string;
  /** More node flags, after the usual ones (e.g. --cpu-prof, which NODE_OPTIONS refuses). */
  nodeFlags?: string[];
}

export interface ServiceProcess {
  name: string;
  pid: number;
  logFile: string;
  child: ChildProcess;
  /** Settles when the process exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal (SIGKILL for a crash). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The V8 flags each entry runs with here: the all-in-one (`npm start`) and the other services a
 * large young generation (ingest's per-request garbage is collected cheaply,
 * docs/decisions/0026-node-semi-space-and-processor-flush-delay.md); the api a small one, as
 * docs/configuration.md, the Dockerfile and docs/distributed.md run it: its garbage is short-lived,
 * and larger semi-spaces only kept more of it resident (bench/results/api-rss.md); and gc() for
 * its collection once requests pause (api/idle-gc.ts).
 */
export function serviceNodeFlags(entry: ServiceEntry): string[] {
  return entry === 'api/main' ? ['--max-semi-space-size=4', '--expose-gc'] : ['--max-semi-space-size=32'];
}

export function isBuilt(entry: ServiceEntry): boolean {
  return fs.existsSync(fromRoot('dist', `${entry}.js`));
}

export function spawnService(opts: ServiceProcessOptions): ServiceProcess {
  const root = opts.root ?? fromRoot();
  const built = opts.built ?? fs.existsSync(path.join(root, 'dist', `${opts.entry}.js`));
  const flags = [...serviceNodeFlags(opts.entry), ...(opts.nodeFlags ?? [])];
  const args = built
    ? [...flags, path.join(root, 'dist', `${opts.entry}.js`)]
    : [...flags, '--import', 'tsx', path.join(root, `${opts.entry}.ts`)];
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = fs.openSync(opts.logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`could not start ${opts.name}`);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  return {
    name: opts.name,
    pid: child.pid,
    logFile: opts.logFile,
    child,
    exited,
    kill(signal) {
      if (isRunning()) child.kill(signal);
    },
    async stop(graceMs = 30_000) {
      if (!isRunning()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Resolves once `url`/healthz answers 200; rejects when the process exits first or after
 * `timeoutMs` (with the log's last lines).
 */
export async function waitUntilServing(service: ServiceProcess, url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void service.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${service.name} exited before serving; ${logTail(service.logFile)}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${service.name} did not serve ${url} within ${timeoutMs} ms; ${logTail(service.logFile)}`);
}

export function logTail(file: string, lines = 30): string {
  try {
    return `last lines of ${file}:\n${fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')}`;
  } catch {
    return `no log at ${file}`;
  }
}
