import { describe, expect, it } from 'vitest';
import { cachedLoad, LRUCache } from '../../../core/cache.js';

/** A cache on a clock the test moves (lru-cache reads it on every staleness check). */
function onClock(max: number, ttl: number) {
  const clock = { now: 1_000 };
  const cache = new LRUCache<string, Promise<string>>({ max, ttl, ttlResolution: 0, perf: { now: () => clock.now } });
  return { clock, cache };
}

describe('cachedLoad', () => {
  it('answers the cached promise within the ttl and loads again after it', async () => {
    const { clock, cache } = onClock(10, 1_000);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cachedLoad(cache, 'org', load)).toBe('v1');
    clock.now += 1_000;
    expect(await cachedLoad(cache, 'org', load)).toBe('v1');
    clock.now += 1;
    expect(await cachedLoad(cache, 'org', load)).toBe('v2');
    expect(loads).toBe(2);
  });

  it('shares one load between concurrent callers', async () => {
    const { cache } = onClock(10, 1_000);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await Promise.all([cachedLoad(cache, 'org', load), cachedLoad(cache, 'org', load)])).toEqual(['v1', 'v1']);
    expect(loads).toBe(1);
  });

  it('drops a failed load, so the next call reads again', async () => {
    const { cache } = onClock(10, 1_000);
    await expect(cachedLoad(cache, 'org', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(cache.has('org')).toBe(false);
    expect(await cachedLoad(cache, 'org', async () => 'up')).toBe('up');
  });

  it('keeps at most max entries, dropping the least recently used', async () => {
    const { cache } = onClock(2, 1_000);
    await cachedLoad(cache, 'a', async () => 'a');
    await cachedLoad(cache, 'b', async () => 'b');
    await cachedLoad(cache, 'a', async () => 'a again'); // a is now the most recent
    await cachedLoad(cache, 'c', async () => 'c');
    expect([...cache.keys()].sort()).toEqual(['a', 'c']);
  });
});
