// The processor as its own OS process (node --import tsx processor/main.ts), for tests that kill
// it with SIGKILL or stop it with SIGTERM. It writes the test DuckLake of its LAKE_DIR (test-lake.ts). Output is kept (last 200 lines) for failure messages.
import { spawn, type ChildProcess } from 'node:child_process';
import { fromRoot } from '../../core/paths.js';
import { lakeEnvOf } from './test-lake.js';

export interface ProcessorChild {
  readonly pid: number;
  /** Resolves when the processor logged its first partition assignment. */
  readonly assigned: Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  kill(signal: NodeJS.Signals): void;
}

export function spawnProcessor(env: Record<string, string>): ProcessorChild {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fromRoot('processor', 'main.ts')], {
    cwd: fromRoot(),
    env: { ...process.env, ...env, ...lakeEnvOf(env) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let onAssigned: () => void = () => undefined;
  const assigned = new Promise<void>((resolve) => (onAssigned = resolve));
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      lines.push(line);
      if (lines.length > 200) lines.shift();
      if (line.includes('"partitions assigned"')) onAssigned();
    }
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    pid: child.pid!,
    assigned,
    exited,
    output: () => lines.join('\n'),
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
