import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { leaseDueReminders } from '@/db/hot/reminders';
import { bookingReminders, notifications, webhookDeliveries } from '@/db/schema';
import { closeMailer } from '@/server/domain/email';
import { startReminderWorker } from '@/server/domain/reminders/worker';
import type { ReminderOutcome } from '@/server/domain/reminders/send';
import { expectEnvelope, newAgent, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { startSmtp, type TestSmtp } from '../../helpers/smtp';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { call, everyDay, nextWeekday, setupOwner } from '../scheduling/fixtures';

/**
 * Reminders (docs/reliability.md "Reminders"): a meeting class's offsets schedule a booking's
 * reminders in its transaction; a reschedule moves them and a cancel drops them; two workers
 * racing send each exactly once, with the mail to every attendee in their zone and the
 * booking.reminder notification and webhook event for the booking's agent.
 */
allowLoopbackOutbound();
let admin: TestCustomer;
let agent: { agentId: string; key: string };
let owner: string;
let smtp: TestSmtp;
const day = nextWeekday('thu', 'Europe/Berlin', 2);
const CLASS = 'reminded';

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay('08:00', '18:00') });
  const created = await call('POST', '/v1/meeting-classes', { key: admin.key, body: { name: CLASS, priority: 10, reminder_offsets_minutes: [60, 1440] } });
  expect(created.status, created.text).toBe(201);
  expect(created.body.reminder_offsets_minutes).toEqual([1440, 60]);
  agent = await newAgent(admin, ['read_availability', 'create_bookings']);
  smtp = await startSmtp();
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

const rowsOf = async (bookingId: string) =>
  (await (await getDb()).select().from(bookingReminders).where(eq(bookingReminders.bookingId, bookingId))).sort((a, b) => a.offsetMinutes - b.offsetMinutes);
const book = async (start: string, end: string, attendees: { email: string }[] = []) => {
  const res = await call('POST', '/v1/bookings', { key: agent.key, body: { owner_email: owner, meeting_class: CLASS, start, end, attendees } });
  expect(res.status, res.text).toBe(201);
  return res.body.booking_id as string;
};
const minus = (iso: string, minutes: number) => new Date(Date.parse(iso) - minutes * 60_000);

describe('reminder offsets', () => {
  it('are validated: at most 5 distinct offsets of 5 minutes to 7 days', async () => {
    for (const bad of [[1], [10081], [60, 60], [5, 10, 15, 20, 25, 30]]) {
      const res = expectEnvelope(await call('POST', '/v1/meeting-classes', { key: admin.key, body: { name: `bad-${bad.join('-')}`, priority: 1, reminder_offsets_minutes: bad } }), 400, 'invalid_request');
      expect(res.details.fields[0].path).toMatch(/^body\.reminder_offsets_minutes/);
    }
  });
});

describe('scheduled with the booking', () => {
  it('writes one row per offset on booking, moves them on reschedule and drops them on cancel', async () => {
    const id = await book(day.at('10:00'), day.at('10:30'));
    let rows = await rowsOf(id);
    expect(rows.map((r) => [r.offsetMinutes, r.dueAt.toISOString(), r.status])).toEqual([
      [60, minus(day.at('10:00'), 60).toISOString(), 'pending'],
      [1440, minus(day.at('10:00'), 1440).toISOString(), 'pending'],
    ]);
    expect((await call('POST', `/v1/bookings/${id}/reschedule`, { key: agent.key, body: { start: day.at('14:00'), end: day.at('14:30') } })).status).toBe(200);
    rows = await rowsOf(id);
    expect(rows.map((r) => [r.offsetMinutes, r.dueAt.toISOString()])).toEqual([
      [60, minus(day.at('14:00'), 60).toISOString()],
      [1440, minus(day.at('14:00'), 1440).toISOString()],
    ]);
    const listed = await call('GET', `/v1/bookings/${id}/reminders`, { key: agent.key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.reminders.map((r: { offset_minutes: number; status: string }) => [r.offset_minutes, r.status])).toEqual([
      [1440, 'pending'],
      [60, 'pending'],
    ]);
    expect((await call('POST', `/v1/bookings/${id}/cancel`, { key: agent.key, body: {} })).status).toBe(200);
    expect(await rowsOf(id)).toEqual([]);
  });

  it('a preempted booking loses its pending reminders in the transaction that pushes it aside', async () => {
    const id = await book(day.at('15:00'), day.at('15:30'));
    expect(await rowsOf(id)).toHaveLength(2);
    const winner = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: day.at('15:00'), end: day.at('15:30') } });
    expect([winner.status, winner.body.preempted_booking_ids], winner.text).toEqual([201, [id]]);
    expect(await rowsOf(id)).toEqual([]);
  });

  it('a class without offsets schedules none', async () => {
    const res = await call('POST', '/v1/bookings', { key: agent.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('16:00'), end: day.at('16:30') } });
    expect(res.status, res.text).toBe(201);
    expect(await rowsOf(res.body.booking_id)).toEqual([]);
  });
});

