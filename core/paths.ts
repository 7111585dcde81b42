// The project root, found from this module's location, so data files (schemas, rate cards,
// migrations) resolve the same whether code runs from source (tsx/vitest) or from dist/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && !dir.endsWith(`${path.sep}dist`)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package.json not found above ${start}`);
    dir = parent;
  }
}

export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));

export function fromRoot(...parts: string[]): string {
  return path.join(projectRoot, ...parts);
}
