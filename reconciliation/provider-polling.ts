// Reconciliation connections: an organization's admin key for OpenAI's or Anthropic's admin API
// (sealed under the master key as Stripe keys are, with organization and provider in its
// associated data) and the poll that imports the last days of the provider's costs, then of its
// usage, through the uploads' own paths (parse, replace the days, announce the costs through the
// providerCostsImported slot). The api component runs the poll every hour (PeriodicPass); an admin
// may poll at once. A failed usage request fails the poll (recorded) after the costs were imported.
import type { ControlDb } from '../core/control/db.js';
import { sealSecret, unsealSecret } from '../core/auth/secrets.js';
import { ValidationError } from '../core/errors.js';
import { requireText } from '../core/http/input.js';
import type { Logger } from '../core/logger.js';
import { PeriodicPass } from '../core/periodic-pass.js';
import { DAY_MS } from '../core/time.js';
import { fetchProviderReport, PROVIDER_API_URLS, type PolledProvider } from './provider-cost-apis.js';
import type { ReportFormat } from './provider-reports.js';
import type { ProviderCostsImported } from './provider-costs-imported.js';
import type { UsageReportFormat } from './provider-usage-reports.js';
import { importProviderReport, importUsageReport, type ImportSummary, type UsageImportSummary } from './reconciliation.service.js';
import { listConnections, recordPoll, upsertConnection, type ConnectionRecord } from './reconciliation-connections.store.js';

const POLLED_PROVIDERS: readonly PolledProvider[] = ['openai', 'anthropic'];
const FORMATS: Record<PolledProvider, ReportFormat> = { openai: 'openai_costs', anthropic: 'anthropic_cost_report' };
const USAGE_FORMATS: Record<PolledProvider, UsageReportFormat> = {
  openai: 'openai_usage_completions',
  anthropic: 'anthropic_usage_report',
};
/** Whole UTC days a poll asks again (a provider's figures for recent days still move). */
const POLL_DAYS = 7;
const POLL_INTERVAL_MS = 3_600_000;

const keyAad = (organizationId: string, provider: PolledProvider) => `reconciliation_connections:${organizationId}:${provider}`;

export function parsePolledProvider(value: string): PolledProvider {
  if (!(POLLED_PROVIDERS as readonly string[]).includes(value))
    throw new ValidationError('provider', `must be one of ${POLLED_PROVIDERS.join(', ')}`);
  return value as PolledProvider;
}

export interface ConnectionView {
  organization_id: string;
  provider: PolledProvider;
  /** The admin key's last 4 characters; the key itself is never shown again. */
  key_hint: string;
  api_url: string;
  created_at: string;
  last_polled_at: string | null;
  /** The last poll's error, null when it succeeded (or none ran yet). */
  last_error: string | null;
}

export function connectionView(c: ConnectionRecord): ConnectionView {
  return {
    organization_id: c.organization_id,
    provider: c.provider,
    key_hint: c.key_hint,
    api_url: c.api_url,
    created_at: new Date(c.created_at).toISOString(),
    last_polled_at: c.last_polled_at === null ? null : new Date(c.last_polled_at).toISOString(),
    last_error: c.last_error,
  };
}

/** An http(s) origin (tests and proxies may give one; the provider's own otherwise). */
function apiUrlOf(raw: string | undefined, provider: PolledProvider): string {
  if (raw === undefined) return PROVIDER_API_URLS[provider];
  let url: URL;
  try {
    url = new URL(requireText('api_url', raw, 2048));
  } catch {
    throw new ValidationError('api_url', 'must be an http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ValidationError('api_url', 'must be an http(s) URL');
  return url.origin;
}

export async function connectProvider(
  db: ControlDb,
  masterKey: Buffer,
  organizationId: string,
  provider: PolledProvider,
  body: { admin_key: string; api_url?: string },
): Promise<ConnectionRecord> {
  const key = requireText('admin_key', body.admin_key ?? '', 512);
  return upsertConnection(db, {
    organizationId,
    provider,
    sealed: sealSecret(masterKey, key, keyAad(organizationId, provider)),
    keyHint: key.slice(-4),
    apiUrl: apiUrlOf(body.api_url, provider),
  });
}

export interface PollDeps {
  db: ControlDb;
  masterKey: Buffer;
  /** The slot the api fills (reconciliation.variance); absent where no api runs. */
  imported: () => ProviderCostsImported | undefined;
}

/** Polls one connection for the last POLL_DAYS whole UTC days before `now`; the imports, or the error recorded. */
export async function pollConnection(
  deps: PollDeps,
  c: ConnectionRecord,
  now: Date,
): Promise<{ costs: ImportSummary; usage: UsageImportSummary } | { error: string }> {
  const end = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  const range = { start: new Date(end.getTime() - POLL_DAYS * DAY_MS), end };
  try {
    const key = unsealSecret(deps.masterKey, c.admin_key_sealed, keyAad(c.organization_id, c.provider));
    const report = await fetchProviderReport(c.provider, 'costs', c.api_url, key, range);
    const costs = await importProviderReport(deps.db, c.organization_id, FORMATS[c.provider], report);
    await deps.imported()?.(deps.db, c.organization_id, costs.days);
    const usageReport = await fetchProviderReport(c.provider, 'usage', c.api_url, key, range);
    const usage = await importUsageReport(deps.db, c.organization_id, USAGE_FORMATS[c.provider], usageReport);
    await recordPoll(deps.db, c, now, null);
    return { costs, usage };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    await recordPoll(deps.db, c, now, error.slice(0, 500));
    return { error };
  }
}

/** Every connection polled every hour (the first a minute after start) until stop(). */
export function startProviderPolling(deps: PollDeps, now: () => Date, logger: Logger, intervalMs = POLL_INTERVAL_MS): PeriodicPass {
  const pass = new PeriodicPass(
    async () => {
      for (const c of await listConnections(deps.db, null)) {
        const outcome = await pollConnection(deps, c, now());
        if ('error' in outcome)
          logger.warn(
            { provider: c.provider, organizationId: c.organization_id, error: outcome.error },
            'polling provider costs and usage failed',
          );
      }
    },
    (err) => logger.warn({ err }, 'polling provider costs failed; next pass retries'),
    { firstPassAfterMs: Math.min(60_000, intervalMs), intervalMs },
  );
  if (intervalMs > 0) pass.start();
  return pass;
}
