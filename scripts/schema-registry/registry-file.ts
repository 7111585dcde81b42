// Persistence of the dev schema registry: one JSON file, replaced atomically (write a temp file,
// fsync, rename) so a crash leaves either the old or the new state, never half of one.
import fs from 'node:fs';
import path from 'node:path';
import { isCompatibilityLevel } from './compatibility.js';
import { emptyRegistryState, type RegistryState } from './registry.js';

/** Reads the state file; a missing file is an empty registry, a damaged one an error. */
export function readRegistryState(file: string): RegistryState {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyRegistryState();
    throw e;
  }
  const state = JSON.parse(text) as RegistryState;
  const valid =
    state?.format === 1 &&
    Number.isInteger(state.nextId) &&
    isCompatibilityLevel(state.compatibility) &&
    Array.isArray(state.schemas) &&
    Array.isArray(state.subjects);
  if (!valid) throw new Error(`${file} is not a schema registry state file (format 1)`);
  return state;
}

export function writeRegistryState(file: string, state: RegistryState): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, JSON.stringify(state, null, 2));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
