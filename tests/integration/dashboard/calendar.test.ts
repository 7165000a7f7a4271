import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { owners } from '@/db/schema';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from '../scheduling/fixtures';

const TZ = 'Europe/Berlin';
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

async function ownerOf(email: string, now: () => Date = () => new Date()) {
  const [o] = await (await getDb()).select().from(owners).where(and(eq(owners.customerId, admin.customerId), eq(owners.email, email)));
  const req = new Request('http://scheduler.test/api/trpc');
  return createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId: o.id, customerId: admin.customerId, email, role: 'member' }, db: await getDb(), now });
}

async function book(email: string, cls: string, start: string, end: string, title: string) {
  const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: email, meeting_class: cls, start, end, title, attendees: [{ email: 'guest@example.com', name: 'Guest' }] } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body as { booking_id: string; preempted_booking_ids: string[] };
}

describe('calendar.week', () => {
  it("shows seven owner-local days from Monday, working hours, hard blocks, bookings and each day's booked hours", async () => {
    const email = await setupOwner(admin, { timeZone: TZ, hardBlocks: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00' }], maxDailyMeetingHours: 6 });
    const tue = nextWeekday('tue', TZ);
    const b = await book(email, 'external', tue.at('10:00'), tue.at('11:30'), 'Review');
    const week = await (await ownerOf(email)).calendar.week({ week: tue.date.toString() });

    expect(week.days.map((d) => d.weekday)).toEqual(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']);
    expect(week.week_start).toBe(tue.date.subtract({ days: 1 }).toString());
    expect(week.next_week).toBe(tue.date.add({ days: 6 }).toString());
    expect(week.owner).toMatchObject({ time_zone: TZ, max_daily_meeting_hours: 6, working_hours_configured: true });
    const day = week.days[1];
    expect(day.date).toBe(tue.date.toString());
    expect(day.start).toBe(tue.at('00:00'));
    expect(day.working).toEqual([{ start: tue.at('09:00'), end: tue.at('17:00') }]);
    expect(day.blocks).toEqual([{ start: tue.at('12:00'), end: tue.at('13:00') }]);
    expect(day.booked_minutes).toBe(90);
    expect(week.days[5].working).toEqual([]);
    expect(week.events).toEqual([
      expect.objectContaining({ id: b.booking_id, kind: 'booking', status: 'confirmed', title: 'Review', meeting_class: 'external', priority: 50, sacred: false, attendees: 1 }),
    ]);
  });

  it('opens on the week of the next meeting when nothing is left this week (issue 45), and on the week asked for when one is', async () => {
    const email = await setupOwner(admin, { timeZone: TZ });
    const tue = nextWeekday('tue', TZ, 3);
    await book(email, 'external', tue.at('10:00'), tue.at('11:00'), 'Far ahead');
    const monday = tue.date.subtract({ days: 1 }).toString();

    const opened = await (await ownerOf(email)).calendar.week();
    expect(opened).toMatchObject({ week_start: monday, next_meeting_week: true });
    expect(opened.this_week).not.toBe(monday);
    expect(opened.events.map((e) => e.title)).toEqual(['Far ahead']);
    // Asked for a week: that week, even an empty one.
    expect(await (await ownerOf(email)).calendar.week({ week: opened.this_week })).toMatchObject({ week_start: opened.this_week, next_meeting_week: false, events: [] });
    // On that Monday morning the meeting is this week's: no jump.
    const thatMonday = new Date(tue.at('08:00').replace(/T.*/, 'T06:00:00.000Z'));
    expect(await (await ownerOf(email, () => new Date(thatMonday.getTime() - 86_400_000))).calendar.week()).toMatchObject({ week_start: monday, next_meeting_week: false });
  });

  it('keeps a preempted booking on the week (not counted) and tells its history with the booking that won', async () => {
    const email = await setupOwner(admin, { timeZone: TZ });
    const wed = nextWeekday('wed', TZ);
    const loser = await book(email, 'internal', wed.at('15:00'), wed.at('16:00'), 'Team retro');
    const winner = await book(email, 'external', wed.at('15:00'), wed.at('16:00'), 'Escalation');
    expect(winner.preempted_booking_ids).toEqual([loser.booking_id]);
    const caller = await ownerOf(email);
    const week = await caller.calendar.week({ week: wed.date.toString() });
    expect(week.events.find((e) => e.id === loser.booking_id)).toMatchObject({ status: 'preempted' });
    expect(week.days[2].booked_minutes).toBe(60);

    const details = await caller.calendar.claim({ id: loser.booking_id });
    expect(details).toMatchObject({ status: 'preempted', meeting_class: 'internal', attendees: [{ email: 'guest@example.com', name: 'Guest', response: 'needs_action' }] });
    expect(details.history.map((h) => h.what)).toEqual(['booked', 'preempted']);
    expect(details.history[1].text).toContain('Preempted by "Escalation" (external)');
  });

  it("refuses another owner's booking and a malformed week", async () => {
    const email = await setupOwner(admin, { timeZone: TZ });
    const other = await setupOwner(admin, { timeZone: TZ });
    const thu = nextWeekday('thu', TZ);
    const theirs = await book(other, 'internal', thu.at('10:00'), thu.at('11:00'), 'Private');
    const caller = await ownerOf(email);
    await expect(caller.calendar.claim({ id: theirs.booking_id })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_FOUND' } });
    expect((await caller.calendar.week({ week: thu.date.toString() })).events).toEqual([]);
    await expect(caller.calendar.week({ week: '2026-02-30' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('proposals.review', () => {
  it("overlays the candidates on the owner's week and names what each runs into", async () => {
    const email = await setupOwner(admin, { timeZone: TZ });
    const tue = nextWeekday('tue', TZ);
    const busy = await book(email, 'internal', tue.at('10:00'), tue.at('10:30'), '1:1');
    const created = await call('POST', '/v1/booking-proposals', {
      key: admin.key,
      body: { owner_email: email, meeting_class: 'external', duration_minutes: 60, window: { start: tue.at('09:30'), end: tue.at('11:30') }, attendees: [], message: 'Intro' },
    });
    expect(created.status).toBe(201);
    const caller = await ownerOf(email);
    const listed = await caller.proposals.listPending();
    expect(listed.time_zone).toBe(TZ);
    expect(listed.proposals[0]).toMatchObject({ proposal_id: created.body.proposal_id, message: 'Intro', agent_name: expect.any(String) });

    const review = await caller.proposals.review({ proposal_id: created.body.proposal_id });
    expect(review.week.week_start).toBe(tue.date.subtract({ days: 1 }).toString());
    expect(review.candidates).toHaveLength(created.body.candidates.length);
    for (const c of review.candidates) {
      const overlaps = Date.parse(c.start) < Date.parse(tue.at('10:30')) && Date.parse(c.end) > Date.parse(tue.at('10:00'));
      expect(c.conflicts).toEqual(overlaps ? [busy.booking_id] : []);
      expect(c).toMatchObject({ outside_working_hours: false, in_hard_block: false });
    }
    expect(review.candidates.some((c) => c.conflicts.length > 0)).toBe(true);
  });

  it('lists pending proposals newest first', async () => {
    const email = await setupOwner(admin, { timeZone: TZ });
    const fri = nextWeekday('fri', TZ);
    const ids: string[] = [];
    for (const message of ['first', 'second']) {
      const res = await call('POST', '/v1/booking-proposals', {
        key: admin.key,
        body: { owner_email: email, meeting_class: 'internal', duration_minutes: 30, window: { start: fri.at('09:00'), end: fri.at('12:00') }, attendees: [], message },
      });
      ids.push(res.body.proposal_id);
    }
    const listed = await (await ownerOf(email)).proposals.listPending();
    expect(listed.proposals.map((p) => p.proposal_id)).toEqual([ids[1], ids[0]]);
  });
});

describe('calendar.cancel (issue 23 item 9)', () => {
  it('cancels a confirmed booking with a reason its agent and attendees receive; the time is free again', async () => {
    const email = await setupOwner(admin, { timeZone: TZ });
    const thu = nextWeekday('thu', TZ);
    const b = await book(email, 'internal', thu.at('10:00'), thu.at('11:00'), 'Planning');
    const { sendDueInvitations } = await import('@/server/domain/calendars/invitations');
    const { useSmtp } = await import('../public/fixtures');
    const smtp = await useSmtp();
    // the attendees were invited first
    await sendDueInvitations(await getDb(), new Date(), 100, admin.customerId);
    const caller = await ownerOf(email);
    await expect(caller.calendar.cancel({ booking_id: b.booking_id, reason: '   ' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const details = await caller.calendar.cancel({ booking_id: b.booking_id, reason: 'I am travelling that day' });
    expect(details).toMatchObject({ id: b.booking_id, status: 'cancelled' });
    expect(details.history.at(-1)).toMatchObject({ what: 'cancelled', text: 'Cancelled by you: I am travelling that day' });
    // the agent that booked it hears why
    const notes = await call('GET', '/v1/notifications', { key: admin.key });
    expect(notes.body.notifications).toContainEqual(
      expect.objectContaining({ kind: 'booking.cancelled', data: expect.objectContaining({ booking_id: b.booking_id, owner_email: email, reason: 'I am travelling that day' }) }),
    );
    // audited as the owner's (no agent)
    const audit = await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(email)}&action=booking.cancel`, { key: admin.key });
    expect(audit.body.entries[0]).toMatchObject({ action: 'booking.cancel', outcome: 'accept', agent_id: null, booking_id: b.booking_id });
    // the attendees' cancellation mail carries the reason
    try {
      await sendDueInvitations(await getDb(), new Date(), 100, admin.customerId);
      const mail = await smtp.waitFor('guest@example.com', { subject: /Cancelled: Planning/ });
      expect(mail.text).toContain('Reason: I am travelling that day');
    } finally {
      delete process.env.SMTP_URL;
      (await import('@/server/domain/email')).closeMailer();
      await smtp.close();
    }
    // the time is free again, and a second cancel is refused
    expect((await book(email, 'internal', thu.at('10:00'), thu.at('11:00'), 'Other')).preempted_booking_ids).toEqual([]);
    await expect(caller.calendar.cancel({ booking_id: b.booking_id, reason: 'again' })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_ACTIVE' } });
    // another owner cannot see or cancel it
    const other = await ownerOf(await setupOwner(admin, { timeZone: TZ }));
    await expect(other.calendar.cancel({ booking_id: b.booking_id, reason: 'x' })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_FOUND' } });
  });
});

describe('group bookings on the dashboard (issue 25 item 6)', () => {
  async function groupBooking(emails: string[], start: string, end: string, title: string) {
    const res = await call('POST', '/v1/bookings', {
      key: admin.key,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
      body: { owner_emails: emails, meeting_class: 'internal', start, end, title, attendees: [{ email: 'guest@example.com', name: 'Guest' }] },
    });
    if (res.status !== 201) throw new Error(res.text);
    return res.body as { booking_id: string; group_id: string; members: { owner_email: string; booking_id: string; status: string }[] };
  }

  it('the week and the details name the other hosts with their status', async () => {
    const dana = await setupOwner(admin, { timeZone: TZ });
    const lee = await setupOwner(admin, { timeZone: TZ });
    const sam = await setupOwner(admin, { timeZone: TZ });
    await (await getDb()).update(owners).set({ name: 'Lee Chen' }).where(and(eq(owners.customerId, admin.customerId), eq(owners.email, lee)));
    const tue = nextWeekday('tue', TZ);
    const g = await groupBooking([dana, lee, sam], tue.at('10:00'), tue.at('10:30'), 'Trio sync');
    const single = await book(dana, 'internal', tue.at('14:00'), tue.at('15:00'), 'Alone');
    const caller = await ownerOf(dana);

    const week = await caller.calendar.week({ week: tue.date.toString() });
    const ev = week.events.find((e) => e.id === g.booking_id);
    expect(ev).toMatchObject({ group_id: g.group_id, co_hosts: [lee, sam].sort().map((email) => ({ email, name: email === lee ? 'Lee Chen' : null, status: 'confirmed' })) });
    expect(week.events.find((e) => e.id === single.booking_id)).toMatchObject({ group_id: null, co_hosts: [] });

    const details = await caller.calendar.claim({ id: g.booking_id });
    expect(details.group?.group_id).toBe(g.group_id);
    expect(details.group?.co_hosts.map((h) => h.email)).toEqual([lee, sam].sort());
    expect((await caller.calendar.claim({ id: single.booking_id })).group).toBeNull();

    // Lee's own view names Dana and Sam, never Lee.
    const leeMember = g.members.find((m) => m.owner_email === lee)!;
    const leeDetails = await (await ownerOf(lee)).calendar.claim({ id: leeMember.booking_id });
    expect(leeDetails.group?.co_hosts.map((h) => h.email)).toEqual([dana, sam].sort());
  });

  it("the owner's cancel cancels every host's copy (cancel cancels all), with the reason, audited as the owner's", async () => {
    const dana = await setupOwner(admin, { timeZone: TZ });
    const lee = await setupOwner(admin, { timeZone: TZ });
    const wed = nextWeekday('wed', TZ);
    const g = await groupBooking([dana, lee], wed.at('11:00'), wed.at('11:30'), 'Pair review');
    const caller = await ownerOf(dana);
    const details = await caller.calendar.cancel({ booking_id: g.booking_id, reason: 'Dana is ill' });
    expect(details).toMatchObject({ id: g.booking_id, status: 'cancelled' });
    expect(details.history.at(-1)).toMatchObject({ what: 'cancelled', text: 'Cancelled by you: Dana is ill' });
    expect(details.group?.co_hosts).toEqual([{ email: lee, name: null, status: 'cancelled' }]);

    // the group reads back cancelled for every member, over REST too
    const got = await call('GET', `/v1/bookings/${g.members[1].booking_id}`, { key: admin.key });
    expect(got.body.members.map((m: { status: string }) => m.status)).toEqual(['cancelled', 'cancelled']);
    const leeCopy = await (await ownerOf(lee)).calendar.claim({ id: g.members.find((m) => m.owner_email === lee)!.booking_id });
    // The same actor as the audit log: Dana (no display name: her email), not "you" (issue 45 item 2).
    expect(leeCopy).toMatchObject({ status: 'cancelled', history: expect.arrayContaining([expect.objectContaining({ text: `Cancelled by ${dana}: Dana is ill` })]) });

    // one audit row per owner, by Dana in the dashboard, with the group's id
    for (const email of [dana, lee]) {
      const audit = await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(email)}&action=booking.cancel`, { key: admin.key });
      expect(audit.body.entries[0]).toMatchObject({ outcome: 'accept', agent_id: null, actor_kind: 'owner', actor_owner_email: dana, reason: 'Dana is ill', details: { group_id: g.group_id } });
    }
    // the agent hears of each member, with the group's id and the reason
    const notes = await call('GET', '/v1/notifications', { key: admin.key });
    const heard = notes.body.notifications.filter((n: { kind: string; data: { group_id?: string } }) => n.kind === 'booking.cancelled' && n.data.group_id === g.group_id);
    expect(heard.map((n: { data: { owner_email: string; reason: string } }) => [n.data.owner_email, n.data.reason]).sort()).toEqual([dana, lee].sort().map((e) => [e, 'Dana is ill']));

    // both times are free again; a second cancel, from either owner, is refused
    expect((await book(lee, 'internal', wed.at('11:00'), wed.at('11:30'), 'Other')).preempted_booking_ids).toEqual([]);
    await expect(caller.calendar.cancel({ booking_id: g.booking_id, reason: 'again' })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_ACTIVE' } });
    // another owner of the customer cannot cancel it
    const other = await ownerOf(await setupOwner(admin, { timeZone: TZ }));
    await expect(other.calendar.cancel({ booking_id: g.booking_id, reason: 'x' })).rejects.toMatchObject({ cause: { code: 'BOOKING_NOT_FOUND' } });
  });
});