describe('sending', () => {
  it('two workers racing send each reminder exactly once: mail in each reader zone, notification and webhook for the agent', async () => {
    const colleague = uniqueEmail('colleague');
    expect((await call('POST', '/v1/owners', { key: admin.key, body: { email: colleague, time_zone: 'America/New_York' } })).status).toBe(201);
    const guest = uniqueEmail('guest');
    const hook = await call('POST', '/v1/webhooks', { key: agent.key, body: { url: 'http://127.0.0.1:9/reminders', events: ['booking.reminder'] } });
    expect(hook.status, hook.text).toBe(201);
    const ids = [await book(day.at('11:00'), day.at('11:30'), [{ email: guest }, { email: colleague }]), await book(day.at('11:30'), day.at('12:00'))];

    // Both workers see the clock a quarter of an hour before the first meeting: all four reminders are due.
    const clock = () => minus(day.at('11:00'), 15);
    const outcomes: ReminderOutcome[] = [];
    let done!: () => void;
    const allDone = new Promise<void>((resolve) => (done = resolve));
    const onOutcome = (o: ReminderOutcome) => {
      outcomes.push(o);
      if (outcomes.filter((x) => x === 'sent').length === 4) done();
    };
    const stops = [0, 1].map(() => startReminderWorker(getDb, { pollMs: 60_000, now: clock, customerId: admin.customerId, onOutcome }));
    await allDone;
    for (const stop of stops) stop();
    expect(outcomes.filter((o) => o === 'sent')).toHaveLength(4);

    const db = await getDb();
    const rows = await db.select().from(bookingReminders).where(inArray(bookingReminders.bookingId, ids));
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const items = await db.select().from(notifications).where(and(eq(notifications.agentId, agent.agentId), eq(notifications.kind, 'booking.reminder')));
    expect(items.map((n) => `${(n.data as { booking_id: string }).booking_id}:${(n.data as { offset_minutes: number }).offset_minutes}`).sort()).toEqual(
      ids.flatMap((id) => [`${id}:1440`, `${id}:60`]).sort(),
    );
    const first = items.find((n) => (n.data as { booking_id: string }).booking_id === ids[0])!.data as Record<string, unknown>;
    expect(first).toMatchObject({ owner_email: owner, meeting_class: CLASS, start: day.at('11:00'), start_local: expect.stringMatching(/T11:00:00/), recipients: [guest, colleague] });
    const events = (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, hook.body.id))).map((d) => JSON.parse(d.body) as { type: string; id: string });
    expect(events.map((e) => e.type)).toEqual(Array(4).fill('booking.reminder'));
    expect(new Set(events.map((e) => e.id))).toEqual(new Set(items.map((n) => n.id)));

    // Mail: the guest (not an owner) in the organizing owner's zone, the colleague in their own; one each per reminder.
    const guestMails = smtp.messages.filter((m) => m.to.includes(guest));
    const colleagueMails = smtp.messages.filter((m) => m.to.includes(colleague));
    expect(guestMails.map((m) => m.subject).sort()).toEqual(['Reminder: meeting in 1 hour', 'Reminder: meeting in 24 hours']);
    expect(colleagueMails).toHaveLength(2);
    for (const m of guestMails) expect(m.text).toMatch(/11:00 .*(Europe\/Berlin)/);
    for (const m of colleagueMails) expect(m.text).toMatch(/(5|6):00 .*(America\/New_York)/);

    // Nothing is left to lease.
    expect(await leaseDueReminders(db, clock(), 50, new Date(clock().getTime() + 60_000), admin.customerId)).toEqual([]);
  });
});
