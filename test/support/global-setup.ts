// Starts the real infrastructure once per `vitest run` and hands its addresses to the test files
// through provide/inject: a Kafka broker (KAFKA_BROKERS when set; else Testcontainers when a
// Docker engine answers; else the local broker of scripts/kafka), the dev schema registry
// (SCHEMA_REGISTRY_URL when set) and a real PostgreSQL (TEST_DATABASE_URL when set; else a
// throwaway cluster when the PostgreSQL binaries are installed).
// MARGINAL_TEST_NO_KAFKA=1 skips the broker; MARGINAL_TEST_UNIT=1 (npm run test:unit) skips all of it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    schemaRegistryUrl: string;
    postgresUrl: string;
  }
}

type Stop = () => Promise<void>;

export default async function setup(project: TestProject): Promise<Stop> {
  const stops: Stop[] = [];
  if (process.env.MARGINAL_TEST_UNIT === '1') {
    project.provide('kafkaBrokers', '');
    project.provide('schemaRegistryUrl', '');
    project.provide('postgresUrl', '');
    return async () => undefined;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-test-'));

  let kafkaBrokers = process.env.KAFKA_BROKERS ?? '';
  if (!kafkaBrokers && process.env.MARGINAL_TEST_NO_KAFKA !== '1') {
    const { startTestKafka } = await import('./kafka.js');
    const kafka = await startTestKafka(tmp);
    kafkaBrokers = kafka.brokers.join(',');
    stops.push(kafka.stop);
  }
  project.provide('kafkaBrokers', kafkaBrokers);

  let registryUrl = process.env.SCHEMA_REGISTRY_URL ?? '';
  if (!registryUrl) {
    const { startSchemaRegistry } = await import('../../scripts/schema-registry/server.js');
    const registry = await startSchemaRegistry({ host: '127.0.0.1', port: 0, file: path.join(tmp, 'registry.json') });
    registryUrl = registry.url;
    stops.push(registry.stop);
  }
  project.provide('schemaRegistryUrl', registryUrl);

  let postgresUrl = process.env.TEST_DATABASE_URL ?? '';
  if (!postgresUrl) {
    const { startTestPostgres } = await import('./postgres.js');
    const pg = await startTestPostgres(tmp);
    if (pg) {
      postgresUrl = pg.url;
      stops.push(pg.stop);
    }
  }
  project.provide('postgresUrl', postgresUrl);

  return async () => {
    for (const stop of stops.reverse()) await stop().catch((e) => console.error('teardown:', e));
    fs.rmSync(tmp, { recursive: true, force: true });
  };
}
