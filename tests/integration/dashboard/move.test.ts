import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { auditLog, owners } from '@/db/schema';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from '../scheduling/fixtures';

/** calendar.move (docs/dashboard.md "Calendar", docs/api.md "Reschedule"): the owner moves a booking in place from its details. */
const TZ = 'Europe/Berlin';
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

async function ownerOf(email: string) {
  const [o] = await (await getDb()).select().from(owners).where(and(eq(owners.customerId, admin.customerId), eq(owners.email, email)));
  const req = new Request('http://scheduler.test/api/trpc');
  return { id: o.id, caller: createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId: o.id, customerId: admin.customerId, email, role: 'member' }, db: await getDb(), now: () => new Date() }) };
}

async function book(email: string, cls: string, start: string, end: string, title: string) {
  const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: email, meeting_class: cls, start, end, title } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body as { booking_id: string };
}

describe('calendar.move', () => {
  it("moves a booking in place; its agent hears who moved it; audited by the owner; another owner's booking is not found", async () => {
    const email = await setupOwner(admin, { timeZone: TZ });
    const mon = nextWeekday('mon', TZ);
    const b = await book(email, 'internal', mon.at('10:00'), mon.at('10:30'), 'Planning');
    await call('GET', '/v1/notifications', { key: admin.key });
    const { id: ownerId, caller } = await ownerOf(email);
    const details = await caller.calendar.move({ booking_id: b.booking_id, start: mon.at('14:00'), end: mon.at('14:30'), reason: 'a clash' });
    expect(details).toMatchObject({ id: b.booking_id, status: 'confirmed', start: new Date(mon.at('14:00')).toISOString() });
    // Its history tells the move, by whom, with the old and the new time (issue 45 item 2).
    expect(details.history.map((h) => h.what)).toEqual(['booked', 'moved']);
    expect(details.history[0].text).toMatch(/^Booked by .+ \(agent\)$/);
    expect(details.history[1]).toMatchObject({
      text: 'Moved by you (a clash)',
      from: { start: new Date(mon.at('10:00')).toISOString(), end: new Date(mon.at('10:30')).toISOString() },
      to: { start: new Date(mon.at('14:00')).toISOString(), end: new Date(mon.at('14:30')).toISOString() },
    });
    const notes = (await call('GET', '/v1/notifications', { key: admin.key })).body.notifications;
    expect(notes).toContainEqual(
      expect.objectContaining({ kind: 'booking.rescheduled', data: expect.objectContaining({ booking_id: b.booking_id, moved_by: { kind: 'owner', email }, reason: 'a clash' }) }),
    );
    const [row] = await (await getDb()).select().from(auditLog).where(and(eq(auditLog.bookingId, b.booking_id), eq(auditLog.action, 'booking.reschedule')));
    expect(row).toMatchObject({ actorKind: 'owner', actorOwnerId: ownerId, agentId: null, outcome: 'accept' });
    const other = await ownerOf(await setupOwner(admin, { timeZone: TZ }));
    await expect(other.caller.calendar.move({ booking_id: b.booking_id, start: mon.at('15:00'), end: mon.at('15:30') })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_FOUND' } });
  });

  it('asks before moving a meeting aside, as an approval does; confirmed, it preempts; a refused time leaves the booking', async () => {
    const email = await setupOwner(admin, { timeZone: TZ });
    const tue = nextWeekday('tue', TZ);
    const low = await book(email, 'focus', tue.at('11:00'), tue.at('11:30'), 'Focus');
    const high = await book(email, 'external', tue.at('09:00'), tue.at('09:30'), 'Client');
    const { caller } = await ownerOf(email);
    await expect(caller.calendar.move({ booking_id: high.booking_id, start: tue.at('11:00'), end: tue.at('11:30') })).rejects.toMatchObject({
      cause: { code: 'PREEMPTION_NOT_CONFIRMED', extra: { displaced: [expect.objectContaining({ id: low.booking_id })] } },
    });
    const moved = await caller.calendar.move({ booking_id: high.booking_id, start: tue.at('11:00'), end: tue.at('11:30'), confirm_preemption: [low.booking_id] });
    expect(moved.start).toBe(new Date(tue.at('11:00')).toISOString());
    expect((await call('GET', `/v1/bookings/${low.booking_id}`, { key: admin.key })).body.status).toBe('preempted');
    // Outside working hours: refused, unchanged.
    await expect(caller.calendar.move({ booking_id: high.booking_id, start: tue.at('20:00'), end: tue.at('20:30') })).rejects.toMatchObject({ cause: { code: 'ARBITRATION_REJECTED' } });
    expect((await call('GET', `/v1/bookings/${high.booking_id}`, { key: admin.key })).body.start).toBe(new Date(tue.at('11:00')).toISOString());
  });
  it('a member of a group booking moves with its group (docs/groups.md "Reschedule"); audited by the owner at every owner', async () => {
    const one = await setupOwner(admin, { timeZone: TZ });
    const two = await setupOwner(admin, { timeZone: TZ });
    const wed = nextWeekday('wed', TZ);
    const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_emails: [one, two], meeting_class: 'internal', start: wed.at('10:00'), end: wed.at('10:30'), title: 'Pair' } });
    expect(res.status, res.text).toBe(201);
    const mine = res.body.members.find((m: { owner_email: string }) => m.owner_email === one).booking_id as string;
    const theirs = res.body.members.find((m: { owner_email: string }) => m.owner_email === two).booking_id as string;
    const { caller } = await ownerOf(one);
    const details = await caller.calendar.move({ booking_id: mine, start: wed.at('13:00'), end: wed.at('13:30') });
    expect(details).toMatchObject({ id: mine, start: new Date(wed.at('13:00')).toISOString() });
    expect((await call('GET', `/v1/bookings/${theirs}`, { key: admin.key })).body.start).toBe(new Date(wed.at('13:00')).toISOString());
    const rows = await (await getDb()).select().from(auditLog).where(and(eq(auditLog.action, 'booking.reschedule'), eq(auditLog.actorOwnerEmail, one)));
    expect(rows.map((r) => r.bookingId).sort()).toEqual([mine, theirs].sort());
  });
});
