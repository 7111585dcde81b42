// Wire shapes of the webhook admin API (snake_case, ISO 8601 UTC) and the input rules tsoa's types
// cannot express (URL scheme and address, known event types), each failure naming its field.
import { ValidationError } from '../../core/errors.js';
import { isWebhookEventType } from './event-types.js';
import type { WebhookEndpoint } from './endpoints.store.js';
import { isPrivateAddress, literalAddress } from './outbound-address.js';
import type { WebhookAttempt, WebhookEventRecord } from './webhook-log.store.js';

export interface CreateWebhookEndpointBody {
  /**
   * Where events are POSTed: an absolute http(s) URL. Redirects are never followed.
   * @maxLength 2048 must be at most 2048 characters
   */
  url: string;
  /**
   * Event types to send (see the event catalogue), or `["*"]` for all.
   * @minItems 1 must name at least one event type
   */
  enabled_events: string[];
  /** @maxLength 500 must be at most 500 characters */
  description?: string | null;
}

export interface UpdateWebhookEndpointBody {
  /** @maxLength 2048 must be at most 2048 characters */
  url?: string;
  /** @minItems 1 must name at least one event type */
  enabled_events?: string[];
  /** @maxLength 500 must be at most 500 characters */
  description?: string | null;
  /** false disables the endpoint; true re-enables it and sends what waited. */
  enabled?: boolean;
  /** true issues a new signing secret, returned in this response only. */
  rotate_secret?: boolean;
  /**
   * Seconds the previous secret keeps signing after a rotation (a second `v1=`); default 86400.
   * @isInt must be an integer
   * @minimum 0 must be >= 0
   * @maximum 604800 must be at most 604800 (7 days)
   */
  rotation_grace_seconds?: number;
}

export interface WebhookEndpointView {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  enabled_events: string[];
  /** `enabled` or `disabled`. */
  status: 'enabled' | 'disabled';
  /** Why the endpoint is disabled (by hand, or after failing for 3 days); null when enabled. */
  disabled_reason: string | null;
  /** Start of the current run of failed attempts; null when the last attempt succeeded. */
  failing_since: string | null;
  /** While a rotated-out secret still signs, when it stops. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointWithSecret extends WebhookEndpointView {
  /** `whsec_…`: verify `Marginal-Signature` with it. Shown once. */
  secret: string;
}

export interface WebhookEndpointList {
  webhook_endpoints: WebhookEndpointView[];
  total: number;
}

export interface WebhookAttemptView {
  id: string;
  event_id: string;
  attempted_at: string;
  /** `delivered`, `http_error` (non-2xx, a redirect included), `timeout` (10 s), `network_error`, `refused` (private address). */
  outcome: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  /** The first KiB of the receiver's answer. */
  response_excerpt: string | null;
}

export interface WebhookAttemptList {
  attempts: WebhookAttemptView[];
  total: number;
  limit: number;
  offset: number;
}

interface WebhookDeliveryState {
  endpoint_id: string;
  /** `pending`, `delivered` or `failed` (given up after 3 days, or the endpoint was deleted). */
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

export interface WebhookEventView {
  id: string;
  type: string;
  /** Unix seconds, as in the delivered body. */
  created: number;
  data: unknown;
  deliveries: WebhookDeliveryState[];
}

export interface WebhookEventList {
  events: WebhookEventView[];
  total: number;
  limit: number;
  offset: number;
}

export interface WebhookResendResult {
  event_id: string;
  endpoint_id: string;
  status: 'queued';
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function endpointView(e: WebhookEndpoint): WebhookEndpointView {
  return {
    id: e.id,
    organization_id: e.organizationId,
    url: e.url,
    description: e.description,
    enabled_events: e.enabledEvents,
    status: e.enabled ? 'enabled' : 'disabled',
    disabled_reason: e.disabledReason,
    failing_since: iso(e.failingSince),
    previous_secret_expires_at:
      e.previousSecretExpiresAt && e.previousSecretExpiresAt > new Date() ? e.previousSecretExpiresAt.toISOString() : null,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export function attemptView(a: WebhookAttempt): WebhookAttemptView {
  return {
    id: a.id,
    event_id: a.eventId,
    attempted_at: a.attemptedAt.toISOString(),
    outcome: a.outcome,
    status_code: a.statusCode,
    latency_ms: a.latencyMs,
    error: a.error,
    response_excerpt: a.responseExcerpt,
  };
}

export function eventView(e: WebhookEventRecord): WebhookEventView {
  return {
    id: e.id,
    type: e.type,
    created: Math.floor(e.createdAt.getTime() / 1000),
    data: e.data,
    deliveries: e.deliveries.map((d) => ({
      ...d,
      next_attempt_at: d.next_attempt_at ? new Date(d.next_attempt_at).toISOString() : null,
      delivered_at: d.delivered_at ? new Date(d.delivered_at).toISOString() : null,
    })),
  };
}

/** An absolute http(s) URL without credentials; a private or loopback IP literal only when allowed. */
export function parseEndpointUrl(value: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError('url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ValidationError('url', 'must be an http or https URL');
  if (url.username || url.password) throw new ValidationError('url', 'must not carry credentials');
  if (!allowPrivate) {
    const literal = literalAddress(url);
    if ((literal && isPrivateAddress(literal)) || url.hostname === 'localhost' || url.hostname.endsWith('.localhost')) {
      throw new ValidationError('url', 'must not be a loopback or private address (WEBHOOK_ALLOW_PRIVATE_URLS is off)');
    }
  }
  return url.toString();
}

export function parseEnabledEvents(values: string[]): string[] {
  if (values.length === 0) throw new ValidationError('enabled_events', 'must name at least one event type');
  values.forEach((v, i) => {
    if (v !== '*' && !isWebhookEventType(v)) throw new ValidationError(`enabled_events.${i}`, `unknown event type ${JSON.stringify(v)}`);
  });
  return [...new Set(values)];
}

export function parseDescription(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (text.length > 500) throw new ValidationError('description', 'must be at most 500 characters');
  return text.length === 0 ? null : text;
}

export function parseGraceSeconds(value: number | undefined): number {
  if (value === undefined) return 86_400;
  if (!Number.isInteger(value) || value < 0 || value > 604_800)
    throw new ValidationError('rotation_grace_seconds', 'must be an integer from 0 to 604800');
  return value;
}
