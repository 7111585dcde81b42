// A local S3-compatible server (S3Proxy, pinned in pom.xml, on the filesystem) for the lake on
// object storage in tests and local runs. The jar is fetched once from Maven Central into .cache/
// (later starts work offline). It listens on loopback, checks AWS v2/v4 signatures against one
// key pair, and serves one bucket kept private (a world-readable bucket directory would be served
// to anonymous readers).
// Invariant: a server this process started never outlives it: stop() ends it by its own pid, and a
// watchdog shell holding a pipe from this process ends it when this process dies in any way.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { fromRoot } from '../../core/paths.js';
import { findFreePort, javaBin } from '../kafka/broker.js';

const run = promisify(execFile);
const POM = fromRoot('scripts', 's3', 'pom.xml');

export interface S3ProxyOptions {
  /** Holds the bucket's objects (`<dataDir>/objects/<bucket>`), the properties and the log; reused by a restart. */
  dataDir: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** 0 or omitted: a free port. A restart passes the port it had. */
  port?: number;
  readyTimeoutMs?: number;
}

export interface RunningS3Proxy {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  port: number;
  pid: number;
  logFile: string;
  /** Ends the JVM by its pid (SIGTERM, SIGKILL after 10 s); `kill: true` sends SIGKILL at once. */
  stop(options?: { kill?: boolean }): Promise<void>;
}

function s3proxyVersion(): string {
  const m = /<s3proxy\.version>([^<]+)<\/s3proxy\.version>/.exec(fs.readFileSync(POM, 'utf8'));
  if (!m) throw new Error(`no <s3proxy.version> in ${POM}`);
  return m[1].trim();
}

/** The S3Proxy jar in `.cache/s3proxy-<version>/`, fetched with Maven when its marker is missing. */
async function ensureS3ProxyJar(): Promise<string> {
  const version = s3proxyVersion();
  const pomHash = crypto.createHash('sha256').update(fs.readFileSync(POM)).digest('hex');
  const dir = fromRoot('.cache', `s3proxy-${version}`);
  const jar = path.join(dir, `s3proxy-${version}-jar-with-dependencies.jar`);
  const marker = path.join(dir, '.complete');
  const isComplete = (): boolean => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() === pomHash;
  if (isComplete()) return jar;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const staging = fs.mkdtempSync(`${dir}.fetch-`);
  try {
    await run('mvn', ['-q', '-B', '-f', POM, 'dependency:copy-dependencies', `-DoutputDirectory=${staging}`], {
      timeout: 600_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((e: Error) => {
      throw new Error(`fetching S3Proxy with Maven failed (needs mvn and Maven Central once): ${e.message}`);
    });
    if (!fs.existsSync(path.join(staging, path.basename(jar))))
      throw new Error(`Maven finished but ${staging} holds no ${path.basename(jar)}`);
    fs.writeFileSync(path.join(staging, '.complete'), `${pomHash}\n`);
    if (isComplete()) return jar;
    fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(staging, dir);
    } catch (e) {
      if (!isComplete()) throw e;
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return jar;
}

/** A shell that ends `pid` when the pipe from this process closes (this process died, even by SIGKILL). */
function spawnWatchdog(pid: number): ChildProcess {
  const script = 'read _ignored; kill -TERM "$1" 2>/dev/null; sleep 5; kill -KILL "$1" 2>/dev/null';
  const dog = spawn('/bin/sh', ['-c', script, 's3proxy-watchdog', String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  dog.unref();
  (dog.stdin as unknown as net.Socket | null)?.unref();
  return dog;
}

function exitedAlready(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exitedAlready(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Ready once it answers HTTP at all (an unsigned request gets 403: keys are checked). */
async function waitUntilReady(endpoint: string, jvm: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitedAlready(jvm)) {
      throw new Error(`S3Proxy exited during start (code ${jvm.exitCode}); ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    }
    try {
      const res = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.status !== 403) throw new Error(`S3Proxy answered an unsigned request with ${res.status}, not 403: keys are not checked`);
      return;
    } catch (e) {
      if ((e as Error).message.startsWith('S3Proxy answered')) throw e;
      if (Date.now() > deadline) throw new Error(`S3Proxy at ${endpoint} was not ready within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Starts S3Proxy on 127.0.0.1 serving `bucket` from dataDir; resolves once it answers. */
export async function startS3Proxy(opts: S3ProxyOptions): Promise<RunningS3Proxy> {
  const jar = await ensureS3ProxyJar();
  const port = opts.port || (await findFreePort());
  const endpoint = `http://127.0.0.1:${port}`;
  const objects = path.join(opts.dataDir, 'objects');
  // A bucket is a directory; without "others read" jclouds reports it private, so anonymous
  // requests are refused.
  fs.mkdirSync(path.join(objects, opts.bucket), { recursive: true, mode: 0o700 });
  fs.chmodSync(path.join(objects, opts.bucket), 0o700);
  const propsFile = path.join(opts.dataDir, 's3proxy.properties');
  fs.writeFileSync(
    propsFile,
    [
      '# Written by scripts/s3/s3proxy.ts at every start.',
      `s3proxy.endpoint=${endpoint}`,
      's3proxy.authorization=aws-v2-or-v4',
      `s3proxy.identity=${opts.accessKeyId}`,
      `s3proxy.credential=${opts.secretAccessKey}`,
      'jclouds.provider=filesystem-nio2',
      `jclouds.filesystem.basedir=${objects}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const logFile = path.join(opts.dataDir, 's3proxy.log');
  const out = fs.openSync(logFile, 'a');
  const jvm = spawn(javaBin(), ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-jar', jar, '--properties', propsFile], {
    stdio: ['ignore', out, out],
    detached: true,
  });
  fs.closeSync(out);
  if (jvm.pid === undefined) {
    await new Promise((r) => jvm.once('error', r));
    throw new Error(`could not run ${javaBin()} (is Java 17 installed?)`);
  }
  const pid = jvm.pid;
  jvm.on('error', () => {});
  const watchdog = spawnWatchdog(pid);
  const onExit = (): void => {
    if (!exitedAlready(jvm)) jvm.kill('SIGKILL');
  };
  process.on('exit', onExit);
  jvm.once('exit', () => {
    process.removeListener('exit', onExit);
    watchdog.kill('SIGKILL');
  });

  let stopping: Promise<void> | null = null;
  const stop = (options: { kill?: boolean } = {}): Promise<void> => {
    stopping ??= (async () => {
      if (exitedAlready(jvm)) return;
      process.kill(pid, options.kill ? 'SIGKILL' : 'SIGTERM');
      if (!(await waitForExit(jvm, 10_000))) {
        process.kill(pid, 'SIGKILL');
        await waitForExit(jvm, 5_000);
      }
    })();
    return stopping;
  };
  try {
    await waitUntilReady(endpoint, jvm, logFile, opts.readyTimeoutMs ?? 60_000);
  } catch (e) {
    await stop({ kill: true });
    throw e;
  }
  return { endpoint, port, pid, logFile, stop };
}
