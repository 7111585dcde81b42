// The Reconciliation page's data: GET /v1/reconciliation for the page's range (any reader of costs),
// and for owners and admins the organization's provider connections and tolerance through its admin
// routes. Shapes from the OpenAPI document's types.
import { adminPath } from '../../api/client.js';
import { useApi } from '../../api/queries.js';
import { rangeQuery, type DateRange } from '../../range/date-range.js';
import type { components } from '../../../../sdks/typescript/src/generated/openapi.js';

export type ReconciliationReport = components['schemas']['ReconciliationReport'];
export type ReconciliationRow = components['schemas']['ReconciliationRow'];
export type ReconciliationDay = components['schemas']['ReconciliationDay'];
export type UnreportedCost = components['schemas']['UnreportedCost'];
export type ReportFormat = components['schemas']['ReportFormat'];
export type ProviderConnection = components['schemas']['ConnectionView'];
type ConnectionList = components['schemas']['ConnectionList'];
export type ImportResult = components['schemas']['ImportProviderCostReportResult'];
export type UsageReportFormat = components['schemas']['UsageReportFormat'];
export type UsageImportResult = components['schemas']['ImportProviderUsageReportResult'];
export type ReconciliationSettings = components['schemas']['ReconciliationSettings'];
export type PollResult = components['schemas']['PollResult'];

export const REPORT_PATH = '/reconciliation';
export const CONNECTIONS = 'reconciliation-connections';
export const SETTINGS = 'reconciliation-settings';
export const REPORTS = 'provider-cost-reports';
export const USAGE_REPORTS = 'provider-usage-reports';

export const useReconciliation = (r: DateRange) => useApi<ReconciliationReport>(REPORT_PATH, rangeQuery(r));
export const useConnections = () => useApi<ConnectionList>(adminPath(CONNECTIONS));
