import { randomBytes } from 'node:crypto';
import { expect, test } from './test';
import { parsePrometheusText, sampleValue, type Family } from '../tests/helpers/promText';
import { bootstrapKey } from './bootstrapKey';
import { baseUrls } from './servers';

/**
 * GET /metrics on the production build (docs/operations.md "Metrics"): refused without the
 * token (playwright.config.ts gives the servers METRICS_TOKEN), strict Prometheus text with it,
 * and a booking through /v1 moves the request and decision counters of the instance it
 * reached. Also the health probes.
 */
const base = baseUrls[0];
const token = process.env.E2E_METRICS_TOKEN!;

test.describe('metrics and probes', () => {
  test('GET /metrics: 401 without or with a wrong token, Prometheus text with it; a booking moves the counters', async ({ request }) => {
    const none = await request.get(`${base}/metrics`);
    expect(none.status()).toBe(401);
    expect(await none.text()).not.toContain('scheduler_');
    expect((await request.get(`${base}/metrics`, { headers: { Authorization: `Bearer ${token}-not` } })).status()).toBe(401);

    const scrape = async (): Promise<Map<string, Family>> => {
      const res = await request.get(`${base}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      return parsePrometheusText(await res.text());
    };

    const suffix = randomBytes(4).toString('hex');
    const { api_key: key } = await bootstrapKey(`E2E metrics ${suffix}`);
    const auth = { Authorization: `Bearer ${key}` };
    const owner = `metrics-${suffix}@e2e.example`;
    const meetingClass = `metrics${suffix}`;
    expect((await request.post(`${base}/v1/owners`, { headers: auth, data: { email: owner, time_zone: 'UTC' } })).status()).toBe(201);
    const hours = [{ start: '00:00', end: '23:59' }];
    const rules = { owner_email: owner, working_hours: { mon: hours, tue: hours, wed: hours, thu: hours, fri: hours, sat: hours, sun: hours }, hard_blocks: [] };
    expect((await request.put(`${base}/v1/schedule-rules`, { headers: auth, data: rules })).status()).toBe(200);
    expect((await request.post(`${base}/v1/meeting-classes`, { headers: auth, data: { name: meetingClass, priority: 30 } })).status()).toBe(201);

    const before = await scrape();
    const start = new Date(Date.now() + 3 * 86_400_000);
    start.setUTCHours(10, 0, 0, 0);
    const slot = { start: start.toISOString(), end: new Date(start.getTime() + 30 * 60_000).toISOString() };
    const booked = await request.post(`${base}/v1/bookings`, { headers: auth, data: { owner_email: owner, meeting_class: meetingClass, ...slot } });
    expect(booked.status(), await booked.text()).toBe(201);
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved('scheduler_http_requests_total', { route: '/v1/bookings', method: 'POST', status: '201' })).toBe(1);
    expect(moved('scheduler_http_request_duration_seconds_count', { route: '/v1/bookings', method: 'POST', status: '201' })).toBe(1);
    expect(moved('scheduler_decisions_total', { action: 'booking.create', outcome: 'accept' })).toBe(1);
    // The runtime and the shared gauges are there too.
    for (const name of ['nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_seconds_total', 'scheduler_webhook_queue_depth', 'scheduler_db_pool_max']) {
      expect(after.has(name), name).toBe(true);
    }
  });

  for (const [i, url] of baseUrls.entries()) {
    test(`/api/health/live and /api/health/ready on instance ${i + 1}`, async ({ request }) => {
      const live = await request.get(`${url}/api/health/live`);
      expect(live.status()).toBe(200);
      expect((await live.json()).status).toBe('ok');
      const ready = await request.get(`${url}/api/health/ready`);
      const body = await ready.json();
      expect(ready.status(), JSON.stringify(body)).toBe(200);
      expect(body).toMatchObject({ status: 'ready', database: { ok: true, migrated: true }, workers: { ok: true } });
    });
  }
});
