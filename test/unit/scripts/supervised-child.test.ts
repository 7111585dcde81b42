// The all-in-one's supervision of its child servers (the Kafka broker, the lake catalog): a real
// child (`sleep`) killed from outside is started again after the backoff, counted on /metrics;
// stop() ends it and nothing is started after.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../core/logger.js';
import { metricsText } from '../../../core/metrics.js';
import { superviseChild, type ChildServer, type SupervisedChild } from '../../../scripts/supervised-child.js';

function startSleep(): Promise<ChildServer> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return Promise.resolve({
    pid: child.pid!,
    exited,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  });
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(value: () => T | null, ms: number): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    const v = value();
    if (v !== null) return v;
  }
  throw new Error('timed out');
}

describe('superviseChild', () => {
  let supervised: SupervisedChild | null = null;
  afterEach(async () => {
    await supervised?.stop();
  });

  it('starts a killed server again after the backoff and counts it; stop() ends it for good', async () => {
    const s = await superviseChild(startSleep, createLogger('silent'), { what: 'a sleeper', metric: 'test_sleeper' }, { firstDelayMs: 50 });
    supervised = s;
    const first = s.pid()!;
    expect(await metricsText()).toMatch(/^marginal_test_sleeper_up 1$/m);

    process.kill(first, 'SIGKILL');
    const second = await until(() => {
      const pid = s.pid();
      return pid !== null && pid !== first ? pid : null;
    }, 5_000);
    expect(s.restarts()).toBe(1);
    expect(await metricsText()).toMatch(/^marginal_test_sleeper_restarts_total 1$/m);

    await s.stop();
    expect(isRunning(second)).toBe(false);
    expect(s.pid()).toBeNull();
    expect(await metricsText()).toMatch(/^marginal_test_sleeper_up 0$/m);
    // Past the backoff: nothing was started again.
    await new Promise((r) => setTimeout(r, 200));
    expect(s.pid()).toBeNull();
    expect(s.restarts()).toBe(1);
  });
});
