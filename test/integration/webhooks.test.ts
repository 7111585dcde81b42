// Webhook endpoints and delivery against a real receiver on 127.0.0.1: the signature checked by
// the test's own HMAC code (never the service's signer), retries while the receiver is down or
// failing, a redirect refused, private addresses refused when not allowed, the 3-day disable, the
// attempt log and a re-send by hand. The delivery worker's clock is moved forward instead of
// waiting for backoff.
import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiComponent } from '../../api/component.js';
import { DeliveryWorker } from '../../alerts/webhooks/delivery-worker.js';
import { createEndpoint, sendTestEvent } from '../../alerts/webhooks/endpoints.store.js';
import { newEventId } from '../../alerts/webhooks/outbox.js';
import { sendWebhook } from '../../alerts/webhooks/send-webhook.js';
import { createLogger } from '../../core/logger.js';
import { TEST_MASTER_KEY } from '../support/control-db.js';
import { admin, describeEachHost, http, startTestHost, type TestHost } from '../support/http.js';
import { eventually } from '../support/eventually.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** Independent check of `Marginal-Signature`: which of the given secrets signed this body. */
function verifyingSecrets(header: string, body: string, secrets: string[]): string[] {
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = parts.find(([k]) => k === 't')?.[1];
  const v1 = parts.filter(([k]) => k === 'v1').map(([, v]) => Buffer.from(v, 'hex'));
  return secrets.filter((secret) => {
    const expected = crypto
      .createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(Buffer.from(`${t}.${body}`, 'utf8'))
      .digest();
    return v1.some((sig) => sig.length === expected.length && crypto.timingSafeEqual(sig, expected));
  });
}

const HOUR = 3600_000;
let clockOffsetMs = 0;
const workerClock = () => new Date(Date.now() + clockOffsetMs);

