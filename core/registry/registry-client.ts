// The one way services reach the schema registry: @kafkajs/confluent-schema-registry configured
// with our avsc options, so every avsc Type the client builds (and caches by schema id) decodes
// timestamp-millis as Date and reads nullable unions as plain values, never wrapped.
import avro from 'avsc';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';

/** timestamp-millis <-> Date. Writes only Dates (a number is a caller bug); reads long or timestamp-millis. */
class TimestampMillisType extends avro.types.LogicalType {
  protected override _fromValue(val: number): Date {
    return new Date(val);
  }

  protected override _toValue(date: unknown): number | undefined {
    // undefined tells avsc the value is invalid for this type.
    return date instanceof Date && !Number.isNaN(date.getTime()) ? date.getTime() : undefined;
  }

  protected override _resolve(type: avro.Type): ((val: number) => Date) | undefined {
    if (avro.Type.isType(type, 'long', 'logical:timestamp-millis')) return (val: number) => this._fromValue(val);
    return undefined;
  }
}

/** avsc options for every Avro type in the pipeline. */
export const AVRO_TYPE_OPTIONS = {
  logicalTypes: { 'timestamp-millis': TimestampMillisType },
  // Our TypeScript types hold `string | null`, not `{string: "x"}`; 'never' keeps that true even
  // for unions avsc's 'auto' mode would wrap (for example ["int", "long"]).
  wrapUnions: 'never',
} satisfies Partial<avro.ForSchemaOptions>;

export function createRegistryClient(url: string): SchemaRegistry {
  return new SchemaRegistry({ host: url, clientId: 'marginal' }, { [SchemaType.AVRO]: AVRO_TYPE_OPTIONS });
}
