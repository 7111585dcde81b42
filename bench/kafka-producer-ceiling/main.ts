// Benchmark: how fast the local Kafka broker starts (cold = fresh data dir incl. storage format,
// warm = same data dir again) and the producer ceiling that Kafka's own ProducerPerformance
// (acks=all) reaches against it on this machine. Writes bench/results/kafka-producer-ceiling.txt.
//   npx tsx bench/kafka-producer-ceiling/main.ts [--records 200000] [--record-size 300] [--runs 3] [--no-write]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../../core/paths.js';
import { brokerJvmFlags, ensureKafkaJars, findFreePort, javaBin, kafkaVersion, startBroker } from '../../scripts/kafka/broker.js';
import { runProducerPerf } from '../../scripts/kafka/perf.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '200000' },
    'record-size': { type: 'string', default: '300' },
    partitions: { type: 'string', default: '4' },
    runs: { type: 'string', default: '3' },
    'no-write': { type: 'boolean', default: false },
  },
});
const records = Number(values.records);
const recordSize = Number(values['record-size']);
const partitions = Number(values.partitions);
const runs = Number(values.runs);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

await ensureKafkaJars();
const cold: number[] = [];
const warm: number[] = [];
const rate: number[] = [];
const summaries: string[] = [];
for (let i = 0; i < runs; i++) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-kafka-bench-'));
  try {
    const port = await findFreePort();
    let t = performance.now();
    const first = await startBroker({ port, dataDir });
    cold.push(performance.now() - t);
    await first.stop();

    t = performance.now();
    const broker = await startBroker({ port, dataDir });
    warm.push(performance.now() - t);
    try {
      const result = await runProducerPerf({ brokers: broker.brokers, records, recordSize, partitions, acks: 'all' });
      rate.push(result.recordsPerSec);
      summaries.push(result.summary);
    } finally {
      await broker.stop();
    }
    console.log(`run ${i + 1}: cold ${cold[i].toFixed(0)} ms, warm ${warm[i].toFixed(0)} ms, ${rate[i].toFixed(0)} records/s`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// `java -version` writes to stderr.
const java = spawnSync(javaBin(), ['-version'], { encoding: 'utf8' }).stderr.split('\n')[0];
const report = [
  `# Local Kafka broker: start-to-ready time and producer ceiling`,
  `command: npx tsx bench/kafka-producer-ceiling/main.ts --records ${records} --record-size ${recordSize} --partitions ${partitions} --runs ${runs}`,
  `date: ${new Date().toISOString()}`,
  `machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, load average at end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} (shared with other work)`,
  `kafka: ${kafkaVersion()} single-node KRaft (scripts/kafka/broker.ts), JVM flags: ${brokerJvmFlags().join(' ')}`,
  `java: ${java}`,
  `ready = an idempotent producer's acks=all send succeeds and a group coordinator answers`,
  '',
  `cold start-to-ready (fresh data dir, includes storage format), ms: ${cold.map((x) => x.toFixed(0)).join(', ')}; median ${median(cold).toFixed(0)}`,
  `warm start-to-ready (same data dir), ms: ${warm.map((x) => x.toFixed(0)).join(', ')}; median ${median(warm).toFixed(0)}`,
  `ProducerPerformance ${records} records x ${recordSize} B, acks=all, ${partitions} partitions, records/s: ${rate.map((x) => x.toFixed(0)).join(', ')}; median ${median(rate).toFixed(0)}`,
  '',
  'ProducerPerformance summaries:',
  ...summaries,
  '',
].join('\n');
console.log(`\n${report}`);
if (!values['no-write']) {
  const out = fromRoot('bench', 'results', 'kafka-producer-ceiling.txt');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, report);
  console.log(`written to ${out}`);
}
