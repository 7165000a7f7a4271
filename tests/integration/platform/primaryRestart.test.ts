import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import postgres from 'postgres';
import { claims, owners } from '@/db/schema';
import { closeDb, getDb, getDbHandle } from '@/server/db';
import { api, newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { dashboardCookie } from '../../helpers/dashboardSession';
import { setOwnerPassword } from '@/server/domain/passwords';
import { NEEDS_PG_BINARIES, postgresBinariesPresent, throwawayPostgres } from '../../helpers/throwawayPostgres';
import { nextWeekday, setupOwner } from '../scheduling/fixtures';

/**
 * The service on a PostgreSQL whose primary goes away mid-request (docs/operations.md "High
 * availability"): a booking waiting inside its transaction when the server is stopped answers
 * 503 service_unavailable with Retry-After (never 500, never a booking it did not commit); a
 * request while it is down answers the same; once the server is back, the pool reconnects, a
 * retry with the same Idempotency-Key books once, and a further retry replays that answer. The
 * dashboard's tRPC answers the same 503 while the database is down.
 *
 * It starts a server of its own (initdb, pg_ctl) on PRIMARY_RESTART_PORT (default: a free
 * loopback port), so it runs once, in the embedded-database project, with or without
 * TEST_DATABASE_URL.
 */
const SKIP_ON_PG_PROJECT = 'runs once, in the integration-pglite project: it starts a PostgreSQL server of its own';
let server: Awaited<ReturnType<typeof throwawayPostgres>> | undefined;
let admin: TestCustomer;
let owner: string;
let skipReason: string | undefined;

async function freePort(): Promise<number> {
  const fixed = Number(process.env.PRIMARY_RESTART_PORT);
  if (fixed) return fixed;
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

beforeAll(async () => {
  if (process.env.DB_DRIVER !== 'pglite-memory') return void (skipReason = SKIP_ON_PG_PROJECT);
  if (!postgresBinariesPresent()) return void (skipReason = NEEDS_PG_BINARIES);
  server = await throwawayPostgres(await freePort());
  await closeDb();
  process.env.DATABASE_URL = server.url;
  process.env.DB_DRIVER = 'postgres';
  process.env.DB_POOL_MAX = '4';
  admin = await newCustomer();
  owner = await setupOwner(admin);
}, 120_000);

afterAll(async () => {
  await closeDb().catch(() => {});
  await server?.remove();
});

const book = (body: object, idempotencyKey: string) => api('POST', '/v1/bookings', { key: admin.key, body, idempotencyKey, ip: '10.43.0.1' });

async function bookingsOf(email: string): Promise<number> {
  const db = await getDb();
  const [o] = await db.select().from(owners).where(and(eq(owners.customerId, admin.customerId), eq(owners.email, email)));
  const rows = await db.select().from(claims).where(and(eq(claims.ownerId, o.id), eq(claims.kind, 'booking'), eq(claims.status, 'confirmed')));
  return rows.length;
}

function expectUnavailable(res: ApiResponse) {
  expect(res.status, res.text).toBe(503);
  expect(res.body.error.code).toBe('service_unavailable');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe('losing the primary mid-request', () => {
  it('answers 503 with Retry-After, then recovers and books once on an idempotent retry', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const day = nextWeekday('tue', 'UTC');
    const body = { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') };
    const key = `restart-${Date.now()}`;

    // The dashboard's owner, signed in before the outage (tRPC answers the same 503 as /v1).
    await setOwnerPassword(await getDb(), admin.customerId, owner, 'restart password 123');
    const cookie = await dashboardCookie(owner, 'restart password 123');

    // Hold the owner's row, so the booking's transaction waits inside PostgreSQL for it.
    // (A reserved connection, sent nothing after the lock: it is terminated with the server.)
    const blocker = postgres(server!.url, { max: 1, onnotice: () => {} });
    const held = await blocker.reserve();
    await held`begin`;
    expect(await held`select id from owners where customer_id = ${admin.customerId} and email = ${owner} for update`).toHaveLength(1);
    const pending = book(body, key);
    const watcher = postgres(server!.url, { max: 1, onnotice: () => {} });
    await expect.poll(async () => (await watcher`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock'`)[0].n, { timeout: 20_000 }).toBeGreaterThan(0);
    await watcher.end({ timeout: 1 });

    await server!.stop();
    expectUnavailable(await pending);
    expectUnavailable(await book(body, `${key}-down`));
    const dashboard = await api('GET', '/api/trpc/session.me', { headers: { cookie }, ip: '10.43.0.1' });
    expect(dashboard.status, dashboard.text).toBe(503);
    expect(dashboard.body.error.data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503, domain: { code: 'service_unavailable' } });
    expect(Number(dashboard.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await expect(getDbHandle().then((h) => h.ping())).rejects.toThrow();
    await blocker.end({ timeout: 1 }).catch(() => {});

    await server!.start();
    // The same key again: 503 while the pool reconnects, 409 IDEMPOTENCY_IN_FLIGHT until the key is freed; then booked once.
    let retried: ApiResponse | undefined;
    for (let i = 0; i < 60; i++) {
      retried = await book(body, key);
      if (retried.status !== 503 && !(retried.status === 409 && retried.body.error?.code === 'IDEMPOTENCY_IN_FLIGHT')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(retried!.status, retried!.text).toBe(201);
    expect(retried!.headers.get('idempotent-replayed')).toBeNull();
    const replay = await book(body, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(retried!.text);
    expect(await bookingsOf(owner)).toBe(1);
    await expect(getDbHandle().then((h) => h.ping())).resolves.toBeUndefined();
  }, 120_000);
});
