import { expect, test } from './test';
import { baseUrls, usesPostgres, usesRedis } from './servers';

test('home page renders and shows live service status', async ({ page }) => {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Agent Scheduler');
  await expect(page.getByRole('heading', { name: 'Quickstart for agents' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'OpenAPI 3.1 document' })).toHaveAttribute('href', '/v1/openapi.json');
  // Fetched in the browser through tRPC (system.health).
  await expect(page.getByTestId('service-status')).toContainText('Operational');
  expect(problems, 'browser console errors').toEqual([]);
});

test('/v1/openapi.json is an OpenAPI 3.1 document with paths', async ({ request }) => {
  const res = await request.get('/v1/openapi.json');
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toContain('application/json');
  const doc = await res.json();
  expect(doc.openapi).toMatch(/^3\.1\./);
  expect(Object.keys(doc.paths ?? {}).length).toBeGreaterThan(0);
  expect(doc.paths).toHaveProperty('/v1/owners');
});

for (const [i, base] of baseUrls.entries()) {
  test(`/api/health is ok on instance ${i + 1} (${base})`, async ({ request }) => {
    const res = await request.get(`${base}/api/health`);
    const body = await res.json();
    expect(body, JSON.stringify(body)).toMatchObject({
      status: 'ok',
      database: { ok: true, driver: usesPostgres ? 'postgres' : 'pglite' },
      rate_limit: { ok: true, backend: usesRedis ? 'redis' : 'memory' },
    });
    expect(res.status()).toBe(200);
  });
}

test('tRPC answers system.health and maps unknown procedures to 404', async ({ request }) => {
  const ok = await request.get('/api/trpc/system.health');
  expect(ok.status()).toBe(200);
  expect((await ok.json()).result.data.status).toBe('ok');
  const missing = await request.get('/api/trpc/system.noSuchProcedure');
  expect(missing.status()).toBe(404);
});

test('a client-sent X-Forwarded-For does not choose the rate-limit bucket', async ({ request }) => {
  // Same bucket (the socket address) whatever the header says: after one counted
  // request, a "fresh" address would show limit - 1 remaining; ours shows less.
  const first = await request.get('/v1/openapi.json');
  const limit = Number(first.headers()['ratelimit-limit']);
  expect(limit).toBeGreaterThan(1);
  const spoofed = await request.get('/v1/openapi.json', { headers: { 'X-Forwarded-For': `203.0.113.${1 + Math.floor(Math.random() * 250)}` } });
  expect(Number(spoofed.headers()['ratelimit-remaining'])).toBeLessThan(limit - 1);
});
