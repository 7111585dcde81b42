// What runs after a provider's report replaced some (provider, day) figures: the
// reconciliation.variance webhook for days now beyond the tolerance. Reconciliation only announces
// the import; the api component registers the check (api/reconciliation/variance-alerts.ts), which
// reads the lake, so reconciliation/ imports neither api/ nor the lake.
import type { Queryable } from '../core/control/db.js';

export type ProviderCostsImported = (
  db: Queryable,
  organizationId: string,
  days: readonly { provider: string; date: string }[],
) => Promise<unknown>;

declare module '../core/app-context.js' {
  interface AppServices {
    /** Called after an import replaced an organization's provider figures of these days. */
    providerCostsImported: ProviderCostsImported;
  }
}
