import { describe, expect, it } from 'vitest';
import { buildRequest, helpText, parseArgs, UsageError } from '../../../../scripts/cli/args.js';
import { COMMANDS } from '../../../../scripts/cli/commands.js';

const ORG = '0f8fad5b-d9cb-469f-a165-70867728950e';

function request(argv: string[]) {
  const parsed = parseArgs(argv);
  if (parsed.command === 'help') throw new Error('help');
  return buildRequest(parsed.command, parsed.flags);
}

describe('CLI command line → admin request', () => {
  it.each([
    [['orgs', 'create', '--name', 'Acme Corp'], { method: 'POST', path: '/organizations', body: { name: 'Acme Corp' } }],
    [['orgs', 'list'], { method: 'GET', path: '/organizations' }],
    [['orgs', 'get', '--org', ORG], { method: 'GET', path: `/organizations/${ORG}` }],
    [
      ['reconciliation', 'connect', '--org', ORG, '--provider', 'openai', '--admin-key', 'sk-admin-x'],
      { method: 'PUT', path: `/organizations/${ORG}/reconciliation-connections/openai`, body: { admin_key: 'sk-admin-x' } },
    ],
    [
      ['reconciliation', 'import-usage', '--org', ORG, '--format', 'anthropic_usage_report', '--report', '{"data":[]}'],
      {
        method: 'POST',
        path: `/organizations/${ORG}/provider-usage-reports`,
        body: { format: 'anthropic_usage_report', report: { data: [] } },
      },
    ],
    // A GET's flags are its query; --out is the CLI's own (the file it writes).
    [
      ['exports', 'focus', '--org', ORG, '--start', '2026-10-01', '--end', '2026-11-01', '--format', 'parquet', '--out', 'x.parquet'],
      { method: 'GET', path: `/organizations/${ORG}/exports/focus?start_date=2026-10-01&end_date=2026-11-01&format=parquet` },
    ],
    [
      [
        'exports',
        'schedule',
        '--org',
        ORG,
        '--kind',
        'focus',
        '--frequency',
        'daily',
        '--destination',
        's3://b/p',
        '--s3',
        '{"access_key_id":"a","secret_access_key":"s"}',
      ],
      {
        method: 'POST',
        path: `/organizations/${ORG}/export-schedules`,
        body: { kind: 'focus', frequency: 'daily', destination: 's3://b/p', s3: { access_key_id: 'a', secret_access_key: 's' } },
      },
    ],
    [
      ['keys', 'create', '--org', ORG, '--scopes', 'usage:write, costs:read', '--owner-user-id', ORG],
      { method: 'POST', path: `/organizations/${ORG}/api-keys`, body: { scopes: ['usage:write', 'costs:read'], owner_user_id: ORG } },
    ],
    [['keys', 'revoke', '--org', ORG, '--key', 'k/1'], { method: 'DELETE', path: `/organizations/${ORG}/api-keys/k%2F1` }],
    [
      ['credits', 'grant', `--org=${ORG}`, '--amount', '10000'],
      { method: 'POST', path: `/organizations/${ORG}/credits`, body: { amount: 10000 } },
    ],
    [
      [
        'rate-cards',
        'create',
        '--org',
        ORG,
        '--model-slug',
        'gpt-4o',
        '--input',
        '2.50',
        '--output',
        '10',
        '--cache-read',
        '1.25',
        '--effective-from',
        '2025-01-01',
      ],
      {
        method: 'POST',
        path: `/organizations/${ORG}/rate-cards`,
        body: {
          model_slug: 'gpt-4o',
          input_cost_per_million: '2.50',
          output_cost_per_million: '10',
          cache_read_cost_per_million: '1.25',
          effective_from: '2025-01-01',
        },
      },
    ],
    // --reprice and --detach are the CLI's own: the card goes out as without them.
    [
      [
        'rate-cards',
        'create',
        '--org',
        ORG,
        '--model-slug',
        'gpt-4o',
        '--input',
        '3',
        '--output',
        '12',
        '--effective-from',
        '2025-01-01',
        '--reprice',
        '--detach',
      ],
      {
        method: 'POST',
        path: `/organizations/${ORG}/rate-cards`,
        body: { model_slug: 'gpt-4o', input_cost_per_million: '3', output_cost_per_million: '12', effective_from: '2025-01-01' },
      },
    ],
    [['rate-cards', 'history', '--org', ORG], { method: 'GET', path: `/organizations/${ORG}/rate-cards?include_superseded=true` }],
    [
      [
        'unit-rates',
        'create',
        '--org',
        ORG,
        '--provider',
        'deepgram',
        '--metric',
        'transcription',
        '--unit',
        'minute',
        '--cost-per-unit',
        '0.0043',
      ],
      {
        method: 'POST',
        path: `/organizations/${ORG}/unit-rates`,
        body: { provider: 'deepgram', metric: 'transcription', unit: 'minute', cost_per_unit: '0.0043' },
      },
    ],
    [
      [
        'dimensions',
        'create',
        '--org',
        ORG,
        '--key',
        'team',
        '--name',
        'Team',
        '--value-type',
        'string',
        '--required',
        '--description',
        'Owning team',
      ],
      {
        method: 'POST',
        path: `/organizations/${ORG}/dimensions`,
        body: { key: 'team', name: 'Team', value_type: 'string', is_required: true, description: 'Owning team' },
      },
    ],
    [['subscriptions', 'create', '--org', ORG], { method: 'POST', path: `/organizations/${ORG}/subscriptions`, body: {} }],
    [
      ['subscriptions', 'set-status', '--org', ORG, '--subscription', 'S', '--status', 'canceled', '--url', 'http://x', '--token', 't'],
      { method: 'PATCH', path: `/organizations/${ORG}/subscriptions/S`, body: { status: 'canceled' } },
    ],
  ])('%j', (argv, expected) => {
    expect(request(argv)).toEqual(expected);
  });

  it.each([
    [['orgs'], 'expected'],
    [['orgs', 'delete'], 'unknown action "delete" for orgs; one of: create, list, get'],
    [['teams', 'list'], 'unknown resource "teams"'],
    [['orgs', 'create'], 'missing --name'],
    [['orgs', 'create', '--name'], '--name needs a value'],
    [['orgs', 'create', '--name', 'a', '--colour', 'red'], 'unknown flag --colour'],
    [['orgs', 'create', '--name', 'a', '--name', 'b'], '--name given twice'],
    [['orgs', 'create', 'Acme'], 'unexpected argument "Acme"'],
    [['credits', 'grant', '--org', ORG, '--amount', '1.5'], '--amount must be a whole number'],
    [['unit-rates', 'create', '--org', ORG, '--metric', 'm', '--unit', 'u', '--cost-per-unit', '1'], 'exactly one of --model, --provider'],
    [
      ['unit-rates', 'create', '--org', ORG, '--model', 'a', '--provider', 'b', '--metric', 'm', '--unit', 'u', '--cost-per-unit', '1'],
      'exactly one of',
    ],
  ])('%j is a usage error', (argv, message) => {
    expect(() => request(argv)).toThrow(UsageError);
    expect(() => request(argv)).toThrow(message);
  });

  it('help, --help and no arguments show help', () => {
    for (const argv of [[], ['help'], ['orgs', 'create', '--help']]) expect(parseArgs(argv).command).toBe('help');
  });

  it('help lists every command of the table', () => {
    const text = helpText();
    for (const c of COMMANDS) expect(text).toContain(`  ${c.resource} ${c.action}`);
  });

  it('every path placeholder is filled by a required flag', () => {
    for (const c of COMMANDS) {
      for (const [, param] of c.path.matchAll(/\{(\w+)\}/g)) {
        const flag = c.flags.find((f) => f.pathParam === param);
        expect(flag?.required, `${c.resource} ${c.action} {${param}}`).toBe(true);
      }
    }
  });
});

