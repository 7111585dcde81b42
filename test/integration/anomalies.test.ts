// Cost anomalies through the real pipeline (signed ingest → Kafka → processor → lake → GET
// /v1/anomalies; the api's cost.anomaly tick → outbox → signed webhook to a receiver on
// 127.0.0.1). The figures are worked out here from the rate card, never read back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../support/http.js';
import {
  apiGet,
  createTenant,
  ingest,
  issueKey,
  llmEvent,
  startPipeline,
  waitForLake,
  type Pipeline,
  type Tenant,
} from '../support/pipeline.js';
import { eventually } from '../support/eventually.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { DAY_MS, utcDate } from '../../core/time.js';

// $10 per million input tokens: 100 000 input tokens cost $1.
const CARD = {
  model_slug: 'acme-model',
  input_cost_per_million: '10',
  output_cost_per_million: '20',
  effective_from: '2025-01-01T00:00:00Z',
};
const TODAY = Math.floor(Date.now() / DAY_MS) * DAY_MS;
/** The spike is yesterday (UTC): the tick looks at yesterday and today. */
const SPIKE_DAY = utcDate(new Date(TODAY - DAY_MS));
const STEADY_DAYS = 30;
const HOUR_MS = 3_600_000;
/** The hourly spike is in the last completed hour of today (none before 01:00 UTC: those tests skip). */
const SPIKE_HOUR = Math.floor((Date.now() - TODAY) / HOUR_MS) - 1;
const SPIKE_HOUR_ISO = `${utcDate(new Date(TODAY))}T${String(SPIKE_HOUR).padStart(2, '0')}:00:00Z`;
/** Bob's other hour of day, 12 hours away (always a completed hour of the previous days). */
const BUSY_HOUR = (SPIKE_HOUR + 12) % 24;

