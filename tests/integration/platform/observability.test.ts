import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServices, stopServices } from '@/server/startup';
import { api, newCustomer, type TestCustomer } from '../../helpers/app';
import { parsePrometheusText, sampleValue, type Family } from '../../helpers/promText';
import { nextWeekday, setupOwner } from '../scheduling/fixtures';

/**
 * Health split and the metrics route, in process (docs/operations.md "Health", "Metrics"):
 * /api/health/live answers; /api/health/ready needs the database migrated, Redis when
 * configured and the workers running; GET /metrics needs METRICS_TOKEN and shows a booking's
 * request and decision.
 */
const TOKEN = 'metrics-token-for-tests-0123456789';
let admin: TestCustomer;
let owner: string;
const savedToken = process.env.METRICS_TOKEN;

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
});

afterAll(async () => {
  if (savedToken === undefined) delete process.env.METRICS_TOKEN;
  else process.env.METRICS_TOKEN = savedToken;
});

async function scrape(): Promise<Map<string, Family>> {
  const res = await api('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(res.text);
}

describe('health', () => {
  it('live: the process answers, whatever its dependencies', async () => {
    const res = await api('GET', '/api/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

});

describe('GET /metrics', () => {
  it('is not served without METRICS_TOKEN, refuses a missing or wrong token', async () => {
    delete process.env.METRICS_TOKEN;
    expect((await api('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    process.env.METRICS_TOKEN = TOKEN;
    const none = await api('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await api('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
  });

  it('after a booking and a refused one, the request and decision counters moved', async () => {
    process.env.METRICS_TOKEN = TOKEN;
    const ok = { route: '/v1/bookings', method: 'POST', status: '201' };
    const accepted = { action: 'booking.create', outcome: 'accept', reason: 'none' };
    const before = await scrape();
    const day = nextWeekday('wed', 'Europe/Berlin');
    const slot = { start: day.at('10:00'), end: day.at('10:30') };
    const booked = await api('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } });
    expect(booked.status, booked.text).toBe(201);
    const refused = await api('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } });
    expect(refused.status).toBe(409);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) => sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved('scheduler_http_requests_total', ok)).toBe(1);
    expect(moved('scheduler_http_request_duration_seconds_count', ok)).toBe(1);
    expect(moved('scheduler_http_requests_total', { route: '/v1/bookings', method: 'POST', status: '409' })).toBe(1);
    expect(moved('scheduler_decisions_total', accepted)).toBe(1);
    expect(moved('scheduler_decisions_total', { action: 'booking.create', outcome: 'reject' })).toBe(1);
    expect(moved('scheduler_claim_queue_wait_seconds_count', {})).toBeGreaterThanOrEqual(1);
    // Gauges read from the database at scrape.
    expect(after.get('scheduler_webhook_queue_depth')?.samples).toHaveLength(1);
    expect(sampleValue(after, 'scheduler_db_pool_max')).toBeGreaterThanOrEqual(1);
    // Route templates only: no raw path with an id or token.
    const routes = after.get('scheduler_http_requests_total')!.samples.map((s) => s.labels.route);
    expect(routes.filter((r) => /[0-9a-f]{8}-[0-9a-f]{4}-|_[A-Za-z0-9_-]{20,}/.test(r))).toEqual([]);
  });
});

// Last: stopping the services closes the database (in memory on PGlite: its data goes).
describe('health, readiness', () => {
  it('ready: database migrated, Redis when configured, workers running; not ready once the workers stop', async () => {
    await startServices();
    try {
      const res = await api('GET', '/api/health/ready');
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe('ready');
      expect(res.body.database).toMatchObject({ ok: true, migrated: true });
      expect(res.body.redis.configured).toBe(!!process.env.REDIS_URL);
      expect(res.body.redis.ok).toBe(true);
      expect(res.body.workers.ok).toBe(true);
      expect(res.body.workers.running.map((w: { name: string }) => w.name).sort()).toEqual(expect.arrayContaining(['sweeper', 'webhooks']));
      // /api/health is unchanged.
      const legacy = await api('GET', '/api/health');
      expect(legacy.status).toBe(200);
      expect(Object.keys(legacy.body).sort()).toEqual(['checked_at', 'database', 'rate_limit', 'status']);
    } finally {
      await stopServices();
    }
    const after = await api('GET', '/api/health/ready');
    expect(after.status).toBe(503);
    expect(after.body.status).toBe('not_ready');
    expect(after.body.workers.ok).toBe(false);
    expect(after.body.workers.running.find((w: { name: string }) => w.name === 'webhooks')?.error).toBe('stopped');
  });
});
