import { describe, expect, it } from 'vitest';
import { pageParams } from '../../../../core/http/paging.js';

describe('pageParams', () => {
  it('defaults to 100 and 0', () => expect(pageParams(undefined, undefined)).toEqual({ limit: 100, offset: 0 }));
  it('accepts 1 and 1000', () => {
    expect(pageParams(1, 0).limit).toBe(1);
    expect(pageParams(1000, 5)).toEqual({ limit: 1000, offset: 5 });
  });
  it.each([0, 1001, -1, 2.5])('rejects limit %s naming limit', (limit) => {
    expect(() => pageParams(limit, 0)).toThrow(expect.objectContaining({ field: 'limit', status: 400 }));
  });
  it('rejects a negative offset naming offset', () => {
    expect(() => pageParams(10, -1)).toThrow(expect.objectContaining({ field: 'offset', status: 400 }));
  });
});
