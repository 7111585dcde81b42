// CLI for the dev schema registry:
//   tsx scripts/schema-registry/main.ts --port 8081 --file ./data/registry.json [--host 127.0.0.1]
// Runs until SIGINT/SIGTERM, then closes the listener and exits.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../../core/logger.js';
import { startSchemaRegistry } from './server.js';

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: process.env.SCHEMA_REGISTRY_PORT ?? '8081' },
    file: { type: 'string', default: path.join(process.env.DATA_DIR ?? './data', 'registry.json') },
  },
});

const log = createLogger(process.env.LOG_LEVEL, 'schema-registry');
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  log.error({ port: values.port }, '--port must be an integer between 0 and 65535');
  process.exit(2);
}

const file = path.resolve(values.file);
const registry = await startSchemaRegistry({ host: values.host, port, file });
log.info({ url: registry.url, file }, 'dev schema registry listening');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    registry.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        log.error({ err: e }, 'stop failed');
        process.exit(1);
      },
    );
  });
}