describeEachHost(
  'webhook endpoints and delivery',
  ({ host }) => {
    let h: TestHost;
    let org: string;
    const receiver = new WebhookReceiver();

    beforeAll(async () => {
      clockOffsetMs = 0; // each host's suite starts with the worker's clock on time
      h = host();
      await receiver.start();
      org = (await admin(h, 'POST', '/organizations', { name: 'hooks' })).body.organization_id;
    });
    afterAll(() => receiver.stop());
    beforeEach(() => {
      receiver.received.length = 0;
      receiver.mode = { status: 200 };
    });

    async function addEndpoint(url = receiver.url, events: string[] = ['*']): Promise<{ id: string; secret: string }> {
      const res = await admin(h, 'POST', `/organizations/${org}/webhook-endpoints`, { url, enabled_events: events, description: 'test' });
      expect(res.status).toBe(201);
      return res.body;
    }
    const sendTest = async (endpointId: string) => {
      const res = await admin(h, 'POST', `/organizations/${org}/webhook-endpoints/${endpointId}/test`);
      expect(res.status).toBe(202);
      return res.body.event_id as string;
    };
    const attempts = async (endpointId: string) =>
      (await admin(h, 'GET', `/organizations/${org}/webhook-endpoints/${endpointId}/attempts?limit=1000`)).body.attempts as Array<{
        event_id: string;
        outcome: string;
        status_code: number | null;
        error: string | null;
        response_excerpt: string | null;
        latency_ms: number;
      }>;

    it('creates an endpoint with a whsec_ secret shown once and validates the body, naming the field', async () => {
      const created = await addEndpoint(receiver.url, ['budget.exceeded', 'credits.low']);
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      const listed = await admin(h, 'GET', `/organizations/${org}/webhook-endpoints`);
      const mine = listed.body.webhook_endpoints.find((e: { id: string }) => e.id === created.id);
      expect(mine).toMatchObject({
        url: receiver.url,
        enabled_events: ['budget.exceeded', 'credits.low'],
        status: 'enabled',
        disabled_reason: null,
      });
      expect(JSON.stringify(listed.body)).not.toContain(created.secret);
      const bad = [
        [{ url: receiver.url, enabled_events: ['budget.nope'] }, 'enabled_events.0'],
        [{ url: 'ftp://example.com/x', enabled_events: ['*'] }, 'url'],
        [{ url: 'not a url', enabled_events: ['*'] }, 'url'],
        [{ url: receiver.url, enabled_events: [] }, 'enabled_events'],
      ] as const;
      for (const [body, field] of bad) {
        const res = await admin(h, 'POST', `/organizations/${org}/webhook-endpoints`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.details.field).toBe(field);
      }
      expect((await admin(h, 'GET', `/organizations/${org}/webhook-endpoints/${crypto.randomUUID()}`)).status).toBe(404);
      await admin(h, 'DELETE', `/organizations/${org}/webhook-endpoints/${created.id}`);
    });

    it('delivers a signed event that an independent HMAC verifies, with the event id header', async () => {
      const ep = await addEndpoint();
      const eventId = await sendTest(ep.id);
      const got = await eventually(() => receiver.received.find((r) => r.headers['marginal-event-id'] === eventId), 10_000, 'delivery');
      const body = JSON.parse(got.body);
      expect(body).toMatchObject({ id: eventId, type: 'webhook.test', organization_id: org, data: { endpoint_id: ep.id } });
      expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(60);
      const header = String(got.headers['marginal-signature']);
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifyingSecrets(header, got.body, [ep.secret, 'whsec_wrong'])).toEqual([ep.secret]);
      // A changed body does not verify.
      expect(verifyingSecrets(header, got.body.replace('webhook.test', 'webhook.tesT'), [ep.secret])).toEqual([]);
      await eventually(
        async () => (await attempts(ep.id)).some((a) => a.outcome === 'delivered' && a.status_code === 200),
        5_000,
        'attempt log',
      );
      await admin(h, 'DELETE', `/organizations/${org}/webhook-endpoints/${ep.id}`);
    });

    it('signs with both secrets during a rotation, and with the new one only after a rotation without grace', async () => {
      const ep = await addEndpoint();
      const rotated = await admin(h, 'PATCH', `/organizations/${org}/webhook-endpoints/${ep.id}`, { rotate_secret: true });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(ep.secret);
      expect(rotated.body.previous_secret_expires_at).not.toBeNull();
      const during = await sendTest(ep.id);
      const first = await eventually(() => receiver.received.find((r) => r.headers['marginal-event-id'] === during), 10_000, 'delivery');
      const header = String(first.headers['marginal-signature']);
      expect(header.match(/v1=/g)).toHaveLength(2);
      expect(verifyingSecrets(header, first.body, [ep.secret, rotated.body.secret])).toEqual([ep.secret, rotated.body.secret]);

      const again = await admin(h, 'PATCH', `/organizations/${org}/webhook-endpoints/${ep.id}`, {
        rotate_secret: true,
        rotation_grace_seconds: 0,
      });
      const after = await sendTest(ep.id);
      const second = await eventually(() => receiver.received.find((r) => r.headers['marginal-event-id'] === after), 10_000, 'delivery');
      expect(
        verifyingSecrets(String(second.headers['marginal-signature']), second.body, [ep.secret, rotated.body.secret, again.body.secret]),
      ).toEqual([again.body.secret]);
      await admin(h, 'DELETE', `/organizations/${org}/webhook-endpoints/${ep.id}`);
    });

    it('keeps every event while the receiver is down, then delivers each once it is up again', async () => {
      const ep = await addEndpoint();
      const port = receiver.port;
      await receiver.stop();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await sendTest(ep.id));
      await eventually(
        async () => {
          const log = await attempts(ep.id);
          return ids.every((id) => log.some((a) => a.event_id === id && a.outcome === 'network_error'));
        },
        10_000,
        'failed attempts',
      );
      const endpoint = (await admin(h, 'GET', `/organizations/${org}/webhook-endpoints/${ep.id}`)).body;
      expect(endpoint.failing_since).not.toBeNull();
      await receiver.start(port);
      clockOffsetMs += HOUR; // past the first backoff steps
      await eventually(() => ids.every((id) => receiver.received.some((r) => r.headers['marginal-event-id'] === id)), 10_000, 'all three');
      // Recorded once the receiver's answer is in.
      await eventually(
        async () => {
          const events = (await admin(h, 'GET', `/organizations/${org}/webhook-events?type=webhook.test&limit=1000`)).body.events;
          return ids.every((id) => {
            const ev = events.find((e: { id: string }) => e.id === id);
            return ev.deliveries.length === 1 && ev.deliveries[0].endpoint_id === ep.id && ev.deliveries[0].status === 'delivered';
          });
        },
        10_000,
        'recorded as delivered',
      );
      await eventually(
        async () => (await admin(h, 'GET', `/organizations/${org}/webhook-endpoints/${ep.id}`)).body.failing_since === null,
        5_000,
        'recovered',
      );
      await admin(h, 'DELETE', `/organizations/${org}/webhook-endpoints/${ep.id}`);
    });

    it('logs a non-2xx answer with its status and excerpt, and does not follow a redirect', async () => {
      const ep = await addEndpoint();
      receiver.mode = { status: 500 };
      const failed = await sendTest(ep.id);
      const log = await eventually(async () => (await attempts(ep.id)).find((a) => a.event_id === failed), 10_000, 'attempt');
      expect(log).toMatchObject({ outcome: 'http_error', status_code: 500, response_excerpt: 'receiver says no', error: 'HTTP 500' });
      expect(log.latency_ms).toBeGreaterThanOrEqual(0);

      receiver.mode = { redirectTo: `http://127.0.0.1:${receiver.port}/elsewhere` };
      const redirected = await sendTest(ep.id);
      const r = await eventually(async () => (await attempts(ep.id)).find((a) => a.event_id === redirected), 10_000, 'attempt');
      expect(r.outcome).toBe('http_error');
      expect(r.status_code).toBe(302);
      expect(r.error).toMatch(/redirect not followed/);
      expect(receiver.received.some((x) => x.path === '/elsewhere')).toBe(false);

      // Fixed receiver: both are delivered on their retry, and a re-send by hand sends one again.
      receiver.mode = { status: 200 };
      clockOffsetMs += HOUR;
      await eventually(
        () =>
          [failed, redirected].every((id) => receiver.received.some((x) => x.headers['marginal-event-id'] === id && x.path === '/hook')),
        10_000,
        'retries',
      );
      const before = receiver.received.filter((x) => x.headers['marginal-event-id'] === failed).length;
      const resend = await admin(h, 'POST', `/organizations/${org}/webhook-endpoints/${ep.id}/events/${failed}/resend`);
      expect(resend.status).toBe(202);
      await eventually(
        () => receiver.received.filter((x) => x.headers['marginal-event-id'] === failed).length === before + 1,
        10_000,
        'resend',
      );
      expect((await admin(h, 'POST', `/organizations/${org}/webhook-endpoints/${ep.id}/events/evt_nope/resend`)).status).toBe(404);
      await admin(h, 'DELETE', `/organizations/${org}/webhook-endpoints/${ep.id}`);
    });

    it('disables an endpoint that failed for 3 days, says why, and sends what waited once re-enabled', async () => {
      const ep = await addEndpoint();
      receiver.mode = { status: 503 };
      const id = await sendTest(ep.id);
      await eventually(async () => (await attempts(ep.id)).length >= 1, 10_000, 'first attempt');
      clockOffsetMs += 3 * 24 * HOUR + 60_000;
      const disabled = await eventually(
        async () => {
          const e = (await admin(h, 'GET', `/organizations/${org}/webhook-endpoints/${ep.id}`)).body;
          return e.status === 'disabled' ? e : undefined;
        },
        10_000,
        'disabled',
      );
      expect(disabled.disabled_reason).toMatch(
        /^disabled after failing for 3 days \(since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\); last attempt: HTTP 503$/,
      );
      // The delivery itself was given up (its retry window passed too).
      const ev = (await admin(h, 'GET', `/organizations/${org}/webhook-events?type=webhook.test&limit=1000`)).body.events.find(
        (e: { id: string }) => e.id === id,
      );
      expect(ev.deliveries[0].status).toBe('failed');
      // Disabled: a new event waits; re-enabled: it is sent.
      receiver.mode = { status: 200 };
      const waiting = await sendTest(ep.id);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received.some((x) => x.headers['marginal-event-id'] === waiting)).toBe(false);
      const enabled = await admin(h, 'PATCH', `/organizations/${org}/webhook-endpoints/${ep.id}`, { enabled: true });
      expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null, failing_since: null });
      await eventually(() => receiver.received.some((x) => x.headers['marginal-event-id'] === waiting), 10_000, 'sent after enable');
      await admin(h, 'DELETE', `/organizations/${org}/webhook-endpoints/${ep.id}`);
    });

    it('reports deliveries by outcome, queue depth and the oldest undelivered age on /metrics', async () => {
      const text = (await http(h.url, 'GET', '/metrics')).body as string;
      expect(text).toMatch(/marginal_webhook_delivery_attempts_total\{outcome="delivered"\} [1-9]/);
      expect(text).toMatch(/marginal_webhook_queue_depth \d+/);
      expect(text).toMatch(/marginal_webhook_oldest_undelivered_seconds [\d.]+/);
    });
  },
  { components: [apiComponent({ warmDays: 0, webhooks: { pollMs: 100, now: workerClock } })], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } },
);

