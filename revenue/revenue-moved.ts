// What runs after an organization's revenue records change (a hand import or a Stripe sync).
// Revenue only announces the change; the api component registers the end-user margin alerts
// (alerts/evaluation/margin-evaluation.ts), so revenue/ does not import alerts/, which reads revenue.
import type { Queryable } from '../core/control/db.js';

export type RevenueMoved = (db: Queryable, organizationId: string, now: Date) => Promise<unknown>;

declare module '../core/app-context.js' {
  interface AppServices {
    /** Called after an organization's revenue records change: its end users' margin alerts. */
    revenueMoved: RevenueMoved;
  }
}
