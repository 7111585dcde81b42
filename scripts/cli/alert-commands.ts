// CLI commands of issue 14: webhook endpoints, budgets and alert settings (rows of the command
// table in commands.ts, one admin API call each).
import type { CommandSpec, FlagSpec } from './commands.js';

const org: FlagSpec = { name: 'org', type: 'string', required: true, pathParam: 'org', help: 'organization id' };
const endpoint: FlagSpec = { name: 'endpoint', type: 'string', required: true, pathParam: 'endpoint', help: 'webhook endpoint id' };
const budget: FlagSpec = { name: 'budget', type: 'string', required: true, pathParam: 'budget', help: 'budget id' };
const WEBHOOK = '/organizations/{org}/webhook-endpoints';
const ONE_WEBHOOK = `${WEBHOOK}/{endpoint}`;
const budgetFields = (required: boolean): FlagSpec[] => [
  { name: 'scope', type: 'string', required, help: 'organization, end_user, each_end_user, agent, workflow or dimension' },
  { name: 'period', type: 'string', required, help: 'daily, weekly or monthly (calendar, UTC)' },
  { name: 'amount', type: 'string', required, help: 'USD decimal, e.g. 250 or 99.5' },
  { name: 'name', type: 'string', help: 'display name' },
  { name: 'user-id', type: 'string', help: "end user's external id (scope end_user)" },
  { name: 'agent-id', type: 'string', help: 'scope agent' },
  { name: 'workflow-id', type: 'string', help: 'scope workflow' },
  { name: 'dimension-key', type: 'string', help: 'scope dimension' },
  { name: 'dimension-value', type: 'string', help: 'scope dimension' },
];

export const ALERT_COMMANDS: CommandSpec[] = [
  {
    resource: 'webhooks',
    action: 'create',
    summary: 'Add a webhook endpoint (its whsec_ signing secret is shown once)',
    method: 'POST',
    path: WEBHOOK,
    flags: [
      org,
      { name: 'url', type: 'string', required: true, help: 'http(s) URL events are POSTed to' },
      { name: 'events', type: 'list', required: true, field: 'enabled_events', help: 'event types, comma-separated, or *' },
      { name: 'description', type: 'string', help: 'free text' },
    ],
  },
  { resource: 'webhooks', action: 'list', summary: "List an organization's webhook endpoints", method: 'GET', path: WEBHOOK, flags: [org] },
  { resource: 'webhooks', action: 'get', summary: 'Show one webhook endpoint', method: 'GET', path: ONE_WEBHOOK, flags: [org, endpoint] },
  {
    resource: 'webhooks',
    action: 'update',
    summary: "Change an endpoint's URL, events or description",
    method: 'PATCH',
    path: ONE_WEBHOOK,
    flags: [
      org,
      endpoint,
      { name: 'url', type: 'string', help: 'new URL' },
      { name: 'events', type: 'list', field: 'enabled_events', help: 'event types, comma-separated, or *' },
      { name: 'description', type: 'string', help: 'free text' },
    ],
  },
  { resource: 'webhooks', action: 'disable', summary: 'Disable an endpoint (events wait)', method: 'PATCH', path: ONE_WEBHOOK, fixedBody: { enabled: false }, flags: [org, endpoint] },
  { resource: 'webhooks', action: 'enable', summary: 'Re-enable an endpoint (what waited is sent)', method: 'PATCH', path: ONE_WEBHOOK, fixedBody: { enabled: true }, flags: [org, endpoint] },
  {
    resource: 'webhooks',
    action: 'rotate',
    summary: 'Issue a new signing secret (shown once); the old one signs too for the grace period',
    method: 'PATCH',
    path: ONE_WEBHOOK,
    fixedBody: { rotate_secret: true },
    flags: [org, endpoint, { name: 'grace-seconds', type: 'integer', field: 'rotation_grace_seconds', help: 'seconds the old secret keeps signing (default 86400)' }],
  },
  { resource: 'webhooks', action: 'delete', summary: 'Delete an endpoint', method: 'DELETE', path: ONE_WEBHOOK, flags: [org, endpoint] },
  { resource: 'webhooks', action: 'attempts', summary: "List an endpoint's delivery attempts, newest first", method: 'GET', path: `${ONE_WEBHOOK}/attempts`, flags: [org, endpoint] },
  { resource: 'webhooks', action: 'events', summary: "List the organization's webhook events with their deliveries", method: 'GET', path: '/organizations/{org}/webhook-events', flags: [org] },
  {
    resource: 'webhooks',
    action: 'resend',
    summary: 'Send an event to an endpoint again now',
    method: 'POST',
    path: `${ONE_WEBHOOK}/events/{event}/resend`,
    flags: [org, endpoint, { name: 'event', type: 'string', required: true, pathParam: 'event', help: 'event id (evt_…)' }],
  },
  { resource: 'webhooks', action: 'test', summary: 'Send a webhook.test event to an endpoint', method: 'POST', path: `${ONE_WEBHOOK}/test`, flags: [org, endpoint] },
  { resource: 'budgets', action: 'create', summary: 'Create a budget', method: 'POST', path: '/organizations/{org}/budgets', flags: [org, ...budgetFields(true), { name: 'thresholds', type: 'integer-list', help: 'percents, comma-separated (default 50,80,100)' }] },
  { resource: 'budgets', action: 'list', summary: "List an organization's budgets with their current figures", method: 'GET', path: '/organizations/{org}/budgets', flags: [org] },
  { resource: 'budgets', action: 'get', summary: 'Show one budget with its current figures', method: 'GET', path: '/organizations/{org}/budgets/{budget}', flags: [org, budget] },
  { resource: 'budgets', action: 'update', summary: 'Change a budget', method: 'PATCH', path: '/organizations/{org}/budgets/{budget}', flags: [org, budget, ...budgetFields(false)] },
  { resource: 'budgets', action: 'delete', summary: 'Delete a budget', method: 'DELETE', path: '/organizations/{org}/budgets/{budget}', flags: [org, budget] },
  { resource: 'alerts', action: 'settings', summary: "Show an organization's alert settings", method: 'GET', path: '/organizations/{org}/alert-settings', flags: [org] },
  {
    resource: 'alerts',
    action: 'set-credits-low',
    summary: 'Set the credit balance at which credits.low fires',
    method: 'PUT',
    path: '/organizations/{org}/alert-settings',
    flags: [org, { name: 'balance', type: 'integer', required: true, field: 'credits_low_balance', help: 'event credits' }],
  },
  {
    resource: 'alerts',
    action: 'set-margin-below',
    summary: 'Set the trailing 30-day margin percent under which end_user.margin_below fires',
    method: 'PUT',
    path: '/organizations/{org}/alert-settings',
    flags: [org, { name: 'percent', type: 'number', required: true, field: 'margin_below_percent', help: 'percent, e.g. 20' }],
  },
];
