// Keeps the all-in-one's local broker running (scripts/supervised-child.ts: restarted with backoff
// on the same port and data when the JVM exits unasked). The services' kafkajs clients reconnect
// to the same address by themselves; meanwhile ingest answers 503 and the processor retries.
import type { Logger } from '../../core/logger.js';
import { promClient, registry } from '../../core/metrics.js';
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

const brokerUp = new promClient.Gauge({
  name: 'marginal_kafka_broker_up',
  help: 'All-in-one: 1 while the local Kafka broker runs, 0 while it is down or restarting',
  registers: [registry],
});
const brokerRestarts = new promClient.Counter({
  name: 'marginal_kafka_broker_restarts_total',
  help: 'All-in-one: times the local Kafka broker died and was started again',
  registers: [registry],
});

export async function superviseBroker(
  opts: StartBrokerOptions,
  logger: Logger,
  supervision: Omit<Supervision, 'onUp'> = {},
): Promise<SupervisedBroker> {
  let started = 0;
  const supervised = await superviseChild(
    () =>
      startBroker(opts).then((broker) => {
        if (started++ > 0) brokerRestarts.inc();
        return broker;
      }),
    logger,
    { ...supervision, what: 'the Kafka broker', onUp: (up) => brokerUp.set(up ? 1 : 0) },
  );
  return { brokers: supervised.first.brokers, pid: supervised.pid, restarts: supervised.restarts, stop: supervised.stop };
}
