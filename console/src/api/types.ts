// Response shapes of the read endpoints the console calls, taken from the OpenAPI document (the
// TypeScript types `sdks/typescript` generates from openapi/openapi.json with `npm run generate`),
// so the console never restates what the api already declares. Money fields are USD decimal
// strings; counts are numbers. Names are the console's; the right-hand side is the api's schema.
import type { components } from '../../../sdks/typescript/src/generated/openapi.js';

type Schemas = components['schemas'];

export type Granularity = Schemas['Granularity'];
export type Profitability = Schemas['ProfitabilityCategory'];
export type EndUserCostItem = Schemas['EndUserCostItem'];
export type CostByEndUser = Schemas['CostByEndUser'];
export type CostBreakdownItem = Schemas['CostBreakdownItem'];
export type ByAgent = Schemas['AttributionBreakdown'];
/** A cost breakdown by some value (attribution by dimension, an end user's by model / provider / dimension). */
export type ByDimension = Pick<Schemas['EndUserCostBreakdown'], 'items' | 'total_cost'>;
export type DistinctValues = Schemas['DistinctValues'];
export type TimeSeries = Schemas['TimeSeries'];
/** Cost series over time (dimension cost trend, an end user's trend, cost over time by group). */
export type SeriesResponse = Pick<Schemas['DimensionCostTrend'], 'series' | 'granularity'>;
export type MarginOrgTotal = Schemas['MarginOrgTotal'];
export type EndUserMarginRow = Schemas['EndUserMarginRow'];
export type MarginByEndUser = Schemas['MarginByEndUser'];
export type MarginTrend = Schemas['MarginTrend'];
export type PendingRateCards = Schemas['PendingRateCards'];
export type EndUserDirectory = Schemas['EndUserDirectory'];
export type EndUserSummary = Schemas['EndUserCostSummary'];
export type DimensionDefinition = Schemas['DimensionDefinitionView'];
export type DimensionDefinitions = Schemas['DimensionDefinitions'];
export type DimensionBreakdown = Schemas['DimensionCostBreakdown'];
export type NumericTrend = Schemas['NumericTrend'];
export type SessionSummary = Schemas['SessionSummary'];
export type SessionList = Schemas['SessionList'];
export type SessionTreeNode = Schemas['SessionTreeNode'];
export type SessionTree = Schemas['SessionTree'];
export type UsageEvent = Schemas['UsageEventItem'];
export type UsageEventPage = Schemas['UsageEventPage'];
export type UsageSummary = Schemas['UsageSummary'];
export type RateItem = Schemas['RateEstimationItem'];
export type Role = Schemas['Role'];
export type SessionView = Schemas['SessionView'];
export type MemberView = Schemas['MemberView'];
export type MemberList = Schemas['MemberList'];
export type InvitationView = Schemas['InvitationView'];
export type AcceptedInvitation = Schemas['AcceptedInvitationView'];
export type AuditEvent = Schemas['AuditEventView'];
export type AuditEventList = Schemas['AuditEventList'];
export type ActorKind = Schemas['ActorKind'];
export type SsoConfiguration = Schemas['SsoConfigurationView'];
export type ApiKey = Schemas['ApiKeyView'];
export type ApiKeyList = Schemas['ApiKeyList'];
export type IssuedApiKey = Schemas['IssuedApiKeyView'];
export type Budget = Schemas['BudgetStatusView'];
export type BudgetList = Schemas['BudgetList'];
export type BudgetScope = Schemas['BudgetScope'];
export type BudgetPeriod = Schemas['BudgetPeriod'];
export type WebhookEndpoint = Schemas['WebhookEndpointView'];
export type WebhookEndpointList = Schemas['WebhookEndpointList'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type Repricing = Schemas['RepricingView'];
export type RepricingList = Schemas['RepricingList'];
export type OpenInvitation = Schemas['OpenInvitationView'];
export type OpenInvitationList = Schemas['OpenInvitationList'];
export type RevenueConnection = Schemas['RevenueConnectionView'];
export type RevenueConnectionList = Schemas['RevenueConnectionList'];
export type UnmatchedCustomers = Schemas['UnmatchedCustomers'];
export type RateCard = Schemas['RateCardView'];
export type RateCardList = Schemas['RateCardList'];
export type RateCardWrite = Schemas['RateCardWriteView'];
