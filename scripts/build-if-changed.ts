// `npm start`'s first step: builds dist/ (tsoa routes + tsc, `npm run build`) only when its inputs
// changed since the last build. The inputs are the build's source folders (generated routes
// excepted: the build writes them), the tsconfig files and package-lock.json; their paths and
// contents are hashed and compared with the stamp the last successful build left in dist/. Content,
// not mtimes, so a checkout that touches files without changing them does not rebuild.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../core/paths.js';

/** What the build reads (tsconfig.build.json's folders, the console's sources and the files that configure them). */
export const BUILD_INPUT_DIRS = [
  'core',
  'ingest',
  'otlp',
  'processor',
  'api',
  'pricing',
  'revenue',
  'people',
  'scripts',
  'schemas',
  'console',
];
export const BUILD_INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
const STAMP = path.join('dist', '.build-inputs.sha256');

function listFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'generated' && e.name !== 'node_modules') out.push(...listFiles(root, rel));
    } else if (e.isFile()) out.push(rel);
  }
  return out;
}

/** One hash over the build inputs under `root`: every path and its content, in a fixed order. */
export function buildInputsHash(root: string): string {
  const files = [
    ...BUILD_INPUT_DIRS.flatMap((d) => listFiles(root, d)),
    ...BUILD_INPUT_FILES.filter((f) => fs.existsSync(path.join(root, f))),
  ].sort();
  const hash = crypto.createHash('sha256');
  for (const f of files) {
    hash
      .update(f.split(path.sep).join('/'))
      .update('\0')
      .update(fs.readFileSync(path.join(root, f)))
      .update('\0');
  }
  return hash.digest('hex');
}

/** True when dist/ was built from exactly these inputs (and holds the start program). */
export function isBuildCurrent(root: string, hash = buildInputsHash(root)): boolean {
  try {
    return fs.existsSync(path.join(root, 'dist', 'scripts', 'start.js')) && fs.readFileSync(path.join(root, STAMP), 'utf8').trim() === hash;
  } catch {
    return false;
  }
}

export function writeBuildStamp(root: string, hash: string): void {
  fs.writeFileSync(path.join(root, STAMP), `${hash}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const hash = buildInputsHash(projectRoot);
  if (isBuildCurrent(projectRoot, hash)) {
    console.log('dist/ is up to date with the sources; not rebuilding');
  } else {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const built = spawnSync(npm, ['run', 'build'], { cwd: projectRoot, stdio: 'inherit' });
    if (built.status !== 0) process.exit(built.status ?? 1);
    writeBuildStamp(projectRoot, hash);
  }
}
