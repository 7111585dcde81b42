// The CLI's command table: each `<resource> <action>` maps to one admin API call. A flag fills a
// path parameter ({org}) or a body field; adding a command is adding a row here.

type FlagType =
  /** Sent as given (decimals stay exact strings). */
  | 'string'
  /** Digits only; sent as a JSON number. */
  | 'integer'
  /** Comma-separated; sent as an array of strings. */
  | 'list'
  /** Comma-separated whole numbers; sent as an array of numbers. */
  | 'integer-list'
  /** A plain decimal (a percent, not money); sent as a JSON number. */
  | 'number'
  /** Present or absent, takes no value; sent as true when present. */
  | 'boolean'
  /** A JSON value, sent as parsed (an array of tiers, say). */
  | 'json';

export interface FlagSpec {
  /** The flag without dashes: `model-slug` for --model-slug. */
  name: string;
  type: FlagType;
  required?: boolean;
  /** Fills `{param}` in the path instead of the body. */
  pathParam?: string;
  /** Body field it sets (default: the flag name with - replaced by _). */
  field?: string;
  /** Read by the CLI itself, never sent. */
  local?: boolean;
  help: string;
}

export interface CommandSpec {
  resource: string;
  action: string;
  summary: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Under /v1/admin; `{param}` placeholders are filled from flags with `pathParam`. */
  path: string;
  flags: FlagSpec[];
  /** Flags of which exactly one must be given. */
  exactlyOneOf?: string[];
  /** After the call, poll the created re-pricing and draw a progress bar until it completes (unless --detach). */
  follow?: 'repricing';
  /** With --reprice, send the re-pricing the answer offers (its `repricing` request), then follow it as above. */
  repriceFlag?: true;
  /** Body fields the command always sends (e.g. `enabled: false` for "disable"). */
  fixedBody?: Record<string, unknown>;
  /** The answer is a file: written to the path of the (local, required) --out flag, not printed. */
  download?: true;
}

import { ALERT_COMMANDS } from './alert-commands.js';
import { EXPORT_COMMANDS } from './export-commands.js';

const org: FlagSpec = { name: 'org', type: 'string', required: true, pathParam: 'org', help: 'organization id' };
const effectiveFrom: FlagSpec = {
  name: 'effective-from',
  type: 'string',
  help: 'ISO 8601 date or date-time from which it applies (default: always)',
};

