// The catalogue of webhook event types (README "Event catalogue" shows a body for each). An
// endpoint subscribes to a list of these, or to '*' for all.
const WEBHOOK_EVENT_TYPES = [
  'budget.threshold_crossed',
  'budget.exceeded',
  'rate_card.missing',
  'credits.low',
  'credits.exhausted',
  'end_user.unprofitable',
  'end_user.profitable',
  'end_user.margin_below',
  // A day whose provider report and our cost drift beyond the tolerance (api/reconciliation/variance-alerts.ts).
  'reconciliation.variance',
  // A day's cost spike of an end user, agent, model or feature (api/anomalies/anomaly-alerts.ts).
  'cost.anomaly',
  // A scheduled export's run wrote its object, or failed its last attempt (api/exports/export-runner.ts).
  'export.completed',
  'export.failed',
  // Sent only by the admin API's "send a test event"; lets an operator check an endpoint.
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
