import { describe, expect, it } from 'vitest';
import {
  compatibilityErrors,
  InvalidSchemaError,
  parseAvroSchema,
  type CompatibilityLevel,
} from '../../../../scripts/schema-registry/compatibility.js';

const record = (fields: object[]) => JSON.stringify({ type: 'record', name: 'R', namespace: 't', fields });
const type = (fields: object[]) => parseAvroSchema(record(fields)).type;

const v1 = [{ name: 'a', type: 'string' }];
const withOptional = [...v1, { name: 'b', type: ['null', 'string'], default: null }];
const withRequired = [...v1, { name: 'c', type: 'string' }];
const aAsLong = [{ name: 'a', type: 'long' }];

function check(level: CompatibilityLevel, candidate: object[], ...history: object[][]): boolean {
  const existing = history.map((fields, i) => ({ version: i + 1, type: type(fields) }));
  return compatibilityErrors(level, type(candidate), existing).length === 0;
}

describe('parseAvroSchema identity', () => {
  it('ignores key order, whitespace and {"type": primitive} spelling', () => {
    const a = parseAvroSchema('{"type":"record","name":"R","fields":[{"name":"x","type":"long"}]}');
    const b = parseAvroSchema('{ "fields": [ { "type": {"type": "long"}, "name": "x" } ],\n "name": "R", "type": "record" }');
    expect(a.identity).toBe(b.identity);
  });

  it('keeps attributes that change what readers see: defaults, docs, logical types, field order', () => {
    const base = parseAvroSchema(record([{ name: 'x', type: 'long' }])).identity;
    expect(parseAvroSchema(record([{ name: 'x', type: 'long', default: 0 }])).identity).not.toBe(base);
    expect(parseAvroSchema(record([{ name: 'x', type: 'long', doc: 'd' }])).identity).not.toBe(base);
    expect(parseAvroSchema(record([{ name: 'x', type: { type: 'long', logicalType: 'timestamp-millis' } }])).identity).not.toBe(base);
    const ab = parseAvroSchema(
      record([
        { name: 'a', type: 'int' },
        { name: 'b', type: 'int' },
      ]),
    ).identity;
    const ba = parseAvroSchema(
      record([
        { name: 'b', type: 'int' },
        { name: 'a', type: 'int' },
      ]),
    ).identity;
    expect(ab).not.toBe(ba);
  });

  it('rejects text that is not JSON or not Avro', () => {
    expect(() => parseAvroSchema('{nope')).toThrow(InvalidSchemaError);
    expect(() => parseAvroSchema(record([{ name: 'a', type: 'no_such_type' }]))).toThrow(/undefined type name: t.no_such_type/);
    expect(() => parseAvroSchema(record([{ name: 'a', type: 'string', default: 3 }]))).toThrow(InvalidSchemaError);
  });
});

describe('compatibilityErrors', () => {
  it('accepts anything as the first version and anything under NONE', () => {
    expect(check('BACKWARD', withRequired)).toBe(true);
    expect(check('NONE', aAsLong, v1)).toBe(true);
  });

  it('BACKWARD: the new schema must read the latest version', () => {
    expect(check('BACKWARD', withOptional, v1)).toBe(true); // missing field filled from default
    expect(check('BACKWARD', withRequired, v1)).toBe(false); // c has no default
    expect(check('BACKWARD', aAsLong, v1)).toBe(false); // string cannot be read as long
    expect(check('BACKWARD', [], v1)).toBe(true); // dropping a field: the reader skips it
  });

  it('FORWARD: the latest version must read the new schema', () => {
    expect(check('FORWARD', withRequired, v1)).toBe(true); // old reader ignores c
    expect(check('FORWARD', [], v1)).toBe(false); // old reader needs a, which has no default
  });

  it('FULL: both directions', () => {
    expect(check('FULL', withOptional, v1)).toBe(true);
    expect(check('FULL', withRequired, v1)).toBe(false);
    expect(check('FULL', [], v1)).toBe(false);
  });

  it('plain levels compare with the latest version only, _TRANSITIVE ones with every version', () => {
    // v1 {a: string} -> v2 {} -> candidate {a: long = 0}: reads v2 (default), cannot read v1's string a.
    const candidate = [{ name: 'a', type: 'long', default: 0 }];
    expect(check('BACKWARD', candidate, v1, [])).toBe(true);
    expect(check('BACKWARD_TRANSITIVE', candidate, v1, [])).toBe(false);
    // v1 {a: string} -> v2 {a: string = ""} -> candidate {}: v2 reads it (default), v1 cannot (no default).
    const aWithDefault = [{ name: 'a', type: 'string', default: '' }];
    expect(check('FORWARD', [], v1, aWithDefault)).toBe(true);
    expect(check('FORWARD_TRANSITIVE', [], v1, aWithDefault)).toBe(false);
    expect(check('FULL_TRANSITIVE', withOptional, v1, v1)).toBe(true);
  });

  it('names the version and the reason', () => {
    const errors = compatibilityErrors('BACKWARD', type(aAsLong), [{ version: 7, type: type(v1) }]);
    expect(errors).toEqual(['new schema cannot read data written with version 7: cannot read "string" as "long"']);
  });
});
