// Avro schema rules of the dev schema registry: parsing, the identity form used to give an
// identical schema the same id, and compatibility levels decided by Avro resolution (avsc).
// Pure functions; no I/O.
import avro from 'avsc';

const COMPATIBILITY_LEVELS = [
  'NONE',
  'BACKWARD',
  'BACKWARD_TRANSITIVE',
  'FORWARD',
  'FORWARD_TRANSITIVE',
  'FULL',
  'FULL_TRANSITIVE',
] as const;

export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];

export function isCompatibilityLevel(value: unknown): value is CompatibilityLevel {
  return typeof value === 'string' && (COMPATIBILITY_LEVELS as readonly string[]).includes(value);
}

export class InvalidSchemaError extends Error {}

export interface ParsedSchema {
  type: avro.Type;
  /** Key-order- and whitespace-independent JSON text; equal text means the same schema. */
  identity: string;
}

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

// Keeps every attribute (doc, default, logicalType, precision, ...) because any of them can change
// what a reader sees; only spelling differences are removed: object key order, and
// {"type": "long"} versus "long".
function normalize(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalize);
  if (node === null || typeof node !== 'object') return node;
  const obj = node as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  if (keys.length === 1 && keys[0] === 'type' && typeof obj.type === 'string' && PRIMITIVES.has(obj.type)) {
    return obj.type;
  }
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = normalize(obj[k]);
  return out;
}

/** Parses schema text as Avro; throws InvalidSchemaError with avsc's reason when it is not one. */
export function parseAvroSchema(text: string): ParsedSchema {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InvalidSchemaError(`Invalid schema: not JSON (${(e as Error).message})`);
  }
  let type: avro.Type;
  try {
    // Logical types are left to their underlying types: Avro resolution ignores them.
    type = avro.Type.forSchema(json as avro.Schema);
  } catch (e) {
    throw new InvalidSchemaError(`Invalid schema: ${(e as Error).message}`);
  }
  return { type, identity: JSON.stringify(normalize(json)) };
}

/** Why `reader` cannot read data written with `writer`, or null when it can. */
function resolutionError(reader: avro.Type, writer: avro.Type): string | null {
  try {
    reader.createResolver(writer);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Checks a candidate schema against a subject's existing versions (oldest first) under `level`.
 * BACKWARD: the candidate reads data written with the previous schema; FORWARD: the previous
 * schema reads the candidate's data; FULL: both. Plain levels compare with the latest version,
 * _TRANSITIVE levels with every version. Returns the reasons; empty means compatible.
 */
export function compatibilityErrors(
  level: CompatibilityLevel,
  candidate: avro.Type,
  existing: readonly { version: number; type: avro.Type }[],
): string[] {
  if (level === 'NONE' || existing.length === 0) return [];
  const against = level.endsWith('_TRANSITIVE') ? existing : existing.slice(-1);
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  const errors: string[] = [];
  for (const { version, type: previous } of against) {
    if (backward) {
      const why = resolutionError(candidate, previous);
      if (why) errors.push(`new schema cannot read data written with version ${version}: ${why}`);
    }
    if (forward) {
      const why = resolutionError(previous, candidate);
      if (why) errors.push(`version ${version} cannot read data written with the new schema: ${why}`);
    }
  }
  return errors;
}
