// Deterministic ids: the same inputs always give the same UUID, so retries and re-publishes
// converge on one event and one end user.
// UUIDv5 (RFC 9562 §5.5) is computed here rather than with the `uuid` package: ingest derives two
// per event, and the package re-parses the namespace and UTF-8-encodes the name by hand on every
// call (8% of a busy ingest's main thread, measured). Same output; the tests check it against
// `uuid` and the RFC's example.
import { createHash, hash } from 'node:crypto';
import { validate } from 'uuid';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Namespace bytes per organization id; bounded, so a flood of ids cannot grow it forever. */
const namespaces = new Map<string, Buffer>();
const NAMESPACES_MAX = 10_000;

function namespaceBytes(namespace: string): Buffer {
  let bytes = namespaces.get(namespace);
  if (bytes) return bytes;
  if (!UUID_SHAPE.test(namespace)) throw new TypeError(`namespace must be a UUID: ${namespace}`);
  bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (namespaces.size >= NAMESPACES_MAX) namespaces.clear();
  namespaces.set(namespace, bytes);
  return bytes;
}

/** Namespace + name, hashed in one call: crypto.hash skips a Hash object per id. */
const scratch = Buffer.allocUnsafe(16 + 1024);

/** UUIDv5 of a UTF-8 name in a namespace, lower-case hex with dashes. */
export function uuidV5(name: string, namespace: string): string {
  const ns = namespaceBytes(namespace);
  let h: Buffer;
  if (name.length <= 256) {
    // At most 3 UTF-8 bytes per UTF-16 unit, so a name this short always fits the scratch buffer.
    ns.copy(scratch, 0);
    const n = scratch.write(name, 16, 'utf8');
    h = hash('sha1', scratch.subarray(0, 16 + n), 'buffer') as unknown as Buffer;
  } else {
    h = createHash('sha1').update(ns).update(name, 'utf8').digest();
  }
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.toString('hex', 0, 16);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** event_id = UUIDv5(namespace = organization id, name = idempotency key). */
export function eventIdFor(organizationId: string, idempotencyKey: string): string {
  return uuidV5(idempotencyKey, organizationId);
}

/** Recent end-user ids: an organization's events name the same few users over and over. */
const endUsers = new Map<string, string>();
const END_USERS_MAX = 100_000;

/** Internal end-user id = UUIDv5(namespace = organization id, name = "end-user:" + external id). */
export function endUserIdFor(organizationId: string, externalId: string): string {
  const key = `${organizationId}\u0000${externalId}`;
  let id = endUsers.get(key);
  if (id === undefined) {
    id = uuidV5(`end-user:${externalId}`, organizationId);
    if (endUsers.size >= END_USERS_MAX) endUsers.clear();
    endUsers.set(key, id);
  }
  return id;
}

export function isUuid(value: string): boolean {
  return validate(value);
}
