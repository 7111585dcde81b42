// Keeps the all-in-one's local broker running. When the Kafka JVM exits without being asked to
// (a crash, an OOM kill, someone's kill -9), it is logged as an error and started again on the
// same port and data after a backoff (1 s, doubling to 30 s; back to 1 s once a broker has run a
// minute). The services' kafkajs clients reconnect to the same address by themselves; meanwhile
// ingest answers 503 and the processor retries.
import { backoffStepMs } from '../../core/backoff.js';
import type { Logger } from '../../core/logger.js';
import { promClient, registry } from '../../core/metrics.js';
import { startBroker, type RunningBroker, type StartBrokerOptions } from './broker.js';

export interface SupervisedBroker {
  brokers: string[];
  /** The running JVM's pid, null while it is down. */
  pid(): number | null;
  /** Brokers started after the first (tests, metrics). */
  restarts(): number;
  stop(): Promise<void>;
}

export interface SupervisionOptions {
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** A broker up this long resets the backoff. */
  healthyAfterMs?: number;
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
  supervision: SupervisionOptions = {},
): Promise<SupervisedBroker> {
  const backoff = { firstMs: supervision.firstDelayMs ?? 1_000, maxMs: supervision.maxDelayMs ?? 30_000 };
  const healthyAfterMs = supervision.healthyAfterMs ?? 60_000;
  let current: RunningBroker | null = await startBroker(opts);
  let stopping = false;
  let restarts = 0;
  /** Starts since a broker last ran healthy: the backoff's attempt. */
  let attempt = 0;
  const nextDelayMs = () => backoffStepMs(attempt, backoff);
  let timer: NodeJS.Timeout | null = null;
  let starting: Promise<void> | null = null;
  brokerUp.set(1);

  const watch = (broker: RunningBroker) => {
    const startedAt = Date.now();
    void broker.exited.then(({ code, signal }) => {
      if (current === broker) current = null;
      brokerUp.set(0);
      if (stopping) return;
      if (Date.now() - startedAt >= healthyAfterMs) attempt = 0;
      logger.error(
        { pid: broker.pid, exitCode: code, signal, restartInMs: nextDelayMs(), logFile: broker.logFile },
        'the Kafka broker died; starting it again',
      );
      schedule();
    });
  };

  const schedule = () => {
    const wait = nextDelayMs();
    attempt++;
    timer = setTimeout(() => {
      timer = null;
      if (stopping) return;
      starting = startBroker(opts)
        .then(
          (broker) => {
            if (stopping) return broker.stop();
            current = broker;
            restarts++;
            brokerRestarts.inc();
            brokerUp.set(1);
            logger.info({ pid: broker.pid, restarts }, 'the Kafka broker is back');
            watch(broker);
          },
          (err) => {
            if (stopping) return;
            logger.error({ err, restartInMs: nextDelayMs() }, 'the Kafka broker did not start again; retrying');
            schedule();
          },
        )
        .finally(() => (starting = null));
    }, wait);
  };

  watch(current);
  return {
    brokers: current.brokers,
    pid: () => current?.pid ?? null,
    restarts: () => restarts,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await starting;
      await current?.stop();
    },
  };
}
