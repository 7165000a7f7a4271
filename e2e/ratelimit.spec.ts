import { randomBytes } from 'node:crypto';
import { expect, test } from './test';
import { bootstrapKey } from './bootstrapKey';
import { baseUrls, usesPostgres, usesRedis } from './servers';

test.describe('rate limits across instances', () => {
  test.skip(!usesPostgres || !usesRedis || baseUrls.length < 2, 'needs two instances sharing PostgreSQL and Redis (E2E_DATABASE_URL and E2E_REDIS_URL)');

  test('the 121st POST /v1/holds of a key within a minute gets 429 with Retry-After, counted across both instances', async ({ request }) => {
    test.setTimeout(120_000);
    const suffix = randomBytes(4).toString('hex');
    const { api_key } = await bootstrapKey(`E2E limits ${suffix}`);
    const headers = { Authorization: `Bearer ${api_key}` };
    const owner = `limits-${suffix}@e2e.example`;
    expect((await request.post(`${baseUrls[0]}/v1/owners`, { headers, data: { email: owner, time_zone: 'UTC' } })).status()).toBe(201);
    expect((await request.post(`${baseUrls[0]}/v1/meeting-classes`, { headers, data: { name: 'internal', priority: 30 } })).status()).toBe(201);

    // Windows align to whole minutes: start the burst with room left in this one.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 25_000) await new Promise((r) => setTimeout(r, left + 100));

    // Distinct 15-minute candidates a week ahead (no working hours: every time is bookable).
    const base = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 8);
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) {
      const start = new Date(base + i * 15 * 60_000).toISOString();
      const end = new Date(base + (i + 1) * 15 * 60_000).toISOString();
      const res = await request.post(`${baseUrls[i % 2]}/v1/holds`, {
        headers,
        data: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start, end } },
      });
      statuses.push(res.status());
      expect(res.headers()['ratelimit-limit']).toBe('120');
    }
    expect(statuses.filter((s) => s !== 200), `statuses: ${statuses.join(',')}`).toEqual([]);

    const start = new Date(base + 200 * 15 * 60_000).toISOString();
    const end = new Date(base + 201 * 15 * 60_000).toISOString();
    for (const instance of baseUrls) {
      const denied = await request.post(`${instance}/v1/holds`, { headers, data: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start, end } } });
      expect(denied.status()).toBe(429);
      const retryAfter = Number(denied.headers()['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const body = await denied.json();
      expect(body.error.code).toBe('rate_limited');
      expect(body.pending_notifications).toEqual([]);
    }
  });
});