describe('cost anomalies, end to end', () => {
  let p: Pipeline;
  let t: Tenant;
  const receiver = new WebhookReceiver();
  /** A second tenant for the hourly check, with its own receiver. */
  let hourlyTenant: Tenant;
  const hourlyReceiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    await hourlyReceiver.start();
    p = await startPipeline({
      api: { warmDays: 0, webhooks: { pollMs: 100 }, anomalyAlerts: { intervalMs: 300 } },
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    });
    t = await createTenant(p, { rateCards: [CARD] });
    const ep = await admin(p.host, 'POST', `/organizations/${t.organizationId}/webhook-endpoints`, {
      url: receiver.url,
      enabled_events: ['cost.anomaly'],
    });
    expect(ep.status).toBe(201);
    // Alice: 2 events of $1 at noon on each of the 30 days before the spike day ($2 a day), then 8 ($8).
    const events = [];
    for (let n = STEADY_DAYS; n >= 0; n--) {
      const day = TODAY - DAY_MS - n * DAY_MS;
      const count = n === 0 ? 8 : 2;
      for (let i = 0; i < count; i++) {
        events.push(
          llmEvent(`a-${n}-${i}`, {
            user_id: 'alice',
            model: 'acme-model',
            input_tokens: 100_000,
            output_tokens: 0,
            timestamp: new Date(day + 12 * 3_600_000 + i * 1000).toISOString(),
          }),
        );
      }
    }
    await ingest(p, t, events);
    await waitForLake(p, t.organizationId, events.length, 90_000);

    hourlyTenant = await createTenant(p, { rateCards: [CARD] });
    const hourlyEp = await admin(p.host, 'POST', `/organizations/${hourlyTenant.organizationId}/webhook-endpoints`, {
      url: hourlyReceiver.url,
      enabled_events: ['cost.anomaly'],
    });
    expect(hourlyEp.status).toBe(201);
    // Bob, on each of the 28 days before today: $1 at SPIKE_HOUR and $9 at BUSY_HOUR ($10 a day);
    // today: three events of $1 in SPIKE_HOUR ($3).
    const bob = (key: string, at: number, inputTokens: number) =>
      llmEvent(key, {
        user_id: 'bob',
        model: 'acme-model',
        input_tokens: inputTokens,
        output_tokens: 0,
        timestamp: new Date(at).toISOString(),
      });
    const hourlyEvents = [];
    if (SPIKE_HOUR >= 0) {
      for (let n = 1; n <= 28; n++) {
        const day = TODAY - n * DAY_MS;
        hourlyEvents.push(bob(`b-${n}-spike-hour`, day + SPIKE_HOUR * HOUR_MS + 600_000, 100_000));
        hourlyEvents.push(bob(`b-${n}-busy-hour`, day + BUSY_HOUR * HOUR_MS + 600_000, 900_000));
      }
      for (let i = 0; i < 3; i++) hourlyEvents.push(bob(`b-today-${i}`, TODAY + SPIKE_HOUR * HOUR_MS + 60_000 + i * 1000, 100_000));
      await ingest(p, hourlyTenant, hourlyEvents);
      await waitForLake(p, hourlyTenant.organizationId, hourlyEvents.length, 90_000);
    }
  }, 240_000);
  afterAll(async () => {
    await p?.stop();
    await receiver.stop();
    await hourlyReceiver.stop();
  });

  const range = { start_date: utcDate(new Date(TODAY - 7 * DAY_MS)), end_date: utcDate(new Date(TODAY + DAY_MS)) };

  it('names the spike day, the end user and the model: cost 8, baseline 2 (the median of the same weekday, $2), increase 6', async () => {
    // The api's view of the lake follows its manifests a moment after the lake holds the events.
    const res = await eventually(
      async () => {
        const r = await apiGet(p, t.readKey, '/anomalies', range);
        return r.status !== 200 || r.body.items.length > 0 ? r : false;
      },
      20_000,
      'the anomalies read',
    );
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      {
        date: SPIKE_DAY,
        dimension: 'end_user',
        value: 'alice',
        cost: '8',
        baseline: '2',
        increase: '6',
        ratio: 4,
        // (8 / 2 − 1) / the 5% floor of a steady series.
        z_score: 60,
        contributors: [{ dimension: 'model', value: 'acme-model', cost: '8', baseline: '2', increase: '6' }],
      },
      {
        date: SPIKE_DAY,
        dimension: 'model',
        value: 'acme-model',
        cost: '8',
        baseline: '2',
        increase: '6',
        ratio: 4,
        z_score: 60,
        contributors: [{ dimension: 'end_user', value: 'alice', cost: '8', baseline: '2', increase: '6' }],
      },
    ]);
    // Steady days are no anomaly.
    const before = await apiGet(p, t.readKey, '/anomalies', { start_date: utcDate(new Date(TODAY - 8 * DAY_MS)), end_date: SPIKE_DAY });
    expect(before.body.items).toEqual([]);
  });

  it('fires cost.anomaly exactly once per (date, dimension, value) however many ticks run', async () => {
    const anomalies = () => receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === 'cost.anomaly');
    await eventually(() => anomalies().length >= 2, 20_000, 'two cost.anomaly webhooks');
    // Ten more ticks of 300 ms: nothing new.
    await new Promise((r) => setTimeout(r, 3_000));
    const got = anomalies();
    expect(got).toHaveLength(2);
    expect(got.map((b) => `${b.data.date} ${b.data.dimension} ${b.data.value}`).sort()).toEqual([
      `${SPIKE_DAY} end_user alice`,
      `${SPIKE_DAY} model acme-model`,
    ]);
    const alice = got.find((b) => b.data.dimension === 'end_user');
    expect(alice.data).toMatchObject({ cost: '8', baseline: '2', contributors: [{ dimension: 'model', value: 'acme-model' }] });
  });

  it.skipIf(SPIKE_HOUR < 0)('names the spiking hour of today: $3 in that hour against $1 at that hour on previous days', async () => {
    const today = { start_date: utcDate(new Date(TODAY)), end_date: utcDate(new Date(TODAY + DAY_MS)) };
    const res = await eventually(
      async () => {
        const r = await apiGet(p, hourlyTenant.readKey, '/anomalies', today);
        return r.status !== 200 || r.body.items.length > 0 ? r : false;
      },
      20_000,
      'the hourly anomalies read',
    );
    expect(res.status).toBe(200);
    // Today's $3 so far is no daily spike (the day's baseline is $10); the hour is: its baseline is the
    // median of SPIKE_HOUR on the same weekday over 28 days, $1; ratio 3 / 1 = 3, increase 3 − 1 = 2,
    // z = (3 − 1) / the 5% floor = 40. BUSY_HOUR today cost nothing: no item.
    const hourItem = (dimension: string, value: string, contributor: { dimension: string; value: string }) => ({
      date: utcDate(new Date(TODAY)),
      hour: SPIKE_HOUR_ISO,
      dimension,
      value,
      cost: '3',
      baseline: '1',
      increase: '2',
      ratio: 3,
      z_score: 40,
      contributors: [{ ...contributor, cost: '3', baseline: '1', increase: '2' }],
    });
    expect(res.body.items).toEqual([
      hourItem('end_user', 'bob', { dimension: 'model', value: 'acme-model' }),
      hourItem('model', 'acme-model', { dimension: 'end_user', value: 'bob' }),
    ]);
    // Up to yesterday there is nothing: bob's days are steady at $10.
    const before = await apiGet(p, hourlyTenant.readKey, '/anomalies', {
      start_date: utcDate(new Date(TODAY - 7 * DAY_MS)),
      end_date: today.start_date,
    });
    expect(before.body.items).toEqual([]);
  });

  it.skipIf(SPIKE_HOUR < 0)('fires cost.anomaly once per flagged hour and series, carrying the hour and the contributor', async () => {
    const anomalies = () => hourlyReceiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === 'cost.anomaly');
    await eventually(() => anomalies().length >= 2, 20_000, 'two hourly cost.anomaly webhooks');
    await new Promise((r) => setTimeout(r, 3_000)); // ten more ticks: nothing new
    const got = anomalies();
    expect(got.map((b) => `${b.data.hour} ${b.data.dimension} ${b.data.value}`).sort()).toEqual([
      `${SPIKE_HOUR_ISO} end_user bob`,
      `${SPIKE_HOUR_ISO} model acme-model`,
    ]);
    const bobAlert = got.find((b) => b.data.dimension === 'end_user');
    expect(bobAlert.data).toMatchObject({ cost: '3', baseline: '1', contributors: [{ dimension: 'model', value: 'acme-model' }] });
  });

  it('needs costs:read and an API key', async () => {
    const usageOnly = await issueKey(p, t, ['usage:read']);
    expect((await apiGet(p, usageOnly, '/anomalies', range)).status).toBe(403);
    expect((await apiGet(p, '', '/anomalies', range)).status).toBe(401);
  });

  it('400 names the field; over 90 days is 422 DATE_RANGE_TOO_LARGE', async () => {
    const missing = await apiGet(p, t.readKey, '/anomalies', { end_date: range.end_date });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.field).toBe('start_date');
    const bad = await apiGet(p, t.readKey, '/anomalies', { start_date: range.start_date, end_date: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('end_date');
    const reversed = await apiGet(p, t.readKey, '/anomalies', { start_date: range.end_date, end_date: range.start_date });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.details.field).toBe('start_date');
    const tooLong = await apiGet(p, t.readKey, '/anomalies', { start_date: '2026-01-01', end_date: '2026-04-02' });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.error).toMatchObject({ code: 'DATE_RANGE_TOO_LARGE', details: { field: 'end_date' } });
    expect((await apiGet(p, t.readKey, '/anomalies', { start_date: '2026-01-01', end_date: '2026-04-01' })).status).toBe(200);
  });
});
