// `npm run distributed -- [options]`: the distributed mode on one machine, for trying it (see
// docs/distributed.md). Starts a Kafka broker, the dev schema registry and PostgreSQL (from its
// server binaries) unless given, then N ingest, M processors and K api processes, prints where
// each listens, and stops everything on Ctrl-C.
//   --ingest 2 --processors 2 --api 1 --data-dir ./data-distributed --partitions 4
//   --kafka-brokers host:port,…  --schema-registry-url http://…  --database-url postgres://…
//   --postgres-bin /usr/lib/postgresql/16/bin  --source (run the TypeScript source, not dist/)
//   --lake-url s3://bucket/prefix (the open lake on that store, AWS_* from this environment), else
//   on a local S3Proxy (--s3proxy, the default): the processes share nothing but the store and PostgreSQL
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDistributed } from './distributed/cluster.js';

const { values } = parseArgs({
  options: {
    ingest: { type: 'string', default: '2' },
    processors: { type: 'string', default: '2' },
    api: { type: 'string', default: '1' },
    'data-dir': { type: 'string', default: './data-distributed' },
    partitions: { type: 'string' },
    'kafka-brokers': { type: 'string' },
    'schema-registry-url': { type: 'string' },
    'database-url': { type: 'string' },
    'postgres-bin': { type: 'string' },
    source: { type: 'boolean', default: false },
    'lake-url': { type: 'string' },
    s3proxy: { type: 'boolean', default: false },
  },
});

const count = (name: 'ingest' | 'processors' | 'api', min: number) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return n;
};

const lakeUrl = values['lake-url'];
if (lakeUrl && !lakeUrl.startsWith('s3://')) throw new Error('--lake-url must be s3://bucket/prefix');
if (lakeUrl && values.s3proxy) throw new Error('--lake-url and --s3proxy exclude each other');

const cluster = await startDistributed({
  dataDir: path.resolve(values['data-dir']!),
  ingest: count('ingest', 1),
  processors: count('processors', 1),
  api: count('api', 1),
  partitions: values.partitions ? Number(values.partitions) : undefined,
  kafkaBrokers: values['kafka-brokers']?.split(','),
  schemaRegistryUrl: values['schema-registry-url'],
  databaseUrl: values['database-url'] ?? process.env.DATABASE_URL,
  postgresBinDir: values['postgres-bin'],
  objectStore: lakeUrl ? { url: lakeUrl } : 'local',
  built: values.source ? false : undefined,
});

const lines = [
  '',
  'Marginal, distributed, on this machine:',
  ...cluster.services.map((s) => `  ${s.name.padEnd(12)} ${s.url}  (pid ${s.process().pid}, log ${s.logFile})`),
  `  kafka        ${cluster.kafkaBrokers.join(',')}`,
  `  registry     ${cluster.schemaRegistryUrl}`,
  `  postgres     ${cluster.databaseUrl.replace(/\/\/[^@/]*@/, '//…@')}`,
  `  lake         ${cluster.lake}`,
  '',
  `Admin API and reads: ${cluster.service('api').url}/v1 ; events: POST ${cluster.service('ingest').url}/v1/usage-events (any ingest).`,
  cluster.adminTokenGenerated
    ? `The admin token (generated now, kept in ${path.resolve(values['data-dir']!, 'instance-secrets.json')}): ${cluster.adminToken}`
    : `The admin token is in ${path.resolve(values['data-dir']!, 'instance-secrets.json')} (or MARGINAL_ADMIN_TOKEN).`,
  'Ctrl-C stops everything.',
];
console.log(lines.join('\n'));

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    console.log('stopping…');
    cluster.stop().then(
      () => process.exit(0),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