describe('the delivery worker at start', () => {
  // The api awaits start() before it listens: a backlog for an endpoint that never answers (10 s
  // per attempt) must not hold it. The host's own worker ticks once at its start, then hourly, so
  // the worker under test is the one that claims the delivery.
  let h: TestHost;
  const receiver = new WebhookReceiver();
  beforeAll(async () => {
    h = await startTestHost({
      components: [apiComponent({ warmDays: 0, webhooks: { pollMs: 3_600_000 } })],
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    });
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await h.stop();
  });

  it('settles once its first claim ran, while the claimed delivery still waits for a receiver that does not answer', async () => {
    const org = (await admin(h, 'POST', '/organizations', { name: 'slow' })).body.organization_id;
    const { endpoint } = await createEndpoint(h.db, TEST_MASTER_KEY, org, { url: receiver.url, enabledEvents: ['*'], description: null });
    await sendTestEvent(h.db, org, endpoint.id, newEventId());
    receiver.mode = { hang: true };
    const worker = new DeliveryWorker(h.db, TEST_MASTER_KEY, createLogger('silent'), { allowPrivateUrls: true, pollMs: 3_600_000 });
    const started = performance.now();
    await worker.start();
    const startMs = performance.now() - started;
    // The first tick claimed it and is sending it: the receiver holds the request open.
    await eventually(() => receiver.received.length === 1);
    expect(startMs).toBeLessThan(5_000);
    const attempts = await admin(h, 'GET', `/organizations/${org}/webhook-endpoints/${endpoint.id}/attempts?limit=10`);
    expect(attempts.body.attempts).toEqual([]); // no attempt finished yet
    receiver.mode = { status: 200 };
    await receiver.stop(); // ends the held request: the attempt fails at once and stop() returns
    await worker.stop();
  });
});

