// The usage-event types: the ingest fields of the API (generated from openapi/openapi.json), with
// `idempotency_key` optional because the SDK generates one, and the per-event outcomes that
// `track` reports to `onResult`.
import type { MarginalApiError, MarginalError } from './errors.js';
import type { components } from './generated/openapi.js';

type IngestRequest = components['schemas']['UsageEventRequest'];

/** One usage event: the API's ingest fields; `idempotency_key` is generated when left out. */
export type UsageEvent = Omit<IngestRequest, 'idempotency_key'> & { idempotency_key?: string };

/** The 202 body of POST /v1/usage-events. */
export type IngestResponse = components['schemas']['IngestResponse'];

/** An event as sent: its key fixed (and reused on every retry). */
export type QueuedEvent = UsageEvent & { idempotency_key: string };

/** The outcome of one tracked event, reported once to `onResult`. */
export type EventResult =
  | {
      /** Queued for cost calculation (`accepted_flagged` carries `flagReason`). */
      status: 'accepted' | 'accepted_flagged';
      idempotencyKey: string;
      eventId: string;
      flagReason?: string;
      event: QueuedEvent;
    }
  | {
      /** The service refused the event for good (validation, credits, auth); `error.field` names a bad field. */
      status: 'rejected';
      idempotencyKey: string;
      error: MarginalApiError;
      event: QueuedEvent;
    }
  | {
      /** Still unanswered after every retry (network, timeouts, 429, 5xx). Sending it again later is safe. */
      status: 'failed';
      idempotencyKey: string;
      error: MarginalError;
      event: QueuedEvent;
    }
  | {
      /** Never sent: the queue was full, or the client was shut down. */
      status: 'dropped';
      idempotencyKey: string;
      reason: 'queue_full' | 'shutdown';
      event: QueuedEvent;
    };
