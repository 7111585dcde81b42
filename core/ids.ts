// Deterministic ids: the same inputs always give the same UUID, so retries and re-publishes
// converge on one event and one end user.
import { v5 as uuidv5, validate } from 'uuid';

/** event_id = UUIDv5(namespace = organization id, name = idempotency key). */
export function eventIdFor(organizationId: string, idempotencyKey: string): string {
  return uuidv5(idempotencyKey, organizationId);
}

/** Internal end-user id = UUIDv5(namespace = organization id, name = "end-user:" + external id). */
export function endUserIdFor(organizationId: string, externalId: string): string {
  return uuidv5(`end-user:${externalId}`, organizationId);
}

export function isUuid(value: string): boolean {
  return validate(value);
}
