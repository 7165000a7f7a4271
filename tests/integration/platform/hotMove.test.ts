import { beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq, isNull, or } from 'drizzle-orm';
import { getDb, type Executor } from '@/server/db';
import { insertClaim, type NewClaim } from '@/db/hot/claims';
import { bookingOwnerRows, lockMove, movedRow, moveBookingRow } from '@/db/hot/move';
import { defer, runTransaction } from '@/db/hot/driver';
import { loadTargetRow } from '@/db/hot/target';
import { claims, owners } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { createOwner } from '@/server/domain/ownerService';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { bookingRow, hotWorld } from './hotWorld';

/**
 * The reschedule's hand-written statements (db/hot/move.ts) answer what the Drizzle query
 * builder answers for the same question (docs/architecture.md, "Where SQL lives"), as
 * hotStatements.test.ts holds the others to.
 */
let admin: TestCustomer;
let owner: { id: string; email: string };
let classId: string;
const CLASS = `move-${newId().slice(-6)}`;
const T = (h: number, m = 0) => new Date(Date.UTC(2033, 4, 6, h, m));

beforeAll(async () => {
  ({ admin, owner, classId } = await hotWorld(CLASS));
});

const booking = (over: Partial<NewClaim> & { startAt: Date; endAt: Date }): NewClaim => bookingRow({ admin, owner, classId }, over);

async function drizzleClaim(db: Executor, id: string) {
  const [row] = await db.select().from(claims).where(eq(claims.id, id));
  return row;
}

describe('the reschedule statements equal their Drizzle equivalents', () => {
  it('LOCK_MOVE: the owner, the booking, its calendar and its class as Drizzle reads them; nothing for another owner, customer or a hold', async () => {
    const db = await getDb();
    const target = await loadTargetRow(db, admin.customerId, { email: owner.email, meetingClass: CLASS }, false);
    const b = booking({ startAt: T(9), endAt: T(10), calendarId: target!.calendar!.id, meetingClassId: classId, title: 'Sync', attendees: [{ email: 'a@example.com', name: 'A', response: 'accepted' }] });
    await insertClaim(db, b);
    const locked = await runTransaction(db, (tx) => lockMove(tx, owner.id, b.id, admin.customerId));
    expect(locked).toEqual({ owner: target!.owner, booking: await drizzleClaim(db, b.id), calendar: target!.calendar, meetingClass: target!.meetingClass });

    // An imported meeting: no class, no calendar.
    const bare = booking({ startAt: T(11), endAt: T(12) });
    await insertClaim(db, bare);
    expect(await runTransaction(db, (tx) => lockMove(tx, owner.id, bare.id, admin.customerId))).toMatchObject({ calendar: null, meetingClass: null, booking: { id: bare.id } });

    const other = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
    const stranger = await newCustomer();
    const hold = booking({ kind: 'hold', status: 'active', startAt: T(13), endAt: T(14), holdScope: 'candidate', expiresAt: T(15) });
    await insertClaim(db, hold);
    expect(await runTransaction(db, (tx) => lockMove(tx, other.id, b.id, admin.customerId))).toBeUndefined();
    expect(await runTransaction(db, (tx) => lockMove(tx, owner.id, b.id, stranger.customerId))).toBeUndefined();
    expect(await runTransaction(db, (tx) => lockMove(tx, owner.id, hold.id, admin.customerId))).toBeUndefined();
  });

  it('MOVE_BOOKING: the booking reads back as movedRow says (deferred to COMMIT)', async () => {
    const db = await getDb();
    const b = booking({ startAt: T(16), endAt: T(17), statusReason: null, attendees: [{ email: 'x@example.com', name: null, response: 'accepted', external: true }] });
    await insertClaim(db, b);
    const from = await drizzleClaim(db, b.id);
    const move = { startAt: T(18, 15), endAt: T(19), attendees: [{ email: 'x@example.com', name: null, response: 'needs_action' as const, external: true }], externalAccepted: false, statusReason: 'moved', updatedAt: new Date() };
    await runTransaction(db, async (tx) => defer(tx, moveBookingRow(tx, b.id, move)));
    const back = await drizzleClaim(db, b.id);
    expect(back).toEqual(movedRow(from, move));
    expect(back.sequence).toBe(from.sequence + 1);
  });

  it('BOOKING_OWNERS: a booking, or a group\'s bookings in owner-id order, with their owners, as the Drizzle join reads them', async () => {
    const db = await getDb();
    const groupId = newId();
    const second = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
    const members = [booking({ startAt: T(20), endAt: T(21), groupId }), booking({ ownerId: second.id, startAt: T(20), endAt: T(21), groupId })];
    const part = booking({ kind: 'hold', status: 'active', startAt: T(22), endAt: T(23), holdScope: 'window', expiresAt: T(23), groupId, partOfHoldId: members[0].id });
    for (const c of [...members, part]) await insertClaim(db, c);
    const drizzle = (id: string) =>
      db
        .select({ id: claims.id, ownerId: owners.id, email: owners.email, groupId: claims.groupId })
        .from(claims)
        .innerJoin(owners, eq(owners.id, claims.ownerId))
        .where(and(or(eq(claims.id, id), and(eq(claims.groupId, id), isNull(claims.partOfHoldId))), eq(claims.customerId, admin.customerId), eq(claims.kind, 'booking')))
        .orderBy(asc(claims.ownerId))
        .limit(20);
    for (const id of [members[1].id, groupId]) {
      const rows = await bookingOwnerRows(db, id, admin.customerId, 20);
      expect(rows).toEqual(await drizzle(id));
    }
    expect(await bookingOwnerRows(db, groupId, admin.customerId, 20)).toHaveLength(2);
    expect(await bookingOwnerRows(db, groupId, admin.customerId, 1)).toHaveLength(1);
    expect(await bookingOwnerRows(db, newId(), admin.customerId, 20)).toEqual([]);
  });
});
