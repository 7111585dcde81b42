// A webhook receiver for tests: an HTTP server on 127.0.0.1 that records every request (raw body,
// headers, time) and answers as the test says: 200, another status, a redirect, or not at all
// (closed, so connections are refused; reopened on the same port).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** Answer with a status, redirect, or hold the request open without answering (`hang`). */
export type ReceiverMode = { status: number } | { redirectTo: string } | { hang: true };

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  mode: ReceiverMode = { status: 200 };
  private server: http.Server | null = null;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(port = 0): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        });
        if ('hang' in this.mode) return;
        if ('redirectTo' in this.mode) {
          res.writeHead(302, { location: this.mode.redirectTo }).end();
        } else {
          res.writeHead(this.mode.status, { 'content-type': 'text/plain' }).end(this.mode.status < 300 ? 'ok' : 'receiver says no');
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Stops listening: deliveries fail with a refused connection until start(this.port) again. */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  }

  /** Deliveries of events (de-duplicated by Marginal-Event-Id, the first copy kept). */
  events(): Array<{ id: string; type: string; created: number; organization_id: string; data: any }> {
    const seen = new Set<string>();
    const out = [];
    for (const r of this.received) {
      const id = String(r.headers['marginal-event-id']);
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(JSON.parse(r.body));
    }
    return out;
  }
}
