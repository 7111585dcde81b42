// The Kafka broker for a test run: a Testcontainers KafkaContainer when a Docker engine answers,
// else the local KRaft broker of scripts/kafka on a free port with its data under tmpDir.
// MARGINAL_TEST_KAFKA=local|docker forces one of the two.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { findFreePort, startBroker } from '../../scripts/kafka/broker.js';

export interface TestKafka {
  brokers: string[];
  stop(): Promise<void>;
}

/** Confluent Platform 7.9 ships Apache Kafka 3.9, the line the local broker pins. */
const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.9.0';
const DOCKER_PROBE_MS = 3_000;

/** True when `docker info` reaches an engine within 3 s (the CLI alone is not enough). */
function dockerEngineAnswers(timeoutMs = DOCKER_PROBE_MS): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: timeoutMs }, (err, stdout) => {
      resolve(!err && stdout.trim().length > 0);
    });
  });
}

async function startContainerKafka(): Promise<TestKafka> {
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const container = await new KafkaContainer(KAFKA_IMAGE)
    .withKraft()
    // Same rule as the local broker: topics are created explicitly.
    .withEnvironment({ KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false' })
    .start();
  return {
    brokers: [`${container.getHost()}:${container.getMappedPort(9093)}`],
    stop: async () => {
      await container.stop();
    },
  };
}

export async function startTestKafka(tmpDir: string): Promise<TestKafka> {
  const forced = process.env.MARGINAL_TEST_KAFKA;
  const useDocker = forced === 'docker' || (forced !== 'local' && (await dockerEngineAnswers()));
  if (useDocker) return startContainerKafka();
  const broker = await startBroker({ port: await findFreePort(), dataDir: path.join(tmpDir, 'kafka') });
  return { brokers: broker.brokers, stop: broker.stop };
}
