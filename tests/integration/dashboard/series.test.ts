import { and, eq } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { auditLog, notifications, owners } from '@/db/schema';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, nextWeekday, onDate, setupOwner } from '../scheduling/fixtures';

/**
 * A recurring series on the owner's dashboard (docs/dashboard.md "Recurring series"): calendar.series
 * tells it as one meeting (the rule in words, its agent, every occurrence with its status, those
 * refused at booking too), the week marks its occurrences, a booking's details place it in its
 * series, and calendar.cancel with scope cancels one occurrence, this and the following, or the
 * whole series through the same cancellation as POST /v1/bookings/{id}/cancel. Runs on PGlite, and
 * on PostgreSQL with TEST_DATABASE_URL.
 */
const TZ = 'Europe/Berlin';
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

async function ownerCaller(email: string) {
  const [o] = await (await getDb()).select().from(owners).where(and(eq(owners.customerId, admin.customerId), eq(owners.email, email)));
  const req = new Request('http://scheduler.test/api/trpc');
  return createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId: o.id, customerId: admin.customerId, email, role: 'member' }, db: await getDb(), now: () => new Date() });
}

/** A weekly series of five Wednesdays at 10:00 Berlin, booked by an agent; the third is taken first, so min_occurrences books four. */
async function bookedSeries() {
  const owner = await setupOwner(admin, { timeZone: TZ });
  const agent = await newAgent(admin, ['create_bookings']);
  const wed = nextWeekday('wed', TZ);
  const third = onDate(Temporal.PlainDate.from(wed.date).add({ days: 14 }).toString(), TZ);
  const taken = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: third.at('10:00'), end: third.at('11:00'), title: 'In the way' } });
  expect(taken.status, taken.text).toBe(201);
  const r = await call('POST', '/v1/bookings', {
    key: agent.key,
    body: { owner_email: owner, meeting_class: 'internal', start: wed.at('10:00'), end: wed.at('11:00'), title: 'Weekly sync', recurrence: 'FREQ=WEEKLY;BYDAY=WE;COUNT=5', min_occurrences: 3 },
  });
  expect(r.status, r.text).toBe(201);
  const ids = (r.body.series.bookings as { booking_id: string }[]).map((b) => b.booking_id);
  expect(ids).toHaveLength(4);
  return { owner, agent, seriesId: r.body.series.series_id as string, ids, wed, third };
}

