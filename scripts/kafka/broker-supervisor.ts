// Keeps the all-in-one's local broker running (scripts/supervised-child.ts: restarted with backoff
// on the same port and data when the JVM exits unasked). The services' kafkajs clients reconnect
// to the same address by themselves; meanwhile ingest answers 503 and the processor retries.
import type { Logger } from '../../core/logger.js';
import { superviseChild, type Supervision } from '../supervised-child.js';
import { startBroker, type StartBrokerOptions } from './broker.js';

export interface SupervisedBroker {
  brokers: string[];
  /** The running JVM's pid, null while it is down. */
  pid(): number | null;
  /** Brokers started after the first (tests, metrics). */
  restarts(): number;
  stop(): Promise<void>;
}

export async function superviseBroker(opts: StartBrokerOptions, logger: Logger, supervision: Supervision = {}): Promise<SupervisedBroker> {
  const supervised = await superviseChild(
    () => startBroker(opts),
    logger,
    { what: 'the Kafka broker', metric: 'kafka_broker' },
    supervision,
  );
  return { brokers: supervised.first.brokers, pid: supervised.pid, restarts: supervised.restarts, stop: supervised.stop };
}