describe('webhook URLs with WEBHOOK_ALLOW_PRIVATE_URLS off', () => {
  let h: TestHost;
  const receiver = new WebhookReceiver();
  beforeAll(async () => {
    h = await startTestHost({ components: [apiComponent({ warmDays: 0 })], env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' } });
    await receiver.start();
  });
  afterAll(async () => {
    await h.stop();
    await receiver.stop();
  });
  afterEach(() => (receiver.received.length = 0));

  it('refuses loopback and private addresses when the endpoint is added', async () => {
    const org = (await admin(h, 'POST', '/organizations', { name: 'x' })).body.organization_id;
    for (const url of [
      receiver.url,
      'http://10.1.2.3/hook',
      'http://[::1]:9/hook',
      'http://169.254.169.254/latest',
      'http://localhost:1/x',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const res = await admin(h, 'POST', `/organizations/${org}/webhook-endpoints`, { url, enabled_events: ['*'] });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details.field).toBe('url');
    }
  });

  it('refuses at send time a host name that resolves to a loopback address, without connecting', async () => {
    const result = await sendWebhook(`http://localhost:${receiver.port}/hook`, {}, '{}', { allowPrivate: false });
    expect(result.outcome).toBe('refused');
    expect(result.error).toMatch(/loopback or private/);
    const literal = await sendWebhook(receiver.url, {}, '{}', { allowPrivate: false });
    expect(literal.outcome).toBe('refused');
    expect(receiver.received).toHaveLength(0);
    // Allowed, the same URL is delivered.
    expect((await sendWebhook(`http://localhost:${receiver.port}/hook`, {}, '{}', { allowPrivate: true })).outcome).toBe('delivered');
  });
});
