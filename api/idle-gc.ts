// One full V8 collection once a burst of requests is over. The api runs with a small young
// generation (--max-semi-space-size=4), so a request's short-lived rows and strings are promoted
// and pile up in the old generation until V8's next major collection, which an idle process never
// reaches: after bench/api's run the heap held 94 MB for 33 MB of live objects
// (bench/results/api-rss.md). Needs `node --expose-gc` (the api's flags); without it, a no-op.
import type { Server } from 'node:http';

export function collectGarbageWhenIdle(server: Server, opts: { idleMs?: number; gc?: () => void } = {}): void {
  const gc = opts.gc ?? (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  let requestsSinceGc = false;
  const timer = setTimeout(() => {
    if (!requestsSinceGc) return;
    requestsSinceGc = false;
    gc();
  }, opts.idleMs ?? 2_000);
  timer.unref();
  // Each request restarts the wait: the collection (tens of ms) runs only after a quiet spell.
  server.on('request', () => {
    requestsSinceGc = true;
    timer.refresh();
  });
  server.once('close', () => clearTimeout(timer));
}
