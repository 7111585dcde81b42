import { describe, expect, it } from 'vitest';
import { stripeRevenueRecords, type StripeSnapshot } from '../../../revenue/stripe-records.js';

const sec = (iso: string) => Date.parse(iso) / 1000;
const JAN = { start: sec('2026-01-01T00:00:00Z'), end: sec('2026-02-01T00:00:00Z') };

const snapshot: StripeSnapshot = {
  customers: [
    { id: 'cus_A', name: 'Acme Inc', email: 'billing@acme.test', metadata: { user_id: ' acme-42 ' } },
    { id: 'cus_B', name: null, email: 'bob@b.test', metadata: {} },
    { id: 'cus_C', name: '', email: null, metadata: { other: 'x' } },
  ],
  invoices: [
    {
      id: 'in_1',
      status: 'paid',
      currency: 'usd',
      customer: 'cus_A',
      lines: [
        // 49.99 USD for January, with a 5.00 discount → 44.99
        { id: 'il_1', amount: 4999, currency: 'usd', period: JAN, discount_amounts: [{ amount: 500 }] },
        // A one-off charge: start = end → a one-second period
        { id: 'il_2', amount: 1000, currency: 'usd', period: { start: sec('2026-01-15T12:00:00Z'), end: sec('2026-01-15T12:00:00Z') } },
      ],
    },
    // Open (finalized, unpaid) counts: accrual basis. Expanded customer object; discount via pretax credits.
    {
      id: 'in_2',
      status: 'open',
      currency: 'usd',
      customer: { id: 'cus_B' },
      lines: [
        {
          id: 'il_3',
          amount: 2000,
          currency: 'usd',
          period: JAN,
          discount_amounts: null,
          pretax_credit_amounts: [
            { amount: 150, type: 'discount' },
            { amount: 99, type: 'credit_balance_transaction' },
          ],
        },
      ],
    },
    { id: 'in_3', status: 'draft', currency: 'usd', customer: 'cus_A', lines: [{ id: 'il_4', amount: 1, currency: 'usd', period: JAN }] },
    { id: 'in_4', status: 'void', currency: 'usd', customer: 'cus_A', lines: [{ id: 'il_5', amount: 1, currency: 'usd', period: JAN }] },
    { id: 'in_5', status: 'paid', currency: 'eur', customer: 'cus_A', lines: [{ id: 'il_6', amount: 900, currency: 'eur', period: JAN }] },
    // A customer Stripe no longer lists (deleted): mapped by its id.
    {
      id: 'in_6',
      status: 'paid',
      currency: 'usd',
      customer: 'cus_gone',
      lines: [{ id: 'il_7', amount: 300, currency: 'usd', period: JAN }],
    },
    { id: 'in_7', status: 'paid', currency: 'usd', customer: 'cus_C', lines: [{ id: 'il_8', amount: 100, currency: 'usd', period: JAN }] },
  ],
  creditNotes: [
    // Refund of 10.00 of il_1 with 1.00 of its discount → −9.00 over January.
    {
      id: 'cn_1',
      status: 'issued',
      currency: 'usd',
      customer: 'cus_A',
      invoice: 'in_1',
      created: sec('2026-01-20T00:00:00Z'),
      lines: [{ id: 'cnli_1', amount: 1000, discount_amounts: [{ amount: 100 }], invoice_line_item: 'il_1' }],
    },
    // A custom credit line: recognized at the note's effective date.
    {
      id: 'cn_2',
      status: 'issued',
      currency: 'usd',
      customer: 'cus_B',
      invoice: 'in_2',
      created: sec('2026-01-21T00:00:00Z'),
      effective_at: sec('2026-01-22T00:00:00Z'),
      lines: [{ id: 'cnli_2', amount: 250, invoice_line_item: null }],
    },
    {
      id: 'cn_3',
      status: 'void',
      currency: 'usd',
      customer: 'cus_B',
      invoice: 'in_2',
      created: sec('2026-01-21T00:00:00Z'),
      lines: [{ id: 'cnli_3', amount: 250 }],
    },
  ],
};

const d = (s: string) => new Date(s);

describe('stripeRevenueRecords', () => {
  it('maps finalized invoice lines and issued credit notes to USD records over their periods', () => {
    const r = stripeRevenueRecords(snapshot);
    expect(r.records).toEqual([
      {
        id: 'in_1:il_1',
        userId: 'acme-42',
        customerName: 'Acme Inc',
        externalCustomerId: 'cus_A',
        amount: '44.99',
        currency: 'USD',
        periodStart: d('2026-01-01'),
        periodEnd: d('2026-02-01'),
      },
      {
        id: 'in_1:il_2',
        userId: 'acme-42',
        customerName: 'Acme Inc',
        externalCustomerId: 'cus_A',
        amount: '10',
        currency: 'USD',
        periodStart: d('2026-01-15T12:00:00Z'),
        periodEnd: d('2026-01-15T12:00:01Z'),
      },
      // No metadata key: the customer id is the external id; the email stands in for a missing name.
      {
        id: 'in_2:il_3',
        userId: 'cus_B',
        customerName: 'bob@b.test',
        externalCustomerId: 'cus_B',
        amount: '18.5',
        currency: 'USD',
        periodStart: d('2026-01-01'),
        periodEnd: d('2026-02-01'),
      },
      {
        id: 'in_6:il_7',
        userId: 'cus_gone',
        customerName: null,
        externalCustomerId: 'cus_gone',
        amount: '3',
        currency: 'USD',
        periodStart: d('2026-01-01'),
        periodEnd: d('2026-02-01'),
      },
      {
        id: 'in_7:il_8',
        userId: 'cus_C',
        customerName: null,
        externalCustomerId: 'cus_C',
        amount: '1',
        currency: 'USD',
        periodStart: d('2026-01-01'),
        periodEnd: d('2026-02-01'),
      },
      {
        id: 'cn_1:cnli_1',
        userId: 'acme-42',
        customerName: 'Acme Inc',
        externalCustomerId: 'cus_A',
        amount: '-9',
        currency: 'USD',
        periodStart: d('2026-01-01'),
        periodEnd: d('2026-02-01'),
      },
      {
        id: 'cn_2:cnli_2',
        userId: 'cus_B',
        customerName: 'bob@b.test',
        externalCustomerId: 'cus_B',
        amount: '-2.5',
        currency: 'USD',
        periodStart: d('2026-01-22'),
        periodEnd: d('2026-01-22T00:00:01Z'),
      },
    ]);
    expect(r).toMatchObject({ invoiceLines: 5, creditNoteLines: 2, skippedNonUsd: 1, skippedNotFinal: 3 });
  });

  it('leaves customers without the metadata key unattributed when asked to', () => {
    const r = stripeRevenueRecords(snapshot, { metadataKey: 'user_id', unmatchedCustomers: 'unattributed' });
    expect(r.records.map((x) => [x.id, x.userId])).toEqual([
      ['in_1:il_1', 'acme-42'],
      ['in_1:il_2', 'acme-42'],
      ['in_2:il_3', null],
      ['in_6:il_7', null],
      ['in_7:il_8', null],
      ['cn_1:cnli_1', 'acme-42'],
      ['cn_2:cnli_2', null],
    ]);
  });

  it('reads the configured metadata key', () => {
    const r = stripeRevenueRecords(snapshot, { metadataKey: 'other', unmatchedCustomers: 'unattributed' });
    expect(r.records.find((x) => x.id === 'in_7:il_8')?.userId).toBe('x');
    expect(r.records.find((x) => x.id === 'in_1:il_1')?.userId).toBeNull();
  });
});
