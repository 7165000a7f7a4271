import { randomBytes } from 'node:crypto';
import { expect, test } from '../test';
import { databaseUrl, usesPostgres, usesRedis } from '../servers';
import { bootstrapKey } from '../bootstrapKey';
import { sleep } from './lib';
import { freePort, ServerProcess } from './serverProcess';

/**
 * The global limit, 600 requests per minute per client address, is one budget
 * across instances. Every Playwright request comes from 127.0.0.1, so
 * exhausting that address here would starve the other tests; instead this
 * test starts its own two instances with TRUST_PROXY=1 (as behind a proxy)
 * and speaks for a private client address no other test uses.
 */
test.describe('per-IP limits across instances', () => {
  test.skip(!usesPostgres || !usesRedis, 'needs PostgreSQL and Redis shared by two instances (E2E_DATABASE_URL, E2E_REDIS_URL)');

  test('the 601st request of one client address within a minute gets 429, counted across both instances', async () => {
    test.setTimeout(240_000);
    const env = { DATABASE_URL: databaseUrl!, REDIS_URL: process.env.E2E_REDIS_URL!, TRUST_PROXY: '1', PGLITE_DIR: '', DB_DRIVER: '', LOG_LEVEL: 'silent' };
    const servers = [new ServerProcess(await freePort(), { ...env }), new ServerProcess(await freePort(), { ...env })];
    servers.forEach((s) => (s.env.PORT = String(s.port)));
    try {
      await Promise.all(servers.map((s) => s.start()));
      const { api_key } = await bootstrapKey(`E2E ip ${randomBytes(4).toString('hex')}`);
      const client = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;
      const get = (i: number, ip = client) =>
        fetch(`${servers[i % 2].url}/v1/meeting-classes`, { headers: { authorization: `Bearer ${api_key}`, 'x-forwarded-for': ip } });

      // Windows align to whole minutes: start the burst with room left in this one.
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 30_000) await sleep(left + 100);

      const statuses: number[] = [];
      for (let i = 0; i < 600; i += 20) {
        const batch = await Promise.all(Array.from({ length: 20 }, (_, j) => get(i + j)));
        for (const r of batch) {
          statuses.push(r.status);
          await r.arrayBuffer();
        }
      }
      expect(statuses.filter((s) => s !== 200), `non-200 among the first 600: ${[...new Set(statuses)].join(',')}`).toEqual([]);

      for (const i of [0, 1]) {
        const denied = await get(i);
        expect(denied.status).toBe(429);
        expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(denied.headers.get('ratelimit-limit')).toBe('600');
        const body = await denied.json();
        expect(body.error.code).toBe('rate_limited');
        expect(body.pending_notifications).toEqual([]);
      }
      // Another address has its own budget on both instances.
      for (const i of [0, 1]) expect((await get(i, '198.19.0.1')).status).toBe(200);
    } finally {
      await Promise.all(servers.map((s) => s.kill9()));
    }
  });
});
