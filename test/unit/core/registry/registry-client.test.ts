import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { AVRO_TYPE_OPTIONS } from '../../../../core/registry/registry-client.js';

const millis = { type: 'long', logicalType: 'timestamp-millis' };
const schema = {
  type: 'record',
  name: 'R',
  fields: [
    { name: 'at', type: millis },
    { name: 'maybe_at', type: ['null', millis], default: null },
    { name: 'n', type: ['null', 'long'], default: null },
    { name: 'either', type: ['int', 'string'] },
  ],
};

describe('AVRO_TYPE_OPTIONS', () => {
  const type = avro.Type.forSchema(schema as avro.Schema, AVRO_TYPE_OPTIONS);

  it('writes timestamp-millis from Date and reads it back as Date', () => {
    const value = { at: new Date('2024-02-29T23:59:59.999Z'), maybe_at: new Date(0), n: 42, either: 'x' };
    const buf = type.toBuffer(value);
    // On the wire it is the plain long of epoch milliseconds (2024-03-01T00:00:00Z is 1709251200000).
    const plain = avro.Type.forSchema({ type: 'record', name: 'R', fields: [{ name: 'at', type: 'long' }] });
    expect(plain.fromBuffer(buf, plain.createResolver(type)).at).toBe(1709251199999);
    expect(type.fromBuffer(buf)).toEqual(value);
    expect(type.fromBuffer(buf).at).toBeInstanceOf(Date);
  });

  it('reads nullable and multi-branch unions as plain values', () => {
    const value = { at: new Date(5), maybe_at: null, n: null, either: 7 };
    expect(type.fromBuffer(type.toBuffer(value))).toEqual(value);
  });

  it('refuses numbers and invalid Dates where a Date belongs', () => {
    expect(type.isValid({ at: 5, maybe_at: null, n: null, either: 1 })).toBe(false);
    expect(type.isValid({ at: new Date(NaN), maybe_at: null, n: null, either: 1 })).toBe(false);
  });

  it('reads a plain long written by an older schema as Date', () => {
    const older = avro.Type.forSchema({
      type: 'record',
      name: 'R',
      fields: [
        { name: 'at', type: 'long' },
        { name: 'either', type: ['int', 'string'] },
      ],
    });
    const buf = older.toBuffer({ at: 86_400_000, either: 'y' });
    expect(type.fromBuffer(buf, type.createResolver(older))).toEqual({
      at: new Date('1970-01-02T00:00:00Z'),
      maybe_at: null,
      n: null,
      either: 'y',
    });
  });
});
