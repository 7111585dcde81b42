// The open lake's settings as core/config.ts reads them: where the data and the catalog live, the
// S3 settings from the standard AWS variables overridden by Marginal's own, and credentials that
// print as "[redacted]" wherever a config is logged or inspected.
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, embeddedLakeCatalogDir, loadConfig } from '../../../core/config.js';

const base = { DATA_DIR: '/srv/marginal' };

describe('lake settings', () => {
  it('all-in-one default: data under $DATA_DIR/lake, the catalog npm start runs under $DATA_DIR/lake-catalog, the project extension cache', () => {
    const { lake } = loadConfig(base);
    expect(lake.dataPath).toBe('/srv/marginal/lake/');
    expect(lake.catalog).toEqual({ kind: 'embedded', dir: '/srv/marginal/lake-catalog' });
    expect(lake.s3).toBeNull();
    expect(lake.extensionDirectory).toBe(path.resolve('.cache/duckdb-extensions'));
    expect(embeddedLakeCatalogDir(base)).toBe('/srv/marginal/lake-catalog');
    // Named by the user (or by npm start, once its server has a port): no server of our own.
    expect(embeddedLakeCatalogDir({ ...base, LAKE_CATALOG_URL: 'postgres://lake@cat/lake' })).toBeNull();
    expect(embeddedLakeCatalogDir({ ...base, DATABASE_URL: 'postgres://m@db/marginal' })).toBeNull();
  });

  it('LAKE_FORMAT: the open lake, unset or ducklake; files is refused, naming the migration', () => {
    expect(() => loadConfig(base)).not.toThrow();
    expect(() => loadConfig({ ...base, LAKE_FORMAT: 'ducklake', DATABASE_URL: 'postgres://m@db/marginal' })).not.toThrow();
    expect(() => loadConfig({ ...base, LAKE_FORMAT: 'files' })).toThrow(/npm run cli -- lake migrate/);
    expect(() => loadConfig({ ...base, LAKE_FORMAT: 'iceberg' })).toThrow(ConfigError);
    // The api and the processor each open the lake: only a PostgreSQL catalog shows one the other's commits.
    expect(() => loadConfig({ ...base, LAKE_CATALOG_URL: '/srv/marginal/catalog.ducklake' })).toThrow(/PostgreSQL catalog/);
    expect(() => loadConfig({ ...base, LAKE_CATALOG_URL: 'sqlite:./x.sqlite' })).toThrow(/PostgreSQL catalog/);
    expect(() => loadConfig({ ...base, LAKE_CATALOG_URL: 'mysql://x/y' })).toThrow(ConfigError);
  });

  it("LAKE_DIR: where lake migrate finds an old lake, and the open lake's folder when LAKE_URL is unset", () => {
    expect(loadConfig({ ...base, LAKE_DIR: '/mnt/old' }).lakeDir).toBe('/mnt/old');
    expect(loadConfig(base).lakeDir).toBe('/srv/marginal/lake');
  });

  it('an unset LAKE_URL follows LAKE_DIR, the folder of the lake either way', () => {
    expect(loadConfig({ ...base, LAKE_DIR: '/mnt/lake' }).lake.dataPath).toBe('/mnt/lake/');
    expect(loadConfig({ ...base, LAKE_DIR: '/mnt/lake', LAKE_URL: '/mnt/open' }).lake.dataPath).toBe('/mnt/open/');
  });

  it('distributed default: the catalog is the control-plane database; LAKE_CATALOG_URL overrides it', () => {
    const viaDatabase = loadConfig({ ...base, DATABASE_URL: 'postgres://m:pw@db:5432/marginal' }).lake.catalog;
    expect(viaDatabase.kind).toBe('postgres');
    if (viaDatabase.kind === 'postgres') expect(viaDatabase.url.reveal()).toBe('postgres://m:pw@db:5432/marginal');
    const own = loadConfig({ ...base, DATABASE_URL: 'postgres://a@b/c', LAKE_CATALOG_URL: 'postgresql://lake@cat:6543/lake' }).lake.catalog;
    if (own.kind === 'postgres') expect(own.url.reveal()).toBe('postgresql://lake@cat:6543/lake');
  });

  it('LAKE_URL on S3 takes the standard AWS variables: AWS S3 itself is https and virtual-host style', () => {
    const { lake } = loadConfig({
      ...base,
      LAKE_URL: 's3://acme-lake/marginal/prod',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      AWS_REGION: 'eu-west-1',
    });
    expect(lake.dataPath).toBe('s3://acme-lake/marginal/prod/');
    expect(lake.s3).toMatchObject({ region: 'eu-west-1', endpoint: null, useSsl: true, urlStyle: 'vhost', accessKeyId: 'AKIAEXAMPLE' });
    expect(lake.s3?.secretAccessKey.reveal()).toBe('aws-secret');
    expect(lake.s3?.sessionToken).toBeNull();
    expect(loadConfig({ ...base, LAKE_URL: 's3://acme-lake', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' }).lake).toMatchObject({
      dataPath: 's3://acme-lake/',
      s3: { region: 'us-east-1' },
    });
  });

  it("Marginal's MARGINAL_S3_* override the AWS variables one by one; an endpoint means path style unless told", () => {
    const env = {
      ...base,
      LAKE_URL: 's3://lake/p/',
      AWS_ACCESS_KEY_ID: 'aws-id',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL: 'https://s3.example.com',
      MARGINAL_S3_ACCESS_KEY_ID: 'own-id',
      MARGINAL_S3_SECRET_ACCESS_KEY: 'own-secret',
      MARGINAL_S3_ENDPOINT_URL: 'http://127.0.0.1:9000',
      AWS_SESSION_TOKEN: 'token',
    };
    const s3 = loadConfig(env).lake.s3;
    expect(s3).toMatchObject({ region: 'eu-west-1', endpoint: '127.0.0.1:9000', useSsl: false, urlStyle: 'path', accessKeyId: 'own-id' });
    expect(s3?.secretAccessKey.reveal()).toBe('own-secret');
    expect(s3?.sessionToken?.reveal()).toBe('token');
    expect(loadConfig({ ...env, MARGINAL_S3_URL_STYLE: 'vhost' }).lake.s3?.urlStyle).toBe('vhost');
    expect(() => loadConfig({ ...env, MARGINAL_S3_URL_STYLE: 'virtual' })).toThrow(/path or vhost/);
    expect(() => loadConfig({ ...env, MARGINAL_S3_ENDPOINT_URL: 'http://h:9000/bucket' })).toThrow(ConfigError);
  });

  it('refuses S3 without keys, and lake URLs it cannot use', () => {
    expect(() => loadConfig({ ...base, LAKE_URL: 's3://lake/p', AWS_ACCESS_KEY_ID: 'k' })).toThrow(/AWS_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ ...base, LAKE_URL: 'gs://lake/p' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, LAKE_URL: 's3://A_bucket/p', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' })).toThrow(
      ConfigError,
    );
  });

  it('credentials never print: JSON (what pino logs), util.inspect and template strings show [redacted]', () => {
    const config = loadConfig({
      ...base,
      LAKE_URL: 's3://lake/p',
      AWS_ACCESS_KEY_ID: 'k',
      AWS_SECRET_ACCESS_KEY: 'very-secret-key',
      AWS_SESSION_TOKEN: 'very-secret-token',
      LAKE_CATALOG_URL: 'postgres://lake:very-secret-password@db/lake',
    });
    for (const printed of [JSON.stringify(config), inspect(config, { depth: 10 }), `${config.lake.s3?.secretAccessKey}`]) {
      expect(printed).not.toMatch(/very-secret/);
    }
    expect(JSON.stringify(config.lake.s3)).toContain('"secretAccessKey":"[redacted]"');
  });
});
