// The producer's speed-ups must not change a byte on the wire: the memoized partitioner against
// kafkajs's own, and the patched kafkajs encoder (patches/kafkajs+2.2.4.patch) against varint
// bytes worked out by hand and against its unpatched Long path.
import { createRequire } from 'node:module';
import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { memoizedKeyPartitioner } from '../../../../core/kafka/client.js';

const require = createRequire(import.meta.url);
type EncoderInstance = { writeVarLong(v: unknown): EncoderInstance; writeVarInt(v: number): EncoderInstance; buffer: Buffer };
const Encoder = require('kafkajs/src/protocol/encoder.js') as {
  new (): EncoderInstance;
  isInt32?: (v: unknown) => boolean;
  sizeOfVarLong(v: unknown): number;
};
const Long = require('kafkajs/src/utils/long.js') as { fromNumber(n: number): unknown };
const crc32C = require('kafkajs/src/protocol/recordBatch/crc32C/index.js') as (b: Buffer) => number;
const groupMessagesPerPartition = require('kafkajs/src/producer/groupMessagesPerPartition.js') as (
  args: unknown,
) => Record<string, Array<{ key: string }>>;

const meta = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ partitionId: i, leader: 1, partitionErrorCode: 0, replicas: [1], isr: [1] }));

describe('memoizedKeyPartitioner', () => {
  it('gives the default partitioner’s answer for every key and partition count, also when asked again', () => {
    const memo = memoizedKeyPartitioner();
    const plain = Partitioners.DefaultPartitioner();
    for (const n of [1, 3, 4, 12]) {
      for (let i = 0; i < 300; i++) {
        const message = { key: `0b0e7a0c-7a6e-4c55-9a2a-${String(i).padStart(12, '0')}`, value: 'v' };
        const args = { topic: 'usage-events', partitionMetadata: meta(n), message };
        const expected = plain(args);
        expect(memo(args)).toBe(expected);
        expect(memo(args)).toBe(expected);
      }
    }
  });

  it('honours an explicit partition', () => {
    const memo = memoizedKeyPartitioner();
    expect(memo({ topic: 't', partitionMetadata: meta(4), message: { key: 'k', value: 'v', partition: 3 } })).toBe(3);
  });
});

describe('patched kafkajs encoder', () => {
  it('is installed (npm install runs patch-package)', () => {
    expect(typeof Encoder.isInt32).toBe('function');
  });

  it('writes zig-zag varints as worked out by hand', () => {
    const bytes = (v: number) => [...new Encoder().writeVarLong(v).buffer];
    expect(bytes(0)).toEqual([0x00]);
    expect(bytes(-1)).toEqual([0x01]);
    expect(bytes(1)).toEqual([0x02]);
    expect(bytes(150)).toEqual([0xac, 0x02]); // zig-zag 300 = 0b10_0101100
    expect(bytes(2 ** 31 - 1)).toEqual([0xfe, 0xff, 0xff, 0xff, 0x0f]);
    expect(bytes(-(2 ** 31))).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
  });

  it('matches the 64-bit path for every int32 edge and beyond it', () => {
    const values = [0, 1, -1, 63, 64, -64, -65, 8191, 8192, 2 ** 20, -(2 ** 20), 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 2 ** 40, -(2 ** 40)];
    for (const v of values) {
      const fast = new Encoder().writeVarLong(v).buffer;
      const slow = new Encoder().writeVarLong(Long.fromNumber(v)).buffer;
      expect(fast.equals(slow)).toBe(true);
      expect(Encoder.sizeOfVarLong(v)).toBe(slow.length);
    }
  });

  it('computes CRC-32C like a bit-at-a-time reference (slice-by-8 patch)', () => {
    // Reflected Castagnoli polynomial, one bit at a time: slow and obviously right.
    const reference = (b: Buffer) => {
      let crc = 0xffffffff;
      for (const byte of b) {
        crc ^= byte;
        for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
      }
      return (crc ^ 0xffffffff) >>> 0;
    };
    expect(crc32C(Buffer.from('123456789'))).toBe(0xe3069283); // the published check value
    for (const length of [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4099]) {
      const b = Buffer.alloc(length);
      for (let i = 0; i < length; i++) b[i] = (i * 131 + length * 7) & 0xff;
      expect(crc32C(b)).toBe(reference(b));
    }
  });

  it('groups messages per partition in their original order', () => {
    const messages = Array.from({ length: 2000 }, (_, i) => ({ key: `k${i % 7}`, value: String(i) }));
    const partitioner = Partitioners.DefaultPartitioner();
    const grouped = groupMessagesPerPartition({ topic: 't', partitionMetadata: meta(4), messages, partitioner });
    const flat = Object.values(grouped).flat();
    expect(flat).toHaveLength(2000);
    for (const list of Object.values(grouped)) {
      const order = list.map((m) => Number((m as unknown as { value: string }).value));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });
});
