// A throwaway S3-compatible server for one test file: S3Proxy (scripts/s3/s3proxy.ts) on a free
// 127.0.0.1 port, one private bucket, a fresh random key pair, objects under the caller's temp dir.
// stop() and start() keep the port and the objects, so a test can take the store away mid-run and
// bring it back as it was.
import crypto from 'node:crypto';
import path from 'node:path';
import { type RunningS3Proxy, startS3Proxy } from '../../scripts/s3/s3proxy.js';

export interface TestS3Server {
  endpoint: string;
  /** host:port, as DuckDB's ENDPOINT wants it. */
  hostPort: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  pid(): number;
  /** Ends the server by its pid; SIGKILL when `kill` (a crashed store), else SIGTERM. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same port over the same objects. */
  start(): Promise<void>;
}

export async function startTestS3Server(tmpDir: string, bucket = 'marginal-lake'): Promise<TestS3Server> {
  const options = {
    dataDir: path.join(tmpDir, 's3'),
    bucket,
    accessKeyId: `test${crypto.randomBytes(8).toString('hex')}`,
    secretAccessKey: crypto.randomBytes(24).toString('base64url'),
  };
  let running: RunningS3Proxy = await startS3Proxy(options);
  const port = running.port;
  return {
    endpoint: running.endpoint,
    hostPort: `127.0.0.1:${port}`,
    bucket,
    region: 'us-east-1',
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    pid: () => running.pid,
    stop: (o) => running.stop(o),
    start: async () => {
      running = await startS3Proxy({ ...options, port });
    },
  };
}