describe('calendar.series', () => {
  it('tells the series as one meeting: the rule in words, its agent, each occurrence with its status, the refused one too', async () => {
    const { owner, agent, seriesId, ids, wed, third } = await bookedSeries();
    const caller = await ownerCaller(owner);
    const series = await caller.calendar.series({ id: seriesId });
    expect(series).toMatchObject({
      series_id: seriesId,
      title: 'Weekly sync',
      meeting_class: 'internal',
      agent: { id: agent.agentId, name: 'test agent' },
      time_zone: TZ,
      recurrence: 'FREQ=WEEKLY;BYDAY=WE;COUNT=5',
      rule_words: 'Weekly on Wednesday, 5 times',
      counts: { confirmed: 4, cancelled: 0, preempted: 0, refused: 1 },
    });
    expect(series.occurrences.map((o) => [o.index, o.booking_id, o.status])).toEqual([
      [0, ids[0], 'confirmed'],
      [1, ids[1], 'confirmed'],
      [2, null, 'refused'],
      [3, ids[2], 'confirmed'],
      [4, ids[3], 'confirmed'],
    ]);
    expect(series.occurrences[0]).toMatchObject({ start: wed.at('10:00'), date: wed.date.toString() });
    expect(series.occurrences[2]).toMatchObject({ start: third.at('10:00'), end: third.at('11:00'), reason: 'the time was already taken' });
    // Named by an occurrence's id: the same series.
    expect(await caller.calendar.series({ id: ids[2] })).toEqual(series);

    // The week marks its occurrences; the details place one in its series.
    const week = await caller.calendar.week({ week: wed.date.toString() });
    expect(week.events.find((e) => e.id === ids[0])).toMatchObject({ series_id: seriesId });
    expect(await caller.calendar.claim({ id: ids[1] })).toMatchObject({
      series: { series_id: seriesId, rule_words: 'Weekly on Wednesday, 5 times', position: 2, total: 5, booked_from_here: 3, booked: 4 },
    });
  });

  it("is another owner's to read only if theirs: BOOKING_NOT_FOUND, as for an unknown id", async () => {
    const { seriesId, ids } = await bookedSeries();
    const stranger = await ownerCaller(await setupOwner(admin, { timeZone: TZ }));
    for (const id of [seriesId, ids[0], crypto.randomUUID(), 'not-an-id']) await expect(stranger.calendar.series({ id })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_FOUND' } });
    await expect(stranger.calendar.cancel({ booking_id: ids[0], reason: 'mine now', scope: 'series' })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_FOUND' } });
  });
});

describe('calendar.cancel with scope', () => {
  it('one occurrence, then this and the following, then the series: those still booked, each audited and told to the agent with the series_id', async () => {
    const { owner, agent, seriesId, ids } = await bookedSeries();
    const caller = await ownerCaller(owner);
    const statuses = async () => (await caller.calendar.series({ id: seriesId })).occurrences.map((o) => o.status);

    const one = await caller.calendar.cancel({ booking_id: ids[1], reason: 'Offsite that week', scope: 'occurrence' });
    expect(one).toMatchObject({ id: ids[1], status: 'cancelled', series: { series_id: seriesId } });
    expect(one.history.at(-1)).toMatchObject({ what: 'cancelled', text: 'Cancelled by you: Offsite that week' });
    expect(await statuses()).toEqual(['confirmed', 'cancelled', 'refused', 'confirmed', 'confirmed']);
    // The same occurrence again: already cancelled.
    await expect(caller.calendar.cancel({ booking_id: ids[1], reason: 'again', scope: 'occurrence' })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_ACTIVE' } });

    await caller.calendar.cancel({ booking_id: ids[2], reason: 'Project ends', scope: 'following' });
    expect(await statuses()).toEqual(['confirmed', 'cancelled', 'refused', 'cancelled', 'cancelled']);
    expect((await caller.calendar.series({ id: seriesId })).occurrences[4].reason).toBe('Project ends');

    await caller.calendar.cancel({ booking_id: ids[3], reason: 'All off', scope: 'series' });
    expect(await statuses()).toEqual(['cancelled', 'cancelled', 'refused', 'cancelled', 'cancelled']);
    // Nothing of it is booked any more.
    await expect(caller.calendar.cancel({ booking_id: ids[0], reason: 'once more', scope: 'series' })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_ACTIVE' } });
    expect((await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed').map((c) => c.title)).toEqual(['In the way']);

    const db = await getDb();
    const audited = await db.select().from(auditLog).where(and(eq(auditLog.customerId, admin.customerId), eq(auditLog.action, 'booking.cancel'), eq(auditLog.ownerEmail, owner)));
    expect(audited.map((a) => [a.bookingId, a.actorKind, a.actorOwnerEmail, a.details?.series_id, a.reason]).sort()).toEqual(
      [
        [ids[1], 'owner', owner, seriesId, 'Offsite that week'],
        [ids[2], 'owner', owner, seriesId, 'Project ends'],
        [ids[3], 'owner', owner, seriesId, 'Project ends'],
        [ids[0], 'owner', owner, seriesId, 'All off'],
      ].sort(),
    );
    const told = await db.select().from(notifications).where(and(eq(notifications.agentId, agent.agentId), eq(notifications.kind, 'booking.cancelled')));
    expect(told.map((n) => [(n.data as Record<string, unknown>).booking_id, (n.data as Record<string, unknown>).series_id]).sort()).toEqual(ids.map((id) => [id, seriesId]).sort());
  });

  it('scope on a booking outside a series is refused on scope; without scope it cancels as before', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const thu = nextWeekday('thu', TZ);
    const single = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: thu.at('10:00'), end: thu.at('11:00'), title: 'One-off' } });
    expect(single.status, single.text).toBe(201);
    const caller = await ownerCaller(owner);
    await expect(caller.calendar.cancel({ booking_id: single.body.booking_id, reason: 'no', scope: 'following' })).rejects.toMatchObject({
      cause: { code: 'invalid_request', fields: [{ field: 'scope', message: expect.stringMatching(/not an occurrence of a recurring series/) }] },
    });
    expect(await caller.calendar.claim({ id: single.body.booking_id })).toMatchObject({ status: 'confirmed', series: null });
    expect(await caller.calendar.cancel({ booking_id: single.body.booking_id, reason: 'Not needed' })).toMatchObject({ status: 'cancelled', series: null });
  });
});