describe('alert commands (issue 14)', () => {
  it('disable, rotate and budget thresholds build the admin request the API takes', () => {
    const find = (resource: string, action: string) => COMMANDS.find((c) => c.resource === resource && c.action === action)!;
    expect(
      buildRequest(
        find('webhooks', 'disable'),
        new Map([
          ['org', 'o1'],
          ['endpoint', 'e1'],
        ]),
      ),
    ).toEqual({
      method: 'PATCH',
      path: '/organizations/o1/webhook-endpoints/e1',
      body: { enabled: false },
    });
    expect(
      buildRequest(
        find('webhooks', 'rotate'),
        new Map([
          ['org', 'o1'],
          ['endpoint', 'e1'],
          ['grace-seconds', '60'],
        ]),
      ).body,
    ).toEqual({
      rotate_secret: true,
      rotation_grace_seconds: 60,
    });
    expect(
      buildRequest(
        find('budgets', 'create'),
        new Map([
          ['org', 'o1'],
          ['scope', 'end_user'],
          ['user-id', 'alice'],
          ['period', 'monthly'],
          ['amount', '99.5'],
          ['thresholds', '50,90'],
        ]),
      ).body,
    ).toEqual({ scope: 'end_user', user_id: 'alice', period: 'monthly', amount: '99.5', thresholds: [50, 90] });
    expect(
      buildRequest(
        find('alerts', 'set-credits-low'),
        new Map([
          ['org', 'o1'],
          ['balance', '1000'],
        ]),
      ),
    ).toEqual({
      method: 'PUT',
      path: '/organizations/o1/alert-settings',
      body: { credits_low_balance: 1000 },
    });
    expect(
      buildRequest(
        find('alerts', 'set-margin-below'),
        new Map([
          ['org', 'o1'],
          ['percent', '-12.5'],
        ]),
      ).body,
    ).toEqual({ margin_below_percent: -12.5 });
  });
});
