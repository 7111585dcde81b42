// The ingest service: turns validated events of one request into Kafka records (subscription,
// flags, end-user id, Avro encoding) and hands them to the group committer, which answers each
// only once its fate is durable. Registered as `services.ingest` for the controller.
import type { AuthContext } from '../core/auth/scopes.js';
import type { Queryable } from '../core/control/db.js';
import { SubscriptionInactiveError } from '../core/errors.js';
import { endUserIdFor, eventIdFor } from '../core/ids.js';
import type { RateBook } from '../pricing/rate-book.js';
import type { UsageEventCodec } from '../core/registry/usage-event-codec.js';
import type { UsageEvent } from '../schemas/usage-event.js';
import { flagReasonFor } from './flags.js';
import type { EventOutcome, GroupCommitter, PendingEvent } from './group-commit.js';
import type { IngestResponse } from './ingest.types.js';
import { getLedgerDetails } from './ingest-ledger.store.js';
import { ingestEvents } from './ingest-metrics.js';
import type { OrganizationSettingsCache } from './org-settings.js';
import type { DimensionRule, ValidatedEvent } from './validate-event.js';

declare module '../core/app-context.js' {
  interface AppServices {
    ingest: IngestService;
  }
}

export class IngestService {
  constructor(
    private readonly settings: OrganizationSettingsCache,
    private readonly rateBook: RateBook,
    private readonly codec: UsageEventCodec,
    private readonly committer: GroupCommitter,
    private readonly db: Queryable,
  ) {}

  /** An admin change of the organization's dimensions or subscriptions: the next request sees it. */
  organizationChanged(organizationId: string): void {
    this.settings.forget(organizationId);
  }

  /** The organization's dimension rules, for validating its events. */
  async dimensionsFor(organizationId: string): Promise<DimensionRule[]> {
    return (await this.settings.get(organizationId)).dimensions;
  }

  /** Queues the events of one request; one outcome per event, in order. */
  async ingest(auth: AuthContext, events: ValidatedEvent[], receivedAt: Date): Promise<EventOutcome[]> {
    const org = auth.organizationId;
    const [settings, rates] = await Promise.all([this.settings.get(org), this.rateBook.ratesFor(org)]);
    if (settings.subscription.inactive) return this.answerInactive(org, events);
    const pending = await Promise.all(
      events.map(async (e): Promise<PendingEvent> => {
        const record = toRecord(auth, e, receivedAt, settings.subscription.activeId);
        record.flag_reason = flagReasonFor(record, receivedAt, rates);
        return {
          organizationId: org,
          idempotencyKey: e.idempotency_key,
          eventId: record.event_id,
          payload: await this.codec.encode(record),
          flagReason: record.flag_reason,
          userId: e.user_id,
        };
      }),
    );
    const outcomes = await this.committer.submit(pending);
    for (const o of outcomes) {
      ingestEvents.inc({ outcome: o.ok ? (o.duplicate ? 'duplicate' : o.flagReason ? 'flagged' : 'accepted') : o.error.code });
    }
    return outcomes;
  }

  /** POST /usage-events: the 202 body once the event is durably queued; throws the error it answers otherwise. */
  async ingestOne(auth: AuthContext, event: ValidatedEvent, receivedAt: Date): Promise<IngestResponse> {
    const [outcome] = await this.ingest(auth, [event], receivedAt);
    if (!outcome!.ok) throw outcome!.error;
    return ingestResponse(outcome!);
  }

  /**
   * 402 SUBSCRIPTION_INACTIVE for new keys; a key accepted before answers its 202 as any retry does
   * (spec: "Retrying later with the same idempotency_key is safe"), from the ledger.
   */
  private async answerInactive(org: string, events: ValidatedEvent[]): Promise<EventOutcome[]> {
    const known = await getLedgerDetails(this.db, org, [...new Set(events.map((e) => e.idempotency_key))]);
    return events.map((e): EventOutcome => {
      const row = known.get(e.idempotency_key);
      ingestEvents.inc({ outcome: row ? 'duplicate' : 'SUBSCRIPTION_INACTIVE' });
      return row
        ? { ok: true, eventId: row.eventId, flagReason: row.flagReason, duplicate: true }
        : { ok: false, error: new SubscriptionInactiveError() };
    });
  }
}

/** The usage-events record of a validated event (flag_reason filled in by the caller). */
function toRecord(auth: AuthContext, e: ValidatedEvent, receivedAt: Date, subscriptionId: string | null): UsageEvent {
  const org = auth.organizationId;
  return {
    event_id: eventIdFor(org, e.idempotency_key),
    organization_id: org,
    idempotency_key: e.idempotency_key,
    api_key_id: auth.keyId,
    owner_user_id: auth.ownerUserId,
    subscription_id: subscriptionId,
    received_at: receivedAt,
    timestamp: e.timestamp ?? receivedAt,
    timestamp_provided: e.timestamp !== null,
    user_id: e.user_id,
    end_user_id: e.user_id === null ? null : endUserIdFor(org, e.user_id),
    model: e.model,
    provider: e.provider,
    metric: e.metric,
    unit: e.unit,
    quantity: e.quantity,
    input_tokens: e.input_tokens,
    output_tokens: e.output_tokens,
    cache_creation_input_tokens: e.cache_creation_input_tokens,
    cache_read_input_tokens: e.cache_read_input_tokens,
    reasoning_tokens: e.reasoning_tokens,
    cache_creation_1h_input_tokens: e.cache_creation_1h_input_tokens,
    service_tier: e.service_tier,
    cost_override: e.cost_override,
    session_id: e.session_id,
    span_id: e.span_id,
    parent_span_id: e.parent_span_id,
    span_name: e.span_name,
    span_kind: e.span_kind,
    started_at: e.started_at,
    agent_id: e.agent_id,
    workflow_id: e.workflow_id,
    feature: e.feature,
    metadata: e.metadata_json,
    flag_reason: null,
  };
}

/** The 202 body for an accepted outcome. */
export function ingestResponse(outcome: Extract<EventOutcome, { ok: true }>): IngestResponse {
  const flagged = outcome.flagReason !== null;
  const message = outcome.duplicate
    ? 'Event already accepted with this idempotency_key; it was not queued or charged again'
    : flagged
      ? 'Event queued for cost calculation and flagged for attention'
      : 'Event queued for cost calculation';
  return {
    event_id: outcome.eventId,
    status: flagged ? 'accepted_flagged' : 'accepted',
    message,
    ...(flagged ? { flag_reason: outcome.flagReason! } : {}),
  };
}
