import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { auditLog, idempotencyRecords } from '@/db/schema';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, directAgents, nextWeekday, ownerIdOf, setupOwner } from './fixtures';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';

/**
 * During a race, a claim whose slot a plain read already shows taken is refused without
 * the owner lock (server/domain/claims/earlyRefusal.ts): the test holds the owner's row lock
 * in another transaction while a first request waits for it, and the refusals still arrive,
 * with the locked path's 409 and audit rows.
 * PostgreSQL only: PGlite is one connection, so a second transaction cannot hold the lock.
 */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);
const TZ = 'UTC';
let admin: TestCustomer;

beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = await newCustomer();
});

/** Run `fn` while another transaction holds the owner's row lock. */
async function withOwnerLocked<T>(ownerId: string, fn: () => Promise<T>): Promise<T> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select id from owners where id = ${ownerId} for update`);
    return fn();
  });
}

/**
 * Resolves once a session waits for a lock (the first request, on the owner row). Matched by
 * wait state, not by query text: pg_stat_activity keeps only the first 1 kB of a statement,
 * and the target statement's column list is longer than that.
 */
async function waitForLockWaiter(ownerId: string): Promise<void> {
  const db = await getDb();
  for (;;) {
    const rows = (await db.execute(sql`select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database() and pid <> pg_backend_pid()`)) as unknown as unknown[];
    if (rows.length) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('refusals without the owner lock', () => {
  it('a booking and a candidate hold on a taken slot get their 409 while the owner is locked; the audit rows are written', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const ownerId = await ownerIdOf(admin, owner);
    const [agent] = await directAgents(admin, 1, ['create_bookings', 'create_holds']);
    const day = nextWeekday('wed', TZ);
    const slot = { start: day.at('10:00'), end: day.at('11:00') };
    const won = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } });
    expect(won.status, won.text).toBe(201);

    // A first request queues for the owner and waits on the lock; the next ones find the queue
    // busy (a race) and are answered from a read while it still waits.
    let first!: Promise<Awaited<ReturnType<typeof call>>>;
    const [booking, hold] = await withOwnerLocked(ownerId, async () => {
      first = call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } });
      await waitForLockWaiter(ownerId);
      return Promise.all([
        call('POST', '/v1/bookings', { key: agent.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } }),
        call('POST', '/v1/holds', { key: agent.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } }),
      ]);
    });
    expect((await first).status).toBe(409);
    for (const r of [booking, hold]) {
      expect(r.status, r.text).toBe(409);
      expect(r.body.error.code).toBe('ARBITRATION_REJECTED');
      expect(r.body.error.reason).toBe('COUNTER_PROPOSED');
      expect(r.body.alternatives.length).toBeGreaterThan(0);
    }
    const db = await getDb();
    const rows = await db.select().from(auditLog).where(and(eq(auditLog.ownerId, ownerId), eq(auditLog.agentId, agent.agentId)));
    expect(rows.map((r) => [r.action, r.outcome, r.reason]).sort()).toEqual([
      ['booking.create', 'counter_propose', 'COUNTER_PROPOSED'],
      ['hold.create', 'counter_propose', 'COUNTER_PROPOSED'],
    ]);
    // The audit keeps the UTC alternatives (answers add start_local/end_local for the agent).
    const utc = (alts: { start: string; end: string; reason_code: string }[]) => alts.map(({ start, end, reason_code }) => ({ start, end, reason_code }));
    for (const r of rows) expect((r.details as { alternatives: unknown[] }).alternatives).toEqual(utc(r.action === 'booking.create' ? booking.body.alternatives : hold.body.alternatives));
    expect((await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed' || c.status === 'active')).toHaveLength(1);
  });

  it('many losers of one slot share the read and the verdict, and each still gets the same 409 and an audit row of its own', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const ownerId = await ownerIdOf(admin, owner);
    const agents = await directAgents(admin, 3, ['create_bookings', 'create_holds']);
    const day = nextWeekday('tue', TZ);
    const slot = { start: day.at('14:00'), end: day.at('15:00') };
    const won = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } });
    expect(won.status, won.text).toBe(201);

    let first!: Promise<Awaited<ReturnType<typeof call>>>;
    const losers = await withOwnerLocked(ownerId, async () => {
      first = call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } });
      await waitForLockWaiter(ownerId);
      return Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call('POST', '/v1/bookings', { key: agents[i % 3].key, body: { owner_email: owner, meeting_class: 'internal', ...slot }, idempotencyKey: `share-${i}` }),
        ),
      );
    });
    expect((await first).status).toBe(409);
    for (const r of losers) {
      expect(r.status, r.text).toBe(409);
      expect(r.body.error.code).toBe('ARBITRATION_REJECTED');
      expect(r.body.alternatives).toEqual(losers[0].body.alternatives);
      expect(r.body.alternatives.length).toBeGreaterThan(0);
    }
    const db = await getDb();
    const rows = await db.select().from(auditLog).where(and(eq(auditLog.ownerId, ownerId), eq(auditLog.action, 'booking.create'), eq(auditLog.outcome, 'counter_propose')));
    // One row per loser (the first request, refused under the lock, has its own too), each with its own key.
    const keyed = rows.filter((r) => r.idempotencyKey?.startsWith('share-'));
    expect(keyed.map((r) => r.idempotencyKey).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `share-${i}`).sort());
    expect(new Set(keyed.map((r) => r.id)).size).toBe(12);
    for (const r of keyed) expect(r.agentId).toBe(agents[Number(r.idempotencyKey!.slice(6)) % 3].agentId);
    // A replay of a loser's key answers its stored 409.
    const replay = await call('POST', '/v1/bookings', { key: agents[0].key, body: { owner_email: owner, meeting_class: 'internal', ...slot }, idempotencyKey: 'share-0' });
    expect(replay.status).toBe(409);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed' || c.status === 'active')).toHaveLength(1);
  });

  it('a retry whose booking was made with its Idempotency-Key (answer not stored) finds the booking instead of being refused by it', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const [agent] = await directAgents(admin, 1, ['create_bookings']);
    const day = nextWeekday('thu', TZ);
    const body = { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('11:00') };
    const first = await call('POST', '/v1/bookings', { key: agent.key, body, idempotencyKey: 'early-1' });
    expect(first.status, first.text).toBe(201);
    // The process died after committing the booking, before storing its answer.
    const db = await getDb();
    await db.delete(idempotencyRecords).where(and(eq(idempotencyRecords.agentId, agent.agentId), eq(idempotencyRecords.key, 'early-1')));
    const retry = await call('POST', '/v1/bookings', { key: agent.key, body, idempotencyKey: 'early-1' });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body.booking_id ?? retry.body.id).toBe(first.body.booking_id ?? first.body.id);
  });
});
