import { expect, test } from '../test';
import { baseUrls, usesPostgres } from '../servers';
import { call, iso, KeyPool, mintKeys, newCustomer, newOwner, nowMs, sleep } from './lib';

/**
 * Regression test (was a bug: the health check waited for the same pool that
 * queued transactions held; it now pings on a connection of its own, and claim
 * decisions for one owner queue in memory per instance).
 *
 * While 256 requests contend for one owner (the load of one round of
 * races.spec.ts), GET /api/health answers 503
 * `{"status":"degraded","database":{"ok":false,"error":"select 1 took longer
 * than 2000 ms"}}` - the home page then shows "Degraded - database postgres
 * unreachable" - although PostgreSQL is up and every request of the burst is
 * answered correctly. The health check's `select 1` waits for a connection of
 * the same pool (DB_POOL_MAX, 10) that the burst's transactions hold while
 * they queue for the owner's row lock, and gives up after 2 s.
 *
 * Why it matters: a load balancer or orchestrator polling /api/health takes
 * every busy instance out of rotation (or restarts it) during a load spike,
 * turning contention on one owner into an outage. It also made
 * e2e/smoke.spec.ts "home page renders and shows live service status" fail
 * when it ran beside races.spec.ts.
 *
 * The same root cause delays everything else on the instance: a booking of
 * another customer sent 1 s into the burst waits for the pool too (its
 * latency is printed, not asserted; see docs/reliability.md).
 *
 * Expected: /api/health stays 200 while the database is reachable (e.g. check
 * it on a connection outside the request pool, or report pool saturation
 * separately from reachability).
 */
test.describe('/api/health stays healthy while requests queue for one owner', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL (PostgreSQL, where requests really run concurrently)');

  test('GET /api/health stays 200 on every instance during a burst of 256 bookings for one slot', async () => {
    test.setTimeout(120_000);
    const customer = await newCustomer('E2E health under load', baseUrls[0]);
    const owner = await newOwner(customer, baseUrls[0], 'health-load');
    const pool = new KeyPool(await mintKeys(customer, baseUrls, 1, 4), 100);
    const day = 24 * 3_600_000;
    const start = Math.floor(Date.now() / day) * day + 19 * day;
    const body = { owner_email: owner, meeting_class: 'internal', start: iso(start), end: iso(start + 30 * 60_000) };

    // Another customer's owner, to time an unrelated request during the burst (reported, not asserted).
    const other = await newCustomer('E2E health bystander', baseUrls[0]);
    const otherOwner = await newOwner(other, baseUrls[0], 'bystander');
    const otherKey = (await mintKeys(other, baseUrls, 1, 1))[0].key;

    let done = false;
    const health: { instance: string; at: number; status: number; text: string }[] = [];
    const t0 = nowMs();
    const poll = (async () => {
      while (!done) {
        await Promise.all(
          baseUrls.map(async (base) => {
            const at = nowMs() - t0;
            try {
              const r = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(10_000) });
              health.push({ instance: base, at, status: r.status, text: await r.text() });
            } catch (err) {
              health.push({ instance: base, at, status: 0, text: String(err) });
            }
          }),
        );
        await sleep(200);
      }
    })();
    const bystander = (async () => {
      await sleep(1000);
      const t = nowMs();
      const r = await call(baseUrls[0], 'POST', '/v1/bookings', { key: otherKey, body: { owner_email: otherOwner, meeting_class: 'internal', start: body.start, end: body.end } });
      return { status: r.status, ms: nowMs() - t };
    })();
    const burst = await Promise.all(
      Array.from({ length: 256 }, (_, i) => call(baseUrls[i % baseUrls.length], 'POST', '/v1/bookings', { key: pool.take('bookings').key, body })),
    );
    done = true;
    await poll;
    const by = await bystander;

    // The burst itself is fine: one booking, the rest refused.
    expect(burst.filter((r) => r.status === 201).length).toBe(1);
    expect(burst.filter((r) => r.status >= 500).length).toBe(0);
    const bad = health.filter((h) => h.status !== 200);
    console.log(`[health-under-load] another customer's booking sent 1 s into the burst: ${by.status} after ${by.ms.toFixed(0)} ms`);
    console.log(`[health-under-load] ${health.length} health checks during the burst (${(nowMs() - t0).toFixed(0)} ms), ${bad.length} not 200; first: ${bad[0] ? `${bad[0].status} at +${bad[0].at.toFixed(0)} ms ${bad[0].text}` : '-'}`);
    expect(bad.map((h) => `${h.instance} +${h.at.toFixed(0)} ms: ${h.status} ${h.text}`)).toEqual([]);
  });
});
