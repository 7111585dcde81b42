// Makes freshly written lake files (and the directory entries naming them) durable before a
// manifest names them. Few paths: fsync each. Many (a flush spread over hundreds of
// organization-days): one syncfs of the lake's file system via coreutils `sync -f`, which costs
// ~10 ms where hundreds of fsyncs cost hundreds; falls back to fsync when that is unavailable.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fsyncPath } from '../../core/lake/manifest.js';

const execFileAsync = promisify(execFile);
const FSYNC_LIMIT = 24;
const PARALLEL = 8;

let syncfsWorks = process.platform === 'linux';

async function fsyncAll(paths: readonly string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < paths.length) await fsyncPath(paths[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, paths.length) }, worker));
}

/** Durably persist `files` and the entries of `dirs` (all on the lake's file system). */
export async function persist(lakeDir: string, files: readonly string[], dirs: readonly string[]): Promise<void> {
  const all = [...files, ...dirs];
  if (all.length === 0) return;
  if (all.length > FSYNC_LIMIT && syncfsWorks) {
    try {
      await execFileAsync('sync', ['-f', lakeDir]);
      return;
    } catch {
      syncfsWorks = false;
    }
  }
  await fsyncAll(all);
}
