import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { stageEvents } from '../../../../processor/lake/event-staging.js';
import { lakeEvent } from '../../../support/lake-event-builder.js';

let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  conn = await instance.connect();
});

afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

async function staged(sql: string): Promise<Record<string, string | null>[]> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJS().map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])));
}

describe('stageEvents', () => {
  it('stores money exactly as DECIMAL(38,12), rounding past 12 places half away from zero like the VARCHAR cast', async () => {
    const costs = [
      '0',
      '-0',
      '0.000000000001',
      '-0.000000000001',
      '12.5',
      '0.0000000000005', // 13th digit 5: up
      '0.00000000000049999', // 13th digit 4: down
      '-0.0000000000015', // away from zero
      '9007.199254740991', // the largest value whose scaled integer is below 2^53
      '9007.199254740992',
      '123456789012345678.123456789012',
      '-99999999999999999999999999.999999999999', // 26 integer digits: the column's limit
      '00042.10',
      '1.5e3', // other spellings the VARCHAR cast took
      '.25',
    ];
    const rows = costs.map((c, i) => lakeEvent({ kafka_offset: i, total_cost: c }));
    await stageEvents(conn, 'money', rows);
    const got = await staged(`SELECT CAST(total_cost AS VARCHAR) AS c FROM money ORDER BY kafka_offset`);
    expect(got.map((r) => r.c)).toEqual([
      '0.000000000000',
      '0.000000000000',
      '0.000000000001',
      '-0.000000000001',
      '12.500000000000',
      '0.000000000001',
      '0.000000000000',
      '-0.000000000002',
      '9007.199254740991',
      '9007.199254740992',
      '123456789012345678.123456789012',
      '-99999999999999999999999999.999999999999',
      '42.100000000000',
      '1500.000000000000',
      '0.250000000000',
    ]);
  });

  it('stores timestamps, the derived event_date, integers, doubles, booleans and nulls', async () => {
    const row = lakeEvent({
      kafka_offset: 9_007_199_254_740_991,
      kafka_partition: 2_147_483_647,
      event_timestamp: new Date('1969-12-31T23:59:59.999Z'),
      received_at: new Date('2025-03-10T12:00:00.123Z'),
      started_at: null,
      priced_at: new Date('2262-04-12T00:00:00.001Z'), // microseconds beyond 2^53
      input_tokens: 0,
      output_tokens: 4_000_000_000,
      reasoning_tokens: null,
      quantity: 0.1,
      timestamp_provided: false,
      model: 'a\u0000b',
      user_id: '',
      metadata: '{"k":"é"}',
    });
    await stageEvents(conn, 'typed', [row]);
    const [got] = await staged(
      `SELECT strftime(event_timestamp, '%Y-%m-%d %H:%M:%S.%g') AS ts, CAST(event_date AS VARCHAR) AS d,
              strftime(received_at, '%Y-%m-%d %H:%M:%S.%g') AS rcv, started_at, strftime(priced_at, '%Y-%m-%d %H:%M:%S.%g') AS priced,
              kafka_offset, kafka_partition, input_tokens, output_tokens, reasoning_tokens, quantity = 0.1 AS q, timestamp_provided,
              length(model) AS model_len, user_id, metadata, typeof(kafka_offset) AS offset_type, typeof(total_cost) AS money_type
       FROM typed`,
    );
    expect(got).toEqual({
      ts: '1969-12-31 23:59:59.999',
      d: '1969-12-31',
      rcv: '2025-03-10 12:00:00.123',
      started_at: null,
      priced: '2262-04-12 00:00:00.001',
      kafka_offset: '9007199254740991',
      kafka_partition: '2147483647',
      input_tokens: '0',
      output_tokens: '4000000000',
      reasoning_tokens: null,
      q: 'true',
      timestamp_provided: 'false',
      model_len: '3',
      user_id: '',
      metadata: '{"k":"é"}',
      offset_type: 'BIGINT',
      money_type: 'DECIMAL(38,12)',
    });
  });

  it('fills several chunks and keeps each null where it was', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) =>
      lakeEvent({ kafka_offset: i, session_id: i % 3 === 0 ? `s-${i}` : null, cache_read_cost: i % 7 === 0 ? '0.5' : null }),
    );
    await stageEvents(conn, 'many', rows);
    const [got] = await staged(
      `SELECT count(*) AS n, count(session_id) AS sessions, count(cache_read_cost) AS cache, sum(kafka_offset) AS offsets,
              bool_and((session_id IS NOT NULL) = (kafka_offset % 3 = 0)) AS sessions_in_place,
              bool_and((cache_read_cost IS NOT NULL) = (kafka_offset % 7 = 0)) AS cache_in_place
       FROM many`,
    );
    expect(got).toEqual({
      n: '5000',
      sessions: '1667',
      cache: '715',
      offsets: String((4999 * 5000) / 2),
      sessions_in_place: 'true',
      cache_in_place: 'true',
    });
  });

  it('keeps every string exactly, short or long, ASCII or not, next to nulls in the same chunk', async () => {
    // Lengths 0..40 around DuckDB's 12-byte inline limit, some with non-ASCII or NUL characters.
    const text = (i: number): string | null => {
      if (i % 11 === 0) return null;
      const base = 'x'.repeat(i % 41);
      if (i % 5 === 0) return `${base}é`;
      if (i % 7 === 0) return `${base}\u0000`;
      return base;
    };
    const rows = Array.from({ length: 4500 }, (_, i) => lakeEvent({ kafka_offset: i, span_name: text(i), model: text(i + 3) ?? 'm' }));
    await stageEvents(conn, 'strings', rows);
    const got = (await conn.runAndReadAll(`SELECT span_name, model FROM strings ORDER BY kafka_offset`)).getRows();
    const mismatches = got.filter((r, i) => r[0] !== text(i) || r[1] !== (text(i + 3) ?? 'm'));
    expect(got).toHaveLength(4500);
    expect(mismatches).toEqual([]);
  });

  it('refuses a value the lake cannot hold, naming the row and column', async () => {
    const bad = [
      lakeEvent({ kafka_offset: 1, total_cost: '12 dollars' }),
      lakeEvent({ kafka_offset: 2, total_cost: '100000000000000000000000000' }), // 27 integer digits
      lakeEvent({ kafka_offset: 3, input_tokens: 1.5 }),
      lakeEvent({ kafka_offset: 4, event_timestamp: new Date(NaN) }),
      lakeEvent({ kafka_offset: 5, organization_id: null as unknown as string }),
    ];
    for (const row of bad) {
      await expect(stageEvents(conn, 'bad', [lakeEvent({ kafka_offset: 0 }), row])).rejects.toThrow(
        new RegExp(`lake row ${row.event_id}: \\w+ = .* is not a valid`),
      );
    }
  });
});
