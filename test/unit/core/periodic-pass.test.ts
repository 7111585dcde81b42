import { describe, expect, it } from 'vitest';
import { PeriodicPass } from '../../../core/periodic-pass.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PeriodicPass', () => {
  it('runs once soon after start, then every interval, never two at once; stop waits for the pass under way', async () => {
    let running = 0;
    let most = 0;
    let passes = 0;
    const pass = new PeriodicPass(
      async () => {
        running++;
        most = Math.max(most, running);
        await sleep(30);
        passes++;
        running--;
      },
      () => {},
      { firstPassAfterMs: 1, intervalMs: 10 },
    );
    pass.start();
    await sleep(100);
    await pass.stop();
    expect(pass.stopped).toBe(true);
    expect(running).toBe(0);
    expect(most).toBe(1);
    expect(passes).toBeGreaterThanOrEqual(2);
    const after = passes;
    await sleep(50);
    expect(passes).toBe(after);
  });

  it('a failing pass goes to onError and the next one still runs', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const pass = new PeriodicPass(
      async () => {
        calls++;
        if (calls === 1) throw new Error('first fails');
      },
      (err) => errors.push(err),
      { firstPassAfterMs: 1, intervalMs: 5 },
    );
    pass.start();
    await sleep(40);
    await pass.stop();
    expect(errors).toHaveLength(1);
    expect(calls).toBeGreaterThanOrEqual(2);
  });
});
