import { describe, expect, it } from 'vitest';
import { dataFileName, groupDir, manifestPath, partitionOfManifestName, relativePath, tableColumns } from '../../../../core/lake/layout.js';
import { EVENTS_COLUMNS, EVENTS_INPUT_COLUMNS } from '../../../../core/lake/events-schema.js';
import { emptyRelationSql, parquetRelationSql, readParquetSql } from '../../../../core/lake/parquet-sql.js';
import { utcDate } from '../../../../core/time.js';

describe('lake layout', () => {
  it('places a group under table/org=/date=', () => {
    expect(groupDir('events', 'org_1', '2025-03-10')).toBe('events/org=org_1/date=2025-03-10');
    expect(groupDir('daily_costs', '0b9a5c1e-6f3d-4a8e-9c2b-1d7e5f4a3b21', '2024-12-31')).toBe(
      'daily_costs/org=0b9a5c1e-6f3d-4a8e-9c2b-1d7e5f4a3b21/date=2024-12-31',
    );
  });

  it.each(['../x', 'a/b', "o'rg", 'org*', 'org?', '[org]', '', 'a b'])('refuses organization id %j as a path component', (org) => {
    expect(() => groupDir('events', org, '2025-03-10')).toThrow(/organization id/);
  });

  it('refuses a date that is not YYYY-MM-DD', () => {
    expect(() => groupDir('events', 'org', '2025-3-10')).toThrow(/YYYY-MM-DD/);
  });

  it('names manifests by partition and ignores temp files', () => {
    expect(manifestPath('/lake', 12)).toBe('/lake/_manifests/partition-12.json');
    expect(partitionOfManifestName('partition-12.json')).toBe(12);
    expect(partitionOfManifestName('partition-12.json.tmp-1-abc')).toBeNull();
    expect(partitionOfManifestName('events')).toBeNull();
  });

  it('gives every data file a new name that says where it came from', () => {
    const a = dataFileName(3, 'flush');
    expect(a).toMatch(/^p3-flush-[0-9a-f-]{36}\.parquet$/);
    expect(dataFileName(3, 'flush')).not.toBe(a);
  });

  it('keeps relative paths inside the lake', () => {
    expect(relativePath('/lake', '/lake/events/org=a/date=2025-01-01/f.parquet')).toBe('events/org=a/date=2025-01-01/f.parquet');
    expect(() => relativePath('/lake', '/elsewhere/f.parquet')).toThrow(/outside/);
  });
});

describe('events schema', () => {
  it('derives event_date as the UTC date of the event timestamp', () => {
    expect(utcDate(new Date('2025-03-10T23:59:59.999Z'))).toBe('2025-03-10');
    expect(utcDate(new Date('2025-03-11T00:30:00+02:00'))).toBe('2025-03-10');
  });

  it('lists event_date only among the stored columns, not the input ones', () => {
    expect(EVENTS_COLUMNS.map((c) => c.name)).toContain('event_date');
    expect(EVENTS_INPUT_COLUMNS.map((c) => c.name)).not.toContain('event_date');
    expect(EVENTS_COLUMNS).toHaveLength(EVENTS_INPUT_COLUMNS.length + 1);
  });

  it('keeps money as DECIMAL(38,12) in every table', () => {
    const money = tableColumns('daily_costs')
      .filter((c) => c.kind === 'decimal')
      .map((c) => c.name);
    expect(money).toEqual([
      'input_cost',
      'output_cost',
      'cache_creation_cost',
      'cache_read_cost',
      'reasoning_cost',
      'unit_cost',
      'total_cost',
    ]);
    expect(tableColumns('session_spans').find((c) => c.name === 'own_cost')?.kind).toBe('decimal');
  });
});

describe('parquet relation SQL', () => {
  it('quotes paths and turns hive partition columns off', () => {
    expect(parquetRelationSql(["/lake/it's.parquet"], EVENTS_COLUMNS)).toBe(
      "(SELECT * FROM read_parquet(['/lake/it''s.parquet'], union_by_name = true, hive_partitioning = false))",
    );
  });

  it('is the one writer of read_parquet text, with the filename column on request', () => {
    expect(readParquetSql(['/a.parquet', "/b'c.parquet"], { filename: true })).toBe(
      "read_parquet(['/a.parquet', '/b''c.parquet'], filename = true, union_by_name = true, hive_partitioning = false)",
    );
  });

  it('gives an empty relation with typed columns when there are no files', () => {
    expect(
      emptyRelationSql([
        { name: 'total_cost', kind: 'decimal', nullable: false },
        { name: 'n', kind: 'bigint', nullable: true },
      ]),
    ).toBe('(SELECT CAST(NULL AS DECIMAL(38,12)) AS "total_cost", CAST(NULL AS BIGINT) AS "n" WHERE false)');
  });
});
