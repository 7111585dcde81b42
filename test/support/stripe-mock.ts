// stripe-mock (Stripe's official mock of its API, a Go program) for tests and benchmarks: built
// once with `go install` into .cache/go-bin (pinned version), started on free ports on 127.0.0.1
// and stopped by the caller. It answers every endpoint with fixed fixtures, so it proves the
// client and sync plumbing; mapping rules are tested with hand-made objects.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fromRoot } from '../../core/paths.js';

const STRIPE_MOCK_VERSION = 'v0.203.0';
const BIN_DIR = fromRoot('.cache/go-bin');
const BINARY = path.join(BIN_DIR, 'stripe-mock');

export interface StripeMock {
  host: string;
  port: number;
  protocol: 'http';
  /** http://127.0.0.1:<port> */
  url: string;
  stop(): Promise<void>;
}

/** Path of the stripe-mock binary, building it with Go the first time. */
function ensureStripeMock(): string {
  if (fs.existsSync(BINARY)) return BINARY;
  const goCache = fromRoot('.cache/go');
  execFileSync('go', ['install', `github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION}`], {
    stdio: 'inherit',
    timeout: 600_000,
    env: {
      ...process.env,
      GOBIN: BIN_DIR,
      GOPATH: goCache,
      GOMODCACHE: path.join(goCache, 'pkg/mod'),
      GOCACHE: path.join(goCache, 'build'),
      GOFLAGS: '-modcacherw',
    },
  });
  if (!fs.existsSync(BINARY)) throw new Error(`go install did not produce ${BINARY}`);
  return BINARY;
}

/** Starts stripe-mock on free loopback ports (HTTP and HTTPS both bound, only HTTP used). */
export async function startStripeMock(): Promise<StripeMock> {
  const binary = ensureStripeMock();
  const child: ChildProcess = spawn(binary, ['-http-addr', '127.0.0.1:0', '-https-addr', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stripe-mock did not start in 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Listening for HTTP at address: 127\.0\.0\.1:(\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`stripe-mock exited with ${code}:\n${output}`));
    });
  });
  return {
    host: '127.0.0.1',
    port,
    protocol: 'http',
    url: `http://127.0.0.1:${port}`,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}