export const COMMANDS: CommandSpec[] = [
  {
    resource: 'orgs',
    action: 'create',
    summary: 'Create an organization (zero credits, an active subscription)',
    method: 'POST',
    path: '/organizations',
    flags: [
      { name: 'name', type: 'string', required: true, help: 'display name' },
      { name: 'plan', type: 'string', help: 'plan of its first subscription (default "default")' },
    ],
  },
  { resource: 'orgs', action: 'list', summary: 'List organizations', method: 'GET', path: '/organizations', flags: [] },
  { resource: 'orgs', action: 'get', summary: 'Show one organization', method: 'GET', path: '/organizations/{org}', flags: [org] },
  {
    resource: 'keys',
    action: 'create',
    summary: 'Issue an API key and signing secret (shown once)',
    method: 'POST',
    path: '/organizations/{org}/api-keys',
    flags: [
      org,
      {
        name: 'scopes',
        type: 'list',
        required: true,
        help: 'comma-separated: usage:write,usage:read,costs:read,revenue:read,dimensions:read',
      },
      { name: 'owner-user-id', type: 'string', help: 'UUID of the account user owning the usage (default: new)' },
    ],
  },
  {
    resource: 'keys',
    action: 'list',
    summary: "List an organization's keys (no secrets)",
    method: 'GET',
    path: '/organizations/{org}/api-keys',
    flags: [org],
  },
  {
    resource: 'keys',
    action: 'revoke',
    summary: 'Revoke an API key',
    method: 'DELETE',
    path: '/organizations/{org}/api-keys/{key}',
    flags: [org, { name: 'key', type: 'string', required: true, pathParam: 'key', help: 'key id (key_id)' }],
  },
  {
    resource: 'users',
    action: 'invite',
    summary: 'Invite a person with a role; prints the invitation token and URL (shown once)',
    method: 'POST',
    path: '/organizations/{org}/invitations',
    flags: [
      org,
      { name: 'email', type: 'string', required: true, help: "the person's email" },
      { name: 'role', type: 'string', required: true, help: 'owner, admin, analyst, finance or viewer' },
      { name: 'expires-in-hours', type: 'integer', help: 'hours until the invitation expires (default 168)' },
    ],
  },
  {
    resource: 'users',
    action: 'list',
    summary: "List an organization's people and roles",
    method: 'GET',
    path: '/organizations/{org}/members',
    flags: [org],
  },
  {
    resource: 'users',
    action: 'set-role',
    summary: "Change a person's role",
    method: 'PATCH',
    path: '/organizations/{org}/members/{person}',
    flags: [
      org,
      { name: 'person', type: 'string', required: true, pathParam: 'person', help: 'person_id' },
      { name: 'role', type: 'string', required: true, help: 'owner, admin, analyst, finance or viewer' },
    ],
  },
  {
    resource: 'sso',
    action: 'set',
    summary: "Set an organization's single sign-on (OpenID Connect); prints the redirect URI to register",
    method: 'PUT',
    path: '/organizations/{org}/sso',
    flags: [
      org,
      { name: 'issuer', type: 'string', required: true, help: "the provider's issuer URL (https)" },
      { name: 'client-id', type: 'string', required: true, help: 'the client id registered at the provider' },
      { name: 'client-secret', type: 'string', required: true, help: 'the client secret (stored encrypted)' },
      {
        name: 'domains',
        type: 'list',
        required: true,
        field: 'allowed_domains',
        help: 'email domains allowed to sign in, comma-separated',
      },
      {
        name: 'role',
        type: 'string',
        required: true,
        field: 'default_role',
        help: 'role for new people: owner, admin, analyst, finance or viewer',
      },
    ],
  },
  {
    resource: 'sso',
    action: 'get',
    summary: "Show an organization's single sign-on (no secret)",
    method: 'GET',
    path: '/organizations/{org}/sso',
    flags: [org],
  },
  {
    resource: 'sso',
    action: 'remove',
    summary: "Turn an organization's single sign-on off",
    method: 'DELETE',
    path: '/organizations/{org}/sso',
    flags: [org],
  },
  {
    resource: 'credits',
    action: 'grant',
    summary: 'Add event credits',
    method: 'POST',
    path: '/organizations/{org}/credits',
    flags: [
      org,
      { name: 'amount', type: 'integer', required: true, help: 'credits to add (positive integer)' },
      { name: 'note', type: 'string', help: 'why (kept with the grant)' },
    ],
  },
  {
    resource: 'credits',
    action: 'get',
    summary: 'Show the balance and grants',
    method: 'GET',
    path: '/organizations/{org}/credits',
    flags: [org],
  },
  {
    resource: 'rate-cards',
    action: 'create',
    summary: 'Add a token rate card (USD per million tokens)',
    method: 'POST',
    path: '/organizations/{org}/rate-cards',
    flags: [
      org,
      { name: 'model-slug', type: 'string', required: true, help: 'model name prefix, e.g. gpt-4o' },
      { name: 'input', type: 'string', required: true, field: 'input_cost_per_million', help: 'input rate' },
      { name: 'output', type: 'string', required: true, field: 'output_cost_per_million', help: 'output rate' },
      { name: 'cache-creation', type: 'string', field: 'cache_creation_cost_per_million', help: 'cache-creation rate (default: none)' },
      { name: 'cache-read', type: 'string', field: 'cache_read_cost_per_million', help: 'cache-read rate (default: none)' },
      { name: 'reasoning', type: 'string', field: 'reasoning_cost_per_million', help: 'reasoning rate (default: none)' },
      {
        name: 'cache-creation-1h',
        type: 'string',
        field: 'cache_creation_1h_cost_per_million',
        help: 'one-hour cache-write rate (default: none)',
      },
      { name: 'service-tier', type: 'string', help: 'service tier the card prices: batch, flex, priority… (default standard)' },
      {
        name: 'tiers',
        type: 'json',
        help: 'long-context tiers as JSON: \'[{"above_prompt_tokens":200000,"input_cost_per_million":"6","output_cost_per_million":"22.5"}]\'',
      },
      {
        name: 'time-of-day-windows',
        type: 'json',
        field: 'time_of_day_windows',
        help: 'time-of-day windows (UTC) as JSON: \'[{"name":"off-peak","start_utc":"16:30","end_utc":"00:30","input_cost_per_million":"0.135","output_cost_per_million":"0.55"}]\'',
      },
      effectiveFrom,
      {
        name: 'reprice',
        type: 'boolean',
        local: true,
        help: "re-price the range the card changes (the answer's `repricing`), with a progress bar until done",
      },
      { name: 'detach', type: 'boolean', local: true, help: 'with --reprice: start the re-pricing and return at once' },
    ],
    repriceFlag: true,
  },
  {
    resource: 'repricings',
    action: 'create',
    summary: "Re-price an organization's events in a range with the cards in effect now; shows a progress bar until done",
    method: 'POST',
    path: '/organizations/{org}/repricings',
    flags: [
      org,
      { name: 'start-date', type: 'string', required: true, help: 'ISO 8601 date or date-time, inclusive' },
      { name: 'end-date', type: 'string', required: true, help: 'ISO 8601 date or date-time, exclusive' },
      { name: 'detach', type: 'boolean', local: true, help: 'print the job and return at once instead of following it' },
    ],
    follow: 'repricing',
  },
  {
    resource: 'repricings',
    action: 'get',
    summary: 'Show a re-pricing: progress, then the result',
    method: 'GET',
    path: '/organizations/{org}/repricings/{id}',
    flags: [org, { name: 'id', type: 'string', required: true, pathParam: 'id', help: 'repricing_id' }],
  },
  {
    resource: 'repricings',
    action: 'list',
    summary: "List an organization's re-pricings",
    method: 'GET',
    path: '/organizations/{org}/repricings',
    flags: [org],
  },
  {
    resource: 'rate-cards',
    action: 'list',
    summary: "List an organization's rate cards",
    method: 'GET',
    path: '/organizations/{org}/rate-cards',
    flags: [org],
  },
  {
    resource: 'rate-cards',
    action: 'history',
    summary: "List an organization's rate cards with the superseded ones (when, by which card, by whom)",
    method: 'GET',
    path: '/organizations/{org}/rate-cards?include_superseded=true',
    flags: [org],
  },
  {
    resource: 'unit-rates',
    action: 'create',
    summary: 'Add a per-unit rate for metric events (USD per unit)',
    method: 'POST',
    path: '/organizations/{org}/unit-rates',
    flags: [
      org,
      { name: 'model', type: 'string', help: 'model priced (or --provider)' },
      { name: 'provider', type: 'string', help: 'provider priced (or --model)' },
      { name: 'metric', type: 'string', required: true, help: 'the event metric, e.g. image_generation' },
      { name: 'unit', type: 'string', required: true, help: 'the event unit, matched exactly' },
      { name: 'cost-per-unit', type: 'string', required: true, help: 'USD per unit' },
      effectiveFrom,
    ],
    exactlyOneOf: ['model', 'provider'],
  },
  {
    resource: 'unit-rates',
    action: 'list',
    summary: "List an organization's unit rates",
    method: 'GET',
    path: '/organizations/{org}/unit-rates',
    flags: [org],
  },
  {
    resource: 'dimensions',
    action: 'create',
    summary: 'Define a custom dimension (a metadata key)',
    method: 'POST',
    path: '/organizations/{org}/dimensions',
    flags: [
      org,
      { name: 'key', type: 'string', required: true, help: 'metadata key, snake_case' },
      { name: 'name', type: 'string', required: true, help: 'display name' },
      { name: 'value-type', type: 'string', required: true, help: 'string or number' },
      { name: 'required', type: 'boolean', field: 'is_required', help: 'reject events that lack the key' },
      { name: 'description', type: 'string', help: 'free text' },
    ],
  },
  {
    resource: 'dimensions',
    action: 'list',
    summary: "List an organization's dimensions",
    method: 'GET',
    path: '/organizations/{org}/dimensions',
    flags: [org],
  },
  {
    resource: 'subscriptions',
    action: 'create',
    summary: 'Start a subscription (a new active one cancels the current one)',
    method: 'POST',
    path: '/organizations/{org}/subscriptions',
    flags: [
      org,
      { name: 'plan', type: 'string', help: 'plan name (default "default")' },
      { name: 'status', type: 'string', help: 'active (default), inactive or canceled' },
    ],
  },
  {
    resource: 'subscriptions',
    action: 'list',
    summary: "List an organization's subscriptions",
    method: 'GET',
    path: '/organizations/{org}/subscriptions',
    flags: [org],
  },
  {
    resource: 'subscriptions',
    action: 'set-status',
    summary: "Change a subscription's status",
    method: 'PATCH',
    path: '/organizations/{org}/subscriptions/{subscription}',
    flags: [
      org,
      { name: 'subscription', type: 'string', required: true, pathParam: 'subscription', help: 'subscription id' },
      { name: 'status', type: 'string', required: true, help: 'active, inactive or canceled' },
    ],
  },
  {
    resource: 'revenue',
    action: 'list',
    summary: "List an organization's revenue records (all sources)",
    method: 'GET',
    path: '/organizations/{org}/revenue-records',
    flags: [org],
  },
  {
    resource: 'revenue',
    action: 'connections',
    summary: "List an organization's revenue connections",
    method: 'GET',
    path: '/organizations/{org}/revenue-connections',
    flags: [org],
  },
  {
    resource: 'stripe',
    action: 'connect',
    summary: 'Connect a Stripe account (key checked, stored encrypted) and start the first sync',
    method: 'POST',
    path: '/organizations/{org}/revenue-connections/stripe',
    flags: [
      org,
      {
        name: 'secret-key',
        type: 'string',
        required: true,
        help: 'sk_live_…/rk_live_… key that can read customers, invoices, credit notes',
      },
      { name: 'customer-metadata-key', type: 'string', help: 'customer metadata key holding your user_id (default "user_id")' },
      { name: 'unmatched-customers', type: 'string', help: 'customer_id (default: the Stripe id is the user_id) or unattributed' },
    ],
  },
  {
    resource: 'stripe',
    action: 'sync',
    summary: 'Sync Stripe now and wait for the result',
    method: 'POST',
    path: '/organizations/{org}/revenue-connections/stripe/sync?wait=true',
    flags: [org],
  },
  {
    resource: 'stripe',
    action: 'status',
    summary: 'Show the Stripe connection and its last sync',
    method: 'GET',
    path: '/organizations/{org}/revenue-connections/stripe',
    flags: [org],
  },
  {
    resource: 'stripe',
    action: 'disconnect',
    summary: 'Disconnect Stripe (key forgotten; its records stop counting)',
    method: 'DELETE',
    path: '/organizations/{org}/revenue-connections/stripe',
    flags: [org],
  },
  {
    resource: 'reconciliation',
    action: 'import',
    summary: "Import a provider's cost report (OpenAI costs page or Anthropic cost report JSON); replaces the days it covers",
    method: 'POST',
    path: '/organizations/{org}/provider-cost-reports',
    flags: [
      org,
      { name: 'format', type: 'string', required: true, help: 'openai_costs or anthropic_cost_report' },
      { name: 'report', type: 'json', required: true, help: 'the report JSON as the provider returned it, e.g. "$(cat costs.json)"' },
    ],
  },
  {
    resource: 'reconciliation',
    action: 'import-usage',
    summary:
      "Import a provider's usage report (OpenAI completions usage or Anthropic messages usage report JSON); replaces the days it covers",
    method: 'POST',
    path: '/organizations/{org}/provider-usage-reports',
    flags: [
      org,
      { name: 'format', type: 'string', required: true, help: 'openai_usage_completions or anthropic_usage_report' },
      { name: 'report', type: 'json', required: true, help: 'the report JSON as the provider returned it, e.g. "$(cat usage.json)"' },
    ],
  },
  {
    resource: 'reconciliation',
    action: 'import-csv',
    summary: 'Import provider costs as CSV (date, provider, model, project or key, cost); replaces the days it covers',
    method: 'POST',
    path: '/organizations/{org}/provider-cost-reports',
    flags: [org, { name: 'csv', type: 'string', required: true, field: 'report', help: 'the CSV text, e.g. "$(cat costs.csv)"' }],
    fixedBody: { format: 'csv' },
  },
  {
    resource: 'reconciliation',
    action: 'set-tolerance',
    summary: 'Set the percent of the provider cost a day may drift before GET /v1/reconciliation flags it',
    method: 'PUT',
    path: '/organizations/{org}/reconciliation-settings',
    flags: [org, { name: 'tolerance-percent', type: 'string', required: true, help: 'decimal percent, 0 to 1000 (default 1)' }],
  },
  {
    resource: 'reconciliation',
    action: 'connect',
    summary: "Store an admin key for OpenAI's or Anthropic's cost API (encrypted); its last 7 days are imported every hour",
    method: 'PUT',
    path: '/organizations/{org}/reconciliation-connections/{provider}',
    flags: [
      org,
      { name: 'provider', type: 'string', required: true, pathParam: 'provider', help: 'openai or anthropic' },
      { name: 'admin-key', type: 'string', required: true, help: 'the provider admin key (sk-admin-…, sk-ant-admin…)' },
      { name: 'api-url', type: 'string', help: "the provider API's origin (default its public one)" },
    ],
  },
  {
    resource: 'reconciliation',
    action: 'poll',
    summary: "Import a connected provider's last 7 days of costs now",
    method: 'POST',
    path: '/organizations/{org}/reconciliation-connections/{provider}/poll',
    flags: [org, { name: 'provider', type: 'string', required: true, pathParam: 'provider', help: 'openai or anthropic' }],
  },
  {
    resource: 'reconciliation',
    action: 'connections',
    summary: "List the organization's provider cost connections and their last poll (no keys)",
    method: 'GET',
    path: '/organizations/{org}/reconciliation-connections',
    flags: [org],
  },
  {
    resource: 'reconciliation',
    action: 'disconnect',
    summary: 'Forget a provider admin key and stop polling (imported figures stay)',
    method: 'DELETE',
    path: '/organizations/{org}/reconciliation-connections/{provider}',
    flags: [org, { name: 'provider', type: 'string', required: true, pathParam: 'provider', help: 'openai or anthropic' }],
  },
  ...EXPORT_COMMANDS,
  ...ALERT_COMMANDS,
];
