// The one way this project starts a worker thread (the PGlite control plane, the all-in-one
// processor): a module beside the caller. Built, that is its .js in dist/; from source (tsx,
// vitest) it is the .ts file, loaded through tsx registered inside the worker, because on Node 20
// a loader given in a Worker's execArgv does not apply to it (tsx's `--import` hooks only the
// main thread). Starting from source costs the worker ~0.3 s to load tsx; built, nothing.
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Starts `./<name>` relative to `callerUrl` (pass `import.meta.url`) as a worker thread. */
export function startModuleWorker(callerUrl: string, name: string, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(source, { ...options, eval: true });
}
