// After an admin change of what ingest caches per organization (dimension definitions, the
// subscription state), the ingest of this process forgets its copy, so the next request obeys it
// (a required dimension, an inactive subscription). Other processes see it within their cache's
// 2 × TTL (ingest/org-settings.ts).
import type { Request } from 'express';
import { appContext, type AppServices } from '../../core/app-context.js';

export function ingestSettingsChanged(req: Request, organizationId: string): void {
  // Absent when this process runs no ingest (the distributed api).
  (appContext(req).services as Partial<AppServices>).ingest?.organizationChanged(organizationId);
}
