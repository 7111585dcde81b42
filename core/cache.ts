// The one in-process cache: lru-cache, bounded by entry count (least recently used dropped first),
// entries expiring `ttl` ms after they were set where a ttl is given (decision 0107). What each
// cache holds, and how it is invalidated on write, is said where it is declared.
import { LRUCache } from 'lru-cache';

export { LRUCache };

/**
 * The cached promise for `key`, or `load()`'s, which is cached in its place. A load that fails is
 * dropped (unless something replaced it meanwhile), so the next call reads again.
 */
export function cachedLoad<K extends {}, V>(cache: LRUCache<K, Promise<V>>, key: K, load: () => Promise<V>): Promise<V> {
  const hit = cache.get(key);
  if (hit) return hit;
  const value = load();
  cache.set(key, value);
  value.catch(() => {
    if (cache.peek(key) === value) cache.delete(key);
  });
  return value;
}
