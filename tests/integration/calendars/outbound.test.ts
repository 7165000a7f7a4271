import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { connectionCounter, withOutboundSetting } from '../../helpers/outbound';
import { call, ownerIdOf, setupOwner } from '../scheduling/fixtures';

/**
 * CalDAV connects only where the outbound guard allows (docs/reliability.md "Outbound
 * requests"; docs/calendars.md): `POST /v1/calendars/caldav` and the dashboard's discovery
 * refuse every spelling of a loopback server URL with the same 400 whether the port is open
 * or closed, and a listener on that port receives no connection. With OUTBOUND_ALLOW_PRIVATE=1
 * the same request does reach it (the control).
 */
let admin: TestCustomer;
let owner: string;
let listener: Awaited<ReturnType<typeof connectionCounter>>;
let closedPort: number;

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin);
  listener = await connectionCounter();
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  closedPort = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
});
afterAll(() => listener?.close());

const SPELLINGS = ['127.0.0.1', 'localhost', '2130706433', '0177.0.0.1', '0x7f000001', '127.1', '0.0.0.0', '[::ffff:127.0.0.1]', '[::1]', '[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[2002:7f00:1::1]'];

const connect = (serverUrl: string) =>
  call('POST', '/v1/calendars/caldav', { key: admin.key, body: { owner_email: owner, server_url: serverUrl, username: 'u', password: 'p' } });

describe('POST /v1/calendars/caldav', () => {
  it.each(SPELLINGS)('server_url http://%s:<port>/ is refused before any connection, the same for an open and a closed port', async (host) => {
    await withOutboundSetting('0', async () => {
      const before = listener.connections();
      const open = await connect(`http://${host}:${listener.port}/`);
      const closed = await connect(`http://${host}:${closedPort}/`);
      expect(listener.connections()).toBe(before);
      expect(open.status, open.text).toBe(400);
      expect(open.body.error).toMatchObject({ code: 'invalid_request', reason: 'PRIVATE_ADDRESS' });
      expect(open.body.error.message).toContain('OUTBOUND_ALLOW_PRIVATE=1');
      expect(closed.status).toBe(400);
      expect(closed.body.error).toEqual(JSON.parse(JSON.stringify(open.body.error).replaceAll(String(listener.port), String(closedPort))));
    });
  });

  it('the control: with OUTBOUND_ALLOW_PRIVATE=1 the same request reaches the listener', async () => {
    const before = listener.connections();
    await withOutboundSetting('1', () => connect(`http://127.0.0.1:${listener.port}/`));
    expect(listener.connections()).toBeGreaterThan(before);
  });
});

describe("the dashboard's CalDAV discovery (a member owner)", () => {
  it('refuses a loopback server before any connection', async () => {
    const db = await getDb();
    const req = new Request('http://scheduler.test/api/trpc');
    const trpc = createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId: await ownerIdOf(admin, owner), customerId: admin.customerId, email: owner, role: 'member' }, db, now: () => new Date() });
    await withOutboundSetting('0', async () => {
      const before = listener.connections();
      for (const host of ['127.0.0.1', 'localhost', '[::1]', '2130706433']) {
        await expect(trpc.calendars.discoverCaldav({ server_url: `http://${host}:${listener.port}/`, username: 'u', password: 'p' })).rejects.toMatchObject({
          cause: { code: 'invalid_request', reason: 'PRIVATE_ADDRESS' },
        });
      }
      expect(listener.connections()).toBe(before);
    });
  });
});
