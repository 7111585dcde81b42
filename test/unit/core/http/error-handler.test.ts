import { ValidateError } from '@tsoa/runtime';
import { describe, expect, it } from 'vitest';
import { fromTsoaValidateError, humanizeTsoaMessage } from '../../../../core/http/error-handler.js';

const union = (issues: Array<Record<string, { message: string }>>) =>
  `Could not match the union against any of the items. Issues: ${JSON.stringify(issues)}`;

describe('tsoa validation faults → ValidationError', () => {
  it.each([
    [{ 'body.name': { message: "'name' is required" } }, 'name', 'name: is required'],
    [{ 'body.name': { message: 'invalid string value' } }, 'name', 'name: must be a string'],
    [{ 'body.amount': { message: 'must be a positive integer' } }, 'amount', 'amount: must be a positive integer'],
    [
      { start_date: { message: 'invalid ISO 8601 date format, i.e. YYYY-MM-DD' } },
      'start_date',
      'start_date: must be an ISO 8601 date (YYYY-MM-DD)',
    ],
    [{ body: { message: 'invalid object' } }, 'body', 'body: must be an object'],
    [
      {
        'body.scopes.$1': {
          message: union([
            { 'body.scopes.$1': { message: "should be one of the following; ['usage:write']" } },
            { 'body.scopes.$1': { message: "should be one of the following; ['usage:read']" } },
          ]),
        },
      },
      'scopes',
      'scopes: item 1 must be one of: usage:write, usage:read',
    ],
    [
      {
        'body.rate': {
          message: union([{ 'body.rate': { message: 'invalid string value' } }, { 'body.rate': { message: 'invalid float number' } }]),
        },
      },
      'rate',
      'rate: must be a string or a number',
    ],
    [{ 'body.events.$3.model': { message: 'invalid string value' } }, 'events[3].model', 'events[3].model: must be a string'],
    [{ 'body.kind': { message: "should be one of the following; ['a','b']" } }, 'kind', 'kind: must be one of: a, b'],
  ])('%j', (fields, field, message) => {
    const err = fromTsoaValidateError(new ValidateError(fields as never, ''));
    expect(err.field).toBe(field);
    expect(err.message).toBe(message);
    expect(err.details?.field).toBe(field);
  });

  it('names unknown fields before any other fault, all of them', () => {
    const err = fromTsoaValidateError(
      new ValidateError(
        {
          'body.name': { message: "'name' is required" },
          'body.nme': { message: '"nme" is an excess property and therefore is not allowed', value: 'nme' },
          'body.size': { message: '"size" is an excess property and therefore is not allowed', value: 'size' },
        } as never,
        '',
      ),
    );
    expect(err.field).toBe('nme');
    expect(err.message).toBe('nme: unknown fields nme, size');
    expect(err.details?.unknownFields).toEqual(['nme', 'size']);
  });

  it('names unknown fields of an inline object type under the object', () => {
    const err = fromTsoaValidateError(
      new ValidateError(
        { 'body.meta': { message: '"a,b" is an excess property and therefore is not allowed', value: { a: 1, b: 2 } } } as never,
        '',
      ),
    );
    expect(err.details?.unknownFields).toEqual(['meta.a', 'meta.b']);
  });

  it('keeps custom messages and rewords unmatched unions', () => {
    expect(humanizeTsoaMessage('must not be empty')).toBe('must not be empty');
    expect(humanizeTsoaMessage(union([{ x: { message: 'minLength 3' } }]))).toBe('does not match any allowed type');
  });
});
