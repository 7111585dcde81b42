// The all-in-one service SIGKILLed between the state change that caused an event and its delivery:
// the event (in the control-plane outbox since the spend committed) still arrives after a restart.
// The receiver holds the first delivery open without answering, so the kill lands mid-delivery,
// the hardest case: the attempt was sent but never recorded, and must be sent again.
// The service writes the open lake, its catalog in a fresh database of the test PostgreSQL
// (testHostLake, as startPipeline), which outlives the kill as an outside catalog would; the event
// is read back from that lake at the end.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findFreePort } from '../../scripts/kafka/broker.js';
import { spawnService, waitUntilServing, type ServiceProcess } from '../../scripts/service-process.js';
import { http } from '../support/http.js';
import { signedPost } from '../support/ingest-harness.js';
import { llmEvent, testHostLake } from '../support/pipeline.js';
import { lakeEventRows } from '../support/processor-fixtures.js';
import { eventually } from '../support/eventually.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

describe('webhook delivery across a SIGKILL', () => {
  let tmp: string;
  const receiver = new WebhookReceiver();
  const token = `mk_admin_${crypto.randomBytes(8).toString('hex')}`;
  // One master key for both runs (the endpoint's secret is sealed under it).
  const masterKey = crypto.randomBytes(32).toString('hex');
  let service: ServiceProcess | null = null;
  let lake: Awaited<ReturnType<typeof testHostLake>>;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'marginal-alerts-crash-'));
    lake = await testHostLake();
    await receiver.start();
  });
  afterAll(async () => {
    await service?.stop();
    await receiver.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  async function start(port: number, name: string): Promise<string> {
    const url = `http://127.0.0.1:${port}`;
    service = spawnService({
      name,
      entry: 'scripts/start',
      built: false,
      logFile: path.join(tmp, `${name}.log`),
      env: {
        PORT: String(port),
        DATA_DIR: path.join(tmp, 'data'),
        KAFKA_BROKERS: inject('kafkaBrokers'),
        SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
        MARGINAL_ADMIN_TOKEN: token,
        MARGINAL_MASTER_KEY: masterKey,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        LOG_LEVEL: 'info',
        ...lake.env,
      },
    });
    await waitUntilServing(service, url, 90_000);
    return url;
  }

  it('delivers credits.exhausted after the service died with the delivery in flight', async () => {
    const port = await findFreePort();
    let url = await start(port, 'first');
    const adminCall = (method: string, p: string, json?: unknown) => http(url, method, `/v1/admin${p}`, { token, json });
    const org = (await adminCall('POST', '/organizations', { name: 'crash' })).body.organization_id;
    await adminCall('POST', `/organizations/${org}/credits`, { amount: 1 });
    const key = (await adminCall('POST', `/organizations/${org}/api-keys`, { scopes: ['usage:write'] })).body;
    const ep = (
      await adminCall('POST', `/organizations/${org}/webhook-endpoints`, { url: receiver.url, enabled_events: ['credits.exhausted'] })
    ).body;
    expect(ep.secret).toMatch(/^whsec_/);

    receiver.mode = { hang: true };
    const accepted = await signedPost(
      url,
      { apiKey: key.api_key, signingSecret: key.signing_secret },
      '/v1/usage-events',
      llmEvent('last-credit'),
    );
    expect(accepted.status).toBe(202);
    const first = await eventually(
      () => receiver.received.find((r) => JSON.parse(r.body).type === 'credits.exhausted'),
      20_000,
      'first delivery',
    );
    const eventId = String(first.headers['marginal-event-id']);

    service!.kill('SIGKILL');
    await service!.exited;
    receiver.mode = { status: 200 };
    url = await start(port, 'second');

    await eventually(() => receiver.received.filter((r) => r.headers['marginal-event-id'] === eventId).length >= 2, 30_000, 'redelivery');
    const again = receiver.received.filter((r) => r.headers['marginal-event-id'] === eventId).at(-1)!;
    expect(JSON.parse(again.body)).toMatchObject({ id: eventId, type: 'credits.exhausted', organization_id: org, data: { balance: 0 } });
    const events = await eventually(
      async () => {
        const list = (await http(url, 'GET', `/v1/admin/organizations/${org}/webhook-events`, { token })).body.events;
        return list[0]?.deliveries[0]?.status === 'delivered' ? list : undefined;
      },
      10_000,
      'recorded as delivered',
    );
    expect(events).toHaveLength(1);
    // The event is in the run's lake once (on ducklake: read from its catalog, so the service wrote the open lake).
    const lakeDir = lake.mark(path.join(tmp, 'data'));
    await eventually(async () => (await lakeEventRows(lakeDir, org, 'event_id')).length === 1, 20_000, 'the event in the lake');
  }, 180_000);
});
