import { beforeEach, describe, expect, it } from 'vitest';
import {
  emptyRegistryState,
  RegistryError,
  SchemaRegistryModel,
  type RegistryState,
} from '../../../../scripts/schema-registry/registry.js';

const schema = (fields: object[]) => JSON.stringify({ type: 'record', name: 'Event', namespace: 't', fields });
const V1 = schema([{ name: 'a', type: 'string' }]);
const V1_RESPELLED = `{ "namespace": "t", "fields": [{"type": {"type": "string"}, "name": "a"}], "name": "Event", "type": "record" }`;
const V2_OPTIONAL = schema([
  { name: 'a', type: 'string' },
  { name: 'b', type: ['null', 'long'], default: null },
]);
const V2_REQUIRED = schema([
  { name: 'a', type: 'string' },
  { name: 'b', type: 'long' },
]);
const A_AS_LONG = schema([{ name: 'a', type: 'long' }]);

/** Runs `fn` and returns the RegistryError it throws as [status, error_code]. */
function failure(fn: () => unknown): [number, number] {
  try {
    fn();
  } catch (e) {
    if (e instanceof RegistryError) return [e.status, e.errorCode];
    throw e;
  }
  throw new Error('expected a RegistryError');
}

describe('SchemaRegistryModel', () => {
  let saved: RegistryState[];
  let model: SchemaRegistryModel;

  beforeEach(() => {
    saved = [];
    model = new SchemaRegistryModel(emptyRegistryState(), (s) => saved.push(structuredClone(s)));
  });

  it('gives an identical schema (however spelled) its existing id and no new version', () => {
    expect(model.register('s-value', { schema: V1 })).toEqual({ id: 1 });
    expect(model.register('s-value', { schema: V1_RESPELLED })).toEqual({ id: 1 });
    expect(model.versions('s-value')).toEqual([1]);
    expect(saved).toHaveLength(1);
  });

  it('numbers schemas globally: the same schema in another subject keeps its id', () => {
    model.register('a-value', { schema: V1 });
    expect(model.register('b-value', { schema: V1 })).toEqual({ id: 1 });
    expect(model.register('b-value', { schema: V2_OPTIONAL })).toEqual({ id: 2 });
    expect(model.version('b-value', 'latest')).toEqual({ subject: 'b-value', version: 2, id: 2, schema: V2_OPTIONAL });
    expect(model.versionsOfSchema(1)).toEqual([
      { subject: 'a-value', version: 1 },
      { subject: 'b-value', version: 1 },
    ]);
    expect(model.subjects()).toEqual(['a-value', 'b-value']);
  });

  it('refuses an incompatible version with 409 under the default BACKWARD and changes nothing', () => {
    model.register('s-value', { schema: V1 });
    expect(failure(() => model.register('s-value', { schema: V2_REQUIRED }))).toEqual([409, 409]);
    expect(failure(() => model.register('s-value', { schema: A_AS_LONG }))).toEqual([409, 409]);
    expect(model.versions('s-value')).toEqual([1]);
    expect(saved).toHaveLength(1);
    // The next accepted schema still gets id 2: refused schemas take no id.
    expect(model.register('s-value', { schema: V2_OPTIONAL })).toEqual({ id: 2 });
  });

  it('uses the subject level over the global one', () => {
    model.register('s-value', { schema: V1 });
    expect(failure(() => model.subjectConfig('s-value', false))).toEqual([404, 40408]);
    expect(model.subjectConfig('s-value', true)).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect(model.setSubjectConfig('s-value', { compatibility: 'NONE' })).toEqual({ compatibility: 'NONE' });
    expect(model.register('s-value', { schema: A_AS_LONG })).toEqual({ id: 2 });
    expect(model.deleteSubjectConfig('s-value')).toEqual({ compatibilityLevel: 'NONE' });
    // Back under BACKWARD: {a: string, b: long} cannot read the latest version's long a.
    expect(failure(() => model.register('s-value', { schema: V2_REQUIRED }))).toEqual([409, 409]);
    expect(failure(() => model.setGlobalConfig({ compatibility: 'SIDEWAYS' }))).toEqual([422, 42203]);
    expect(model.setGlobalConfig({ compatibility: 'none' })).toEqual({ compatibility: 'NONE' });
    expect(model.globalConfig()).toEqual({ compatibilityLevel: 'NONE' });
  });

  it('answers lookups and reads with Confluent error codes', () => {
    model.register('s-value', { schema: V1 });
    expect(model.lookup('s-value', { schema: V1_RESPELLED })).toEqual({ subject: 's-value', version: 1, id: 1, schema: V1 });
    expect(failure(() => model.lookup('other', { schema: V1 }))).toEqual([404, 40401]);
    expect(failure(() => model.lookup('s-value', { schema: V2_OPTIONAL }))).toEqual([404, 40403]);
    expect(failure(() => model.schemaById(99))).toEqual([404, 40403]);
    expect(failure(() => model.versions('other'))).toEqual([404, 40401]);
    expect(failure(() => model.version('s-value', '2'))).toEqual([404, 40402]);
    expect(failure(() => model.version('s-value', 'first'))).toEqual([422, 42202]);
    expect(model.version('s-value', '-1').id).toBe(1);
  });

  it('refuses schemas that are not Avro, use references or are empty with 422 / 42201', () => {
    expect(failure(() => model.register('s', { schema: '{"type":"record"' }))).toEqual([422, 42201]);
    expect(failure(() => model.register('s', { schema: schema([{ name: 'a', type: 'nope' }]) }))).toEqual([422, 42201]);
    expect(failure(() => model.register('s', {}))).toEqual([422, 42201]);
    expect(failure(() => model.register('s', { schema: '{}', schemaType: 'PROTOBUF' }))).toEqual([422, 42201]);
    const references = [{ name: 'x', subject: 'x', version: 1 }];
    expect(failure(() => model.register('s', { schema: V1, references }))).toEqual([422, 42201]);
  });

  it('tests compatibility without registering', () => {
    model.register('s-value', { schema: V1 });
    expect(model.testCompatibility('s-value', 'latest', { schema: V2_OPTIONAL })).toEqual({ is_compatible: true, messages: [] });
    expect(model.testCompatibility('s-value', '1', { schema: V2_REQUIRED }).is_compatible).toBe(false);
    expect(model.testCompatibility('new-value', 'latest', { schema: V2_REQUIRED }).is_compatible).toBe(true);
    expect(model.versions('s-value')).toEqual([1]);
  });

  it('makes nothing visible when saving fails', () => {
    const failing = new SchemaRegistryModel(emptyRegistryState(), () => {
      throw new Error('disk full');
    });
    expect(() => failing.register('s-value', { schema: V1 })).toThrow('disk full');
    expect(failing.subjects()).toEqual([]);
    expect(failure(() => failing.schemaById(1))).toEqual([404, 40403]);
  });

  it('rebuilt from its saved state it keeps ids and continues numbering', () => {
    model.register('a-value', { schema: V1 });
    model.register('a-value', { schema: V2_OPTIONAL });
    model.deleteSubject('a-value');
    const reopened = new SchemaRegistryModel(saved[saved.length - 1]!, () => {});
    expect(reopened.subjects()).toEqual([]);
    expect(reopened.schemaById(2)).toEqual({ schema: V2_OPTIONAL });
    // A deleted subject's schema keeps its id when registered again; a new schema gets id 3.
    expect(reopened.register('b-value', { schema: V2_OPTIONAL })).toEqual({ id: 2 });
    expect(reopened.register('c-value', { schema: A_AS_LONG })).toEqual({ id: 3 });
  });
});
