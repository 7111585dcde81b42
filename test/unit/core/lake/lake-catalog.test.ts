import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../core/config.js';
import { connectStatements } from '../../../../core/lake/lake-catalog.js';

describe('connectStatements (what `lake connect` prints)', () => {
  it('S3 data and a PostgreSQL catalog: extensions, the bucket-scoped secret, a READ_ONLY attach, USE', () => {
    const { lake } = loadConfig({
      DATA_DIR: '/srv/m',
      LAKE_URL: 's3://acme-lake/prod',
      LAKE_CATALOG_URL: 'postgres://lake:pw@db:5432/marginal',
      LAKE_EXTENSION_DIR: '/opt/ext',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      AWS_ENDPOINT_URL: 'http://minio:9000',
    });
    const s = connectStatements(lake);
    expect(s.slice(0, 4)).toEqual(["SET extension_directory = '/opt/ext'", 'LOAD ducklake', 'LOAD httpfs', 'LOAD postgres_scanner']);
    expect(s[4]).toMatch(
      /^CREATE OR REPLACE SECRET marginal_lake_s3 \(TYPE s3, .*KEY_ID 'AKIAEXAMPLE', SECRET 'aws-secret'.*SCOPE 's3:\/\/acme-lake'\)$/,
    );
    expect(s[5]).toBe(
      "ATTACH 'ducklake:postgres:dbname=''marginal'' host=''db'' port=''5432'' user=''lake'' password=''pw'' connect_timeout=''10''' AS marginal (READ_ONLY, METADATA_SCHEMA 'ducklake')",
    );
    expect(s[6]).toBe('USE marginal');
    expect(s.join('\n')).not.toContain('DATA_PATH');
  });

  it('local data: no secret, no httpfs', () => {
    const { lake } = loadConfig({ DATA_DIR: '/srv/m', LAKE_CATALOG_URL: 'postgres://db/m', LAKE_EXTENSION_DIR: '/opt/ext' });
    expect(connectStatements(lake, 'lake_ro')).toEqual([
      "SET extension_directory = '/opt/ext'",
      'LOAD ducklake',
      'LOAD postgres_scanner',
      "ATTACH 'ducklake:postgres:dbname=''m'' host=''db'' port=''5432'' connect_timeout=''10''' AS lake_ro (READ_ONLY, METADATA_SCHEMA 'ducklake')",
      'USE lake_ro',
    ]);
  });
});
