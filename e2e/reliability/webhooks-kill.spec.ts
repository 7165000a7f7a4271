import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, test } from '../test';
import { PROJECT_ROOT, usesPostgres } from '../servers';
import { call, newCustomer, sleep } from './lib';
import { freePort, productionServer, type ServerProcess } from './serverProcess';

/**
 * Webhooks survive a SIGKILL mid-retry (docs/webhooks.md "Guarantees"): the test starts its own
 * production server (scripts/serve.mjs on the shared PostgreSQL, short retry base), registers an
 * endpoint on a receiver in this process that fails the first attempt and holds the second one
 * unanswered, kills the server with SIGKILL while that second attempt is in flight, restarts
 * it, and expects the delivery to arrive again (same Webhook-Id, once the 15 s lease of the cut
 * attempt runs out) and be recorded as delivered. The other e2e instances share the database
 * and run the worker too: whoever delivers, the row must not be lost.
 */
test.describe('webhooks: kill -9 mid-retry', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the test starts its own server on the shared PostgreSQL');
  test.skip(!fs.existsSync(path.join(PROJECT_ROOT, '.next', 'BUILD_ID')), 'needs a production build in .next (the Playwright run makes one)');
  test.setTimeout(180_000);

  let server: ServerProcess | undefined;
  let receiver: http.Server | undefined;
  test.afterAll(async () => {
    await server?.kill9();
    receiver?.closeAllConnections();
    await new Promise((r) => (receiver ? receiver.close(() => r(undefined)) : r(undefined)));
  });

  test('a delivery cut off by SIGKILL is delivered after the restart', async () => {
    const seen: { id: string; n: number; at: number }[] = [];
    let release: (() => void) | undefined;
    const secondArrived = new Promise<void>((resolve) => {
      receiver = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          const n = seen.length;
          seen.push({ id: String(req.headers['webhook-id']), n, at: Date.now() });
          if (n === 0) return res.writeHead(500).end(); // first attempt fails
          if (n === 1) {
            // second attempt: hold it unanswered until the server is killed
            release = () => res.destroy();
            return resolve();
          }
          res.writeHead(204).end();
        });
      });
    });
    const rxPort = await freePort();
    await new Promise<void>((r) => receiver!.listen(rxPort, '127.0.0.1', r));

    server = await productionServer({
      OUTBOUND_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_BASE_MS: '500',
      WEBHOOK_POLL_MS: '100',
    });
    await server.start();
    const customer = await newCustomer('E2E webhooks kill', server.url);
    const created = await call(server.url, 'POST', '/v1/webhooks', { key: customer.adminKey, body: { url: `http://127.0.0.1:${rxPort}/hook`, events: ['booking.created'] } });
    expect(created.status, created.text).toBe(201);
    const sent = await call(server.url, 'POST', `/v1/webhooks/${created.json.id}/test`, { key: customer.adminKey });
    expect(sent.status, sent.text).toBe(202);

    await secondArrived; // the first attempt failed; the retry is in flight now
    await server.kill9();
    release?.();
    const killedAt = Date.now();
    await server.start();

    const deadline = Date.now() + 90_000;
    while (!seen.some((s) => s.n >= 2) && Date.now() < deadline) await sleep(200);
    expect(seen.length, 'attempts after the restart').toBeGreaterThanOrEqual(3);
    expect(new Set(seen.map((s) => s.id))).toEqual(new Set([sent.json.delivery_id]));
    expect(seen[2].at).toBeGreaterThan(killedAt);

    let status = '';
    while (Date.now() < deadline) {
      const log = await call(server.url, 'GET', `/v1/webhooks/${created.json.id}/deliveries`, { key: customer.adminKey });
      status = log.json.deliveries[0].status;
      if (status === 'delivered') break;
      await sleep(200);
    }
    expect(status).toBe('delivered');
  });
});
