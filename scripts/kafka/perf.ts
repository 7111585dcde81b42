// Runs Kafka's own ProducerPerformance (from the pinned jars) against a broker: the ceiling a
// Java producer reaches on this machine, to judge the pipeline's publish rate against.
import { spawn } from 'node:child_process';
import { createKafka } from '../../core/kafka/client.js';
import { TOOLS_LOG4J, classpath, ensureKafkaJars, javaBin } from './broker.js';

export interface ProducerPerfOptions {
  brokers: string[];
  records: number;
  recordSize: number;
  /** Partitions of the scratch topic; default 4 (KAFKA_TOPIC_PARTITIONS's default). */
  partitions?: number;
  /** Records per second cap; -1 = as fast as possible. */
  throughput?: number;
  acks?: 'all' | '1' | '0';
  /** Extra producer properties, key=value. */
  producerProps?: string[];
  /** Each output line of the tool as it is printed. */
  onLine?: (line: string) => void;
}

export interface ProducerPerfResult {
  topic: string;
  /** The tool's closing summary line. */
  summary: string;
  recordsPerSec: number;
  mbPerSec: number;
  avgLatencyMs: number;
  output: string;
}

// "200000 records sent, 95831.3 records/sec (27.42 MB/sec), 310.5 ms avg latency, 600.0 ms max latency, ..."
const SUMMARY = /^(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency/;

export async function runProducerPerf(opts: ProducerPerfOptions): Promise<ProducerPerfResult> {
  const libs = await ensureKafkaJars();
  // A scratch topic per run (auto-creation is off on our broker), deleted afterwards.
  const topic = `perf-producer-${Date.now()}`;
  const kafka = createKafka(opts.brokers, 'marginal-perf', { logLevel: 'error' });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: opts.partitions ?? 4 }], waitForLeaders: true });
    const props = [`bootstrap.servers=${opts.brokers.join(',')}`, `acks=${opts.acks ?? 'all'}`, ...(opts.producerProps ?? [])];
    const args = [
      '-Xmx512m',
      '-XX:+UseSerialGC',
      `-Dlog4j.configuration=file:${TOOLS_LOG4J}`,
      '-cp',
      classpath(libs),
      'org.apache.kafka.tools.ProducerPerformance',
      '--topic',
      topic,
      '--num-records',
      String(opts.records),
      '--record-size',
      String(opts.recordSize),
      '--throughput',
      String(opts.throughput ?? -1),
      '--producer-props',
      ...props,
    ];
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(javaBin(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let partial = '';
      const onData = (chunk: Buffer): void => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          out += `${line}\n`;
          opts.onLine?.(line);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', reject);
      child.once('close', (code) => {
        if (partial) onData(Buffer.from('\n'));
        if (code === 0) resolve(out);
        else reject(new Error(`ProducerPerformance exited with ${code}:\n${out.split('\n').slice(-20).join('\n')}`));
      });
    });
    const summary = output.split('\n').find((l) => SUMMARY.test(l));
    if (!summary) throw new Error(`no summary line in ProducerPerformance output:\n${output}`);
    const m = SUMMARY.exec(summary)!;
    return {
      topic,
      summary,
      recordsPerSec: Number(m[2]),
      mbPerSec: Number(m[3]),
      avgLatencyMs: Number(m[4]),
      output,
    };
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  }
}
