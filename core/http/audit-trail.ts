// The audit trail as every capability writes to it: who acted (the request's person, API key or
// the admin token, and the address it came from), on which organization, and what changed (before
// and after, as the capability's own views show them, so never a secret). people/ keeps the trail
// and fills the `auditTrail` slot at start; core names no capability, and each capability calls
// `auditChange` after its change succeeded.
import type { Request } from 'express';
import { appContext } from '../app-context.js';
import type { AuthContext } from '../auth/scopes.js';
import type { Queryable } from '../control/db.js';

export type ActorKind = 'person' | 'api_key' | 'admin_token' | 'anonymous';

/** Who acts, as the audit trail records it. */
export interface Actor {
  kind: ActorKind;
  id: string | null;
  address: string | null;
}

export interface AuditEntry {
  organizationId: string | null;
  action: string;
  actorKind: ActorKind;
  actorId: string | null;
  subjectPersonId: string | null;
  address: string | null;
  details: Record<string, unknown>;
}

export interface AuditTrail {
  /** Writes one row with `db` (a transaction's, to record beside the change). */
  record(db: Queryable, entry: AuditEntry): Promise<void>;
}

declare module '../app-context.js' {
  interface AppServices {
    /** The audit trail (people/): filled by the api's wiring. */
    auditTrail: AuditTrail;
  }
}

/** The client's address: the socket's peer, or with TRUST_PROXY the address the nearest proxy saw. */
export function clientAddress(req: Request): string | null {
  if (appContext(req).config.trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = typeof forwarded === 'string' ? forwarded.split(',').at(-1)?.trim() : undefined;
    if (last) return last.slice(0, 100);
  }
  return req.socket.remoteAddress ?? null;
}

/** Who made an authenticated request: the admin token, a person's session, or an API key. */
export function requestActor(req: Request): Actor {
  const user = (req as Request & { user?: AuthContext | { admin: true } }).user;
  const address = clientAddress(req);
  if (!user || 'admin' in user) return { kind: 'admin_token', id: null, address };
  if (user.person) return { kind: 'person', id: user.person.personId, address };
  return { kind: 'api_key', id: user.keyId, address };
}

/** Names that hold secrets: dropped from what is recorded wherever they appear, as a second guard behind the views. */
const SECRET_NAMES = new Set([
  'secret',
  'signing_secret',
  'client_secret',
  'api_key',
  'secret_key',
  'stripe_secret_key',
  'password',
  'token',
  'authorization',
]);

function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !SECRET_NAMES.has(k.toLowerCase()))
      .map(([k, v]) => [k, withoutSecrets(v)]),
  );
}

export interface AuditedChange {
  organizationId: string;
  /** `<thing>.<verb>`, e.g. `api_key.created`. */
  action: string;
  /** The thing as its view showed it before the change (absent when created). */
  before?: unknown;
  /** …and after (absent when deleted). */
  after?: unknown;
  details?: Record<string, unknown>;
}

/** Records a change the request made, by the request's actor. */
export async function auditChange(req: Request, change: AuditedChange, db: Queryable = appContext(req).db): Promise<void> {
  const trail = appContext(req).services.auditTrail;
  if (!trail) throw new Error('the audit trail is not running in this process');
  const actor = requestActor(req);
  const details = withoutSecrets({
    ...change.details,
    ...(change.before === undefined ? {} : { before: change.before }),
    ...(change.after === undefined ? {} : { after: change.after }),
  }) as Record<string, unknown>;
  await trail.record(db, {
    organizationId: change.organizationId,
    action: change.action,
    actorKind: actor.kind,
    actorId: actor.id,
    subjectPersonId: null,
    address: actor.address,
    details,
  });
}
