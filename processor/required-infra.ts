// What the processor cannot run without, checked once where it starts (in-process or before its
// worker thread is launched): no retry cures a missing address, so the start fails at once.
import type { Infra } from '../core/process-host.js';

export function requireProcessorInfra(infra: Infra): { kafkaBrokers: string[]; schemaRegistryUrl: string } {
  if (!infra.kafkaBrokers) throw new Error('the processor needs Kafka: set KAFKA_BROKERS');
  if (!infra.schemaRegistryUrl) throw new Error('the processor needs the schema registry: set SCHEMA_REGISTRY_URL');
  return { kafkaBrokers: infra.kafkaBrokers, schemaRegistryUrl: infra.schemaRegistryUrl };
}
