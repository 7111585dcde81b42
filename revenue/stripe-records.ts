// Stripe objects → revenue records (pure). Each line of a finalized invoice (open or paid) is a
// record over the line's billing period; each line of an issued credit note is a negative record
// (a refund) over the period of the invoice line it credits. Amounts are USD cents → decimal
// strings; other currencies are skipped and counted (money is USD end to end). Customers map to
// end users by a metadata field, else (by default) by the Stripe customer id itself.
import { Big } from '../core/money.js';
import type { RevenueRecordInput } from './revenue.store.js';

/** The fields of Stripe's objects this mapping reads (structural subsets of the SDK's types). */
export interface StripeCustomerLike {
  id: string;
  name?: string | null;
  email?: string | null;
  metadata?: Record<string, string> | null;
}

type Ref = string | { id: string } | null;

interface StripeInvoiceLineLike {
  id: string;
  amount: number;
  currency: string;
  period: { start: number; end: number };
  discount_amounts?: Array<{ amount: number }> | null;
  pretax_credit_amounts?: Array<{ amount: number; type: string }> | null;
}

export interface StripeInvoiceLike {
  id: string;
  status: string | null;
  currency: string;
  customer: Ref;
  lines: StripeInvoiceLineLike[];
}

interface StripeCreditNoteLineLike {
  id: string;
  amount: number;
  discount_amounts?: Array<{ amount: number }> | null;
  invoice_line_item?: string | null;
}

export interface StripeCreditNoteLike {
  id: string;
  status: string;
  currency: string;
  customer: Ref;
  invoice: Ref;
  created: number;
  effective_at?: number | null;
  lines: StripeCreditNoteLineLike[];
}

export interface StripeSnapshot {
  customers: StripeCustomerLike[];
  invoices: StripeInvoiceLike[];
  creditNotes: StripeCreditNoteLike[];
}

export type UnmatchedCustomers = 'customer_id' | 'unattributed';

export interface StripeCustomerMapping {
  /** Customer metadata key holding the end user's external id (the `user_id` sent on events). */
  metadataKey: string;
  /** Customers without that key: their Stripe id is the external id, or their revenue is unattributed. */
  unmatchedCustomers: UnmatchedCustomers;
}

export const DEFAULT_CUSTOMER_MAPPING: StripeCustomerMapping = { metadataKey: 'user_id', unmatchedCustomers: 'customer_id' };

/** Invoice states whose lines are revenue: finalized and not voided or written off. */
const REVENUE_INVOICE_STATES = new Set(['open', 'paid']);

export interface StripeMappingResult {
  records: RevenueRecordInput[];
  /** Invoice and credit-note lines taken. */
  invoiceLines: number;
  creditNoteLines: number;
  /** Lines skipped because their currency is not USD. */
  skippedNonUsd: number;
  /** Invoices skipped because they are draft, void or uncollectible; credit notes that are void. */
  skippedNotFinal: number;
}

const refId = (r: Ref): string | null => (r === null ? null : typeof r === 'string' ? r : r.id);

/** Stripe's periods are in seconds with an inclusive end; an instant charge gets one second. */
function periodOf(startSec: number, endSec: number): { periodStart: Date; periodEnd: Date } {
  return { periodStart: new Date(startSec * 1000), periodEnd: new Date(Math.max(endSec, startSec + 1) * 1000) };
}

const usd = (cents: number): string => new Big(cents).div(100).toFixed();

function discounts(line: {
  discount_amounts?: Array<{ amount: number }> | null;
  pretax_credit_amounts?: Array<{ amount: number; type: string }> | null;
}): number {
  const list = line.discount_amounts ?? line.pretax_credit_amounts?.filter((p) => p.type === 'discount') ?? [];
  return list.reduce((s, d) => s + d.amount, 0);
}

export function stripeRevenueRecords(
  snapshot: StripeSnapshot,
  mapping: StripeCustomerMapping = DEFAULT_CUSTOMER_MAPPING,
): StripeMappingResult {
  const customers = new Map(snapshot.customers.map((c) => [c.id, c]));
  const who = (customerId: string | null): Pick<RevenueRecordInput, 'userId' | 'customerName' | 'externalCustomerId'> => {
    if (customerId === null) return { userId: null, customerName: null, externalCustomerId: null };
    const c = customers.get(customerId);
    const fromMetadata = c?.metadata?.[mapping.metadataKey]?.trim();
    const userId = fromMetadata ? fromMetadata : mapping.unmatchedCustomers === 'customer_id' ? customerId : null;
    return { userId, customerName: c?.name || c?.email || null, externalCustomerId: customerId };
  };

  const result: StripeMappingResult = { records: [], invoiceLines: 0, creditNoteLines: 0, skippedNonUsd: 0, skippedNotFinal: 0 };
  const linePeriods = new Map<string, StripeInvoiceLineLike['period']>();
  for (const inv of snapshot.invoices) {
    for (const line of inv.lines) linePeriods.set(line.id, line.period);
    if (!REVENUE_INVOICE_STATES.has(inv.status ?? '')) {
      result.skippedNotFinal++;
      continue;
    }
    const customer = who(refId(inv.customer));
    for (const line of inv.lines) {
      if ((line.currency || inv.currency).toLowerCase() !== 'usd') {
        result.skippedNonUsd++;
        continue;
      }
      result.records.push({
        id: `${inv.id}:${line.id}`,
        ...customer,
        amount: usd(line.amount - discounts(line)),
        currency: 'USD',
        ...periodOf(line.period.start, line.period.end),
      });
      result.invoiceLines++;
    }
  }
  for (const note of snapshot.creditNotes) {
    if (note.status !== 'issued') {
      result.skippedNotFinal++;
      continue;
    }
    if (note.currency.toLowerCase() !== 'usd') {
      result.skippedNonUsd += note.lines.length;
      continue;
    }
    const customer = who(refId(note.customer));
    const at = note.effective_at ?? note.created;
    for (const line of note.lines) {
      // A refund is recognized over the period of the line it credits, else at the note's date.
      const credited = line.invoice_line_item ? linePeriods.get(line.invoice_line_item) : undefined;
      result.records.push({
        id: `${note.id}:${line.id}`,
        ...customer,
        amount: usd(-(line.amount - discounts(line))),
        currency: 'USD',
        ...(credited ? periodOf(credited.start, credited.end) : periodOf(at, at)),
      });
      result.creditNoteLines++;
    }
  }
  return result;
}
