// Marginal as bench/compare measures it: its HTTP answers from an api process of its own (a child
// process, so a cold measurement is the first request of a freshly started process), timed end to
// end from this process, JSON parsed.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { fromRoot } from '../../core/paths.js';
import { stopwatch } from './engine.js';

export interface MarginalApi {
  get(path: string, query: Record<string, string>): Promise<{ body: unknown; ms: number }>;
  /** Milliseconds from spawn to listening. */
  startupMs: number;
  stop(): Promise<void>;
}

export async function startMarginalApi(dataDir: string, days: number, apiKey: string): Promise<MarginalApi> {
  const elapsed = stopwatch();
  const child: ChildProcess = spawn(process.execPath, ['--max-semi-space-size=32', '--import', 'tsx', fromRoot('bench', 'compare', 'marginal-api.ts'), dataDir, String(days)], {
    cwd: fromRoot(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const first = await readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next();
  if (first.done) throw new Error('the api process exited before listening');
  const { url } = JSON.parse(first.value) as { url: string };
  const startupMs = elapsed();
  return {
    startupMs,
    async get(path, query) {
      const qs = new URLSearchParams(query).toString();
      const t = stopwatch();
      const res = await fetch(`${url}/v1${path}${qs ? `?${qs}` : ''}`, { headers: { authorization: `Bearer ${apiKey}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${path}?${qs}: HTTP ${res.status} ${text.slice(0, 300)}`);
      const body = JSON.parse(text);
      return { body, ms: t() };
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
