// `npm run kafka -- <command>`: run the local Kafka broker in the foreground, fetch its jars, or
// measure the producer ceiling with Kafka's own ProducerPerformance.
//   start [--port 9092] [--data-dir $DATA_DIR/kafka] [--host 127.0.0.1] [--quiet]
//   fetch
//   perf [--brokers host:port,…] [--records 200000] [--record-size 300] [--partitions 4]
//        [--throughput -1] [--acks all] [--producer-prop k=v …]
//        (without --brokers a throwaway broker is started for the run)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.js';
import { ensureKafkaJars, findFreePort, kafkaVersion, startBroker } from './kafka/broker.js';
import { runProducerPerf } from './kafka/perf.js';

const USAGE = `usage: npm run kafka -- start [--port N] [--data-dir DIR] [--host H] [--quiet]
       npm run kafka -- fetch
       npm run kafka -- perf [--brokers H:P,…] [--records N] [--record-size B] [--partitions P]
                             [--throughput R] [--acks all|1|0] [--producer-prop k=v …]`;

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got "${raw}"`);
  return n;
}

async function start(argv: string[]): Promise<void> {
  const config = loadConfig();
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      host: { type: 'string' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const port = positiveInt('port', values.port, config.kafkaPort);
  const dataDir = path.resolve(values['data-dir'] ?? path.join(config.dataDir, 'kafka'));
  const began = Date.now();
  const broker = await startBroker({
    port,
    dataDir,
    host: values.host ?? '127.0.0.1',
    log: values.quiet ? undefined : (line) => console.log(line),
  });
  console.log(
    `Kafka ${kafkaVersion()} ready at ${broker.brokers.join(',')} in ${Date.now() - began} ms ` +
      `(pid ${broker.pid}, data ${dataDir}, log ${broker.logFile}). Ctrl-C stops it.`,
  );
  let stopping = false;
  const onSignal = (): void => {
    if (stopping) return;
    stopping = true;
    console.log('stopping Kafka…');
    void broker.stop().then(() => {
      console.log('Kafka stopped.');
      process.exit(0);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

async function perf(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      brokers: { type: 'string' },
      records: { type: 'string' },
      'record-size': { type: 'string' },
      partitions: { type: 'string' },
      throughput: { type: 'string' },
      acks: { type: 'string' },
      'producer-prop': { type: 'string', multiple: true },
    },
  });
  const acks = values.acks ?? 'all';
  if (acks !== 'all' && acks !== '1' && acks !== '0') throw new Error(`--acks must be all, 1 or 0`);
  const throughput = values.throughput === undefined ? -1 : Number(values.throughput);
  if (!Number.isInteger(throughput) || (throughput < 1 && throughput !== -1)) {
    throw new Error('--throughput must be -1 or a positive integer');
  }

  let brokers =
    values.brokers
      ?.split(',')
      .map((b) => b.trim())
      .filter(Boolean) ?? [];
  let cleanup = async (): Promise<void> => {};
  if (brokers.length === 0) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-kafka-perf-'));
    const broker = await startBroker({ port: await findFreePort(), dataDir });
    console.log(`started a throwaway broker at ${broker.brokers.join(',')} (pid ${broker.pid})`);
    brokers = broker.brokers;
    cleanup = async () => {
      await broker.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    };
  }
  try {
    const records = positiveInt('records', values.records, 200_000);
    const recordSize = positiveInt('record-size', values['record-size'], 300);
    const partitions = positiveInt('partitions', values.partitions, 4);
    console.log(
      `ProducerPerformance (Kafka ${kafkaVersion()}): ${records} records of ${recordSize} B, acks=${acks}, ` +
        `${partitions} partitions, brokers ${brokers.join(',')}`,
    );
    const result = await runProducerPerf({
      brokers,
      records,
      recordSize,
      partitions,
      throughput,
      acks,
      producerProps: values['producer-prop'],
      onLine: (line) => console.log(line),
    });
    console.log(`records/s: ${result.recordsPerSec}  MB/s: ${result.mbPerSec}  avg latency ms: ${result.avgLatencyMs}`);
  } finally {
    await cleanup();
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case 'start':
      return start(rest);
    case 'fetch': {
      const libs = await ensureKafkaJars();
      console.log(`Kafka ${kafkaVersion()} jars in ${libs}`);
      return;
    }
    case 'perf':
      return perf(rest);
    default:
      console.error(USAGE);
      process.exit(command === undefined || command === 'help' || command === '--help' ? 0 : 2);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
