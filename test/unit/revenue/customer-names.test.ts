import { describe, expect, it } from 'vitest';
import { endUserName } from '../../../core/control/end-users.js';
import { latestNamedRecords } from '../../../revenue/customer-names.js';

const d = (s: string) => new Date(`${s}T00:00:00Z`);

describe('latestNamedRecords', () => {
  it('names each end user after its named record whose period ends last; the first on a tie', () => {
    const records = [
      { user: 'u1', customerName: 'Old Name', periodEnd: d('2026-01-01') },
      { user: 'u1', customerName: 'New Name', periodEnd: d('2026-03-01') },
      { user: 'u1', customerName: null, periodEnd: d('2026-06-01') }, // unnamed: ignored
      { user: 'u2', customerName: 'First', periodEnd: d('2026-02-01') },
      { user: 'u2', customerName: 'Second', periodEnd: d('2026-02-01') },
      { user: null, customerName: 'Nobody', periodEnd: d('2026-09-01') }, // unattributed
    ];
    const named = latestNamedRecords(records, (r) => r.user);
    expect([...named].map(([k, r]) => [k, r.customerName])).toEqual([
      ['u1', 'New Name'],
      ['u2', 'First'],
    ]);
  });
});

describe('endUserName', () => {
  it('is the customer name, else the external id, else the internal id', () => {
    expect(endUserName({ name: 'Acme', externalId: 'acme-1' }, 'id')).toBe('Acme');
    expect(endUserName({ name: null, externalId: 'acme-1' }, 'id')).toBe('acme-1');
    expect(endUserName({ externalId: null }, 'id')).toBe('id');
    expect(endUserName(undefined, 'id')).toBe('id');
  });
});
