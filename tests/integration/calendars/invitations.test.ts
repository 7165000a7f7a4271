import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { bookingInvitations } from '@/db/schema';
import { closeMailer } from '@/server/domain/email';
import { sendDueInvitations } from '@/server/domain/calendars/invitations';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { calendarPartOf, startSmtp, type TestSmtp } from '../../helpers/smtp';
import { call, everyDay, nextWeekday, setupOwner } from '../scheduling/fixtures';

/**
 * docs/calendars.md "Invitations": a confirmed booking's attendees receive
 * METHOD:REQUEST, then METHOD:CANCEL with the same UID and the next SEQUENCE
 * when it is cancelled; each is sent once. The ICS is read with ical.js.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let owner: string;

beforeAll(async () => {
  smtp = await startSmtp();
  vi.stubEnv('SMTP_URL', smtp.url);
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay('08:00', '20:00') });
});
afterAll(async () => {
  closeMailer();
  await smtp?.close();
});

function parse(raw: string) {
  const ics = calendarPartOf(raw);
  expect(ics, 'text/calendar part').toBeTruthy();
  const cal = new ICAL.Component(ICAL.parse(ics!));
  const ev = cal.getFirstSubcomponent('vevent')!;
  return {
    method: cal.getFirstPropertyValue('method'),
    uid: ev.getFirstPropertyValue('uid'),
    sequence: ev.getFirstPropertyValue('sequence'),
    organizer: ev.getFirstPropertyValue('organizer'),
    attendees: ev.getAllProperties('attendee').map((p) => p.getFirstValue()),
    start: (ev.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString(),
    end: (ev.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate().toISOString(),
    zone: (ev.getFirstPropertyValue('dtstart') as ICAL.Time).zone?.tzid,
  };
}

describe('ICS invitations', () => {
  it('sends REQUEST on booking and CANCEL (same UID, next SEQUENCE) on cancel, once each', async () => {
    const day = nextWeekday('mon', 'Europe/Berlin');
    const guests = [`g1.${Date.now()}@partner.example`, `g2.${Date.now()}@partner.example`];
    const booking = await call('POST', '/v1/bookings', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:45'), title: 'Kick-off', attendees: guests.map((email) => ({ email })) },
    });
    expect(booking.status, booking.text).toBe(201);
    const db = await getDb();
    // Other test files may have bookings due too (shared database): count this booking's mail, not the round's.
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    const uid = `${booking.body.booking_id}@agent-scheduler`;
    for (const g of guests) {
      const inv = parse((await smtp.waitFor(g, { subject: /^Invitation: Kick-off/ })).raw);
      expect(inv).toEqual({
        method: 'REQUEST',
        uid,
        sequence: 0,
        organizer: `mailto:${owner}`,
        attendees: guests.map((e) => `mailto:${e}`),
        start: day.at('10:00'),
        end: day.at('10:45'),
        zone: 'UTC',
      });
    }
    const cancel = await call('POST', `/v1/bookings/${booking.body.booking_id}/cancel`, { key: admin.key, body: {} });
    expect(cancel.status, cancel.text).toBe(200);
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    const c = parse((await smtp.waitFor(guests[0], { subject: /^Cancelled: Kick-off/ })).raw);
    expect(c).toMatchObject({ method: 'CANCEL', uid, sequence: 1, start: day.at('10:00') });
    for (const g of guests) expect(smtp.messages.filter((m) => m.to.includes(g)).map((m) => m.subject)).toEqual(['Invitation: Kick-off', 'Cancelled: Kick-off']);
  });

  it('a reschedule sends REQUEST again (same UID, next SEQUENCE, the reason as COMMENT) at the new time, once; a cancel after it the next SEQUENCE', async () => {
    const day = nextWeekday('wed', 'Europe/Berlin');
    const guest = `mv.${Date.now()}@partner.example`;
    const booking = await call('POST', '/v1/bookings', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30'), title: 'Sync', attendees: [{ email: guest }] },
    });
    expect(booking.status, booking.text).toBe(201);
    const db = await getDb();
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    const uid = `${booking.body.booking_id}@agent-scheduler`;
    expect(parse((await smtp.waitFor(guest, { subject: /^Invitation: Sync/ })).raw)).toMatchObject({ method: 'REQUEST', uid, sequence: 0 });
    const moved = await call('POST', `/v1/bookings/${booking.body.booking_id}/reschedule`, { key: admin.key, body: { start: day.at('15:00'), end: day.at('15:30'), reason: 'the room is taken' } });
    expect(moved.status, moved.text).toBe(200);
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    const mail = await smtp.waitFor(guest, { subject: /^Updated: Sync/ });
    expect(parse(mail.raw)).toMatchObject({ method: 'REQUEST', uid, sequence: 1, start: day.at('15:00'), end: day.at('15:30') });
    expect(calendarPartOf(mail.raw)).toContain('COMMENT:the room is taken');
    expect(mail.text).toContain('Reason: the room is taken');
    await call('POST', `/v1/bookings/${booking.body.booking_id}/cancel`, { key: admin.key, body: {} });
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    expect(parse((await smtp.waitFor(guest, { subject: /^Cancelled: Sync/ })).raw)).toMatchObject({ method: 'CANCEL', uid, sequence: 2 });
    expect(smtp.messages.filter((m) => m.to.includes(guest)).map((m) => m.subject)).toEqual(['Invitation: Sync', 'Updated: Sync', 'Cancelled: Sync']);
  });

  it('PATCH of the attendees: people added are invited (an invitation, not an update), people removed get a cancellation, people kept their update', async () => {
    const day = nextWeekday('thu', 'Europe/Berlin');
    const [stay, go, add] = ['stay', 'go', 'add'].map((n) => `${n}.${Date.now()}@partner.example`);
    const booking = await call('POST', '/v1/bookings', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30'), title: 'Review', attendees: [{ email: stay }, { email: go }] },
    });
    expect(booking.status, booking.text).toBe(201);
    const db = await getDb();
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    await smtp.waitFor(go, { subject: /^Invitation: Review/ });
    const patched = await call('PATCH', `/v1/bookings/${booking.body.booking_id}`, { key: admin.key, body: { title: 'Design review', attendees: [{ email: stay }, { email: add, name: 'New' }] } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ title: 'Design review', attendees: [{ email: stay }, { email: add, name: 'New', response: 'needs_action' }] });
    const uid = `${booking.body.booking_id}@agent-scheduler`;
    expect(parse((await smtp.waitFor(go, { subject: /^Cancelled: Design review/ })).raw)).toMatchObject({ method: 'CANCEL', uid, sequence: 1 });
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    const invited = await smtp.waitFor(add, { subject: /^Invitation: Design review/ });
    expect(parse(invited.raw)).toMatchObject({ method: 'REQUEST', uid, sequence: 1, attendees: [`mailto:${stay}`, `mailto:${add}`] });
    expect(invited.text).toContain('You are invited by');
    expect(invited.text).not.toContain('please respond again');
    expect(parse((await smtp.waitFor(stay, { subject: /^Updated: Design review/ })).raw)).toMatchObject({ method: 'REQUEST', uid, sequence: 1, attendees: [`mailto:${stay}`, `mailto:${add}`] });
    expect(smtp.messages.filter((m) => m.to.includes(go)).map((m) => m.subject)).toEqual(['Invitation: Review', 'Cancelled: Design review']);
    expect(smtp.messages.filter((m) => m.to.includes(add)).map((m) => m.subject)).toEqual(['Invitation: Design review']);
    // Its time is not editable here.
    expect((await call('PATCH', `/v1/bookings/${booking.body.booking_id}`, { key: admin.key, body: { start: day.at('11:00') } })).status).toBe(400);
  });

  it("a reason belongs to its move: later edits do not repeat it, and people kept hear only of what changed for them", async () => {
    const day = nextWeekday('fri', 'Europe/Berlin');
    const [stay, add, brief] = ['keep', 'late', 'brief'].map((n) => `${n}.${Date.now()}@partner.example`);
    const booking = await call('POST', '/v1/bookings', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', start: day.at('09:00'), end: day.at('09:30'), title: 'Plan', attendees: [{ email: stay }] },
    });
    expect(booking.status, booking.text).toBe(201);
    const id = booking.body.booking_id;
    const db = await getDb();
    const sweep = async () => {
      await sendDueInvitations(db, new Date(), 100, admin.customerId);
      await sendDueInvitations(db, new Date(), 100, admin.customerId);
    };
    const subjects = (to: string) => smtp.messages.filter((m) => m.to.includes(to)).map((m) => m.subject);
    await sweep();
    await smtp.waitFor(stay, { subject: /^Invitation: Plan/ });
    expect((await call('POST', `/v1/bookings/${id}/reschedule`, { key: admin.key, body: { start: day.at('11:00'), end: day.at('11:30'), reason: 'second move' } })).status).toBe(200);
    await sweep();
    expect((await smtp.waitFor(stay, { subject: /^Updated: Plan/ })).text).toContain('Reason: second move');
    // Someone added (and someone added and removed before any mail): the newcomer is invited, without the move's reason; nothing changed for the rest.
    expect((await call('PATCH', `/v1/bookings/${id}`, { key: admin.key, body: { attendees: [{ email: stay }, { email: add }, { email: brief }] } })).status).toBe(200);
    expect((await call('PATCH', `/v1/bookings/${id}`, { key: admin.key, body: { attendees: [{ email: stay }, { email: add }] } })).status).toBe(200);
    await sweep();
    const invitation = await smtp.waitFor(add, { subject: /^Invitation: Plan/ });
    expect(invitation.text).not.toContain('second move');
    expect(calendarPartOf(invitation.raw)).not.toContain('COMMENT');
    expect(subjects(stay)).toEqual(['Invitation: Plan', 'Updated: Plan']);
    expect(subjects(brief)).toEqual([]);
    // A new title concerns everyone invited: an update, without the reason of the earlier move.
    expect((await call('PATCH', `/v1/bookings/${id}`, { key: admin.key, body: { title: 'Plan B' } })).status).toBe(200);
    await sweep();
    for (const g of [stay, add]) {
      const mail = await smtp.waitFor(g, { subject: /^Updated: Plan B/ });
      expect(mail.text).not.toContain('Reason');
      expect(calendarPartOf(mail.raw)).not.toContain('COMMENT');
      expect(parse(mail.raw)).toMatchObject({ method: 'REQUEST', sequence: 4, start: day.at('11:00') });
    }
    // A move without a reason says none (not the earlier one).
    expect((await call('POST', `/v1/bookings/${id}/reschedule`, { key: admin.key, body: { start: day.at('12:00'), end: day.at('12:30') } })).status).toBe(200);
    await sweep();
    await vi.waitFor(() => expect(subjects(stay)).toEqual(['Invitation: Plan', 'Updated: Plan', 'Updated: Plan B', 'Updated: Plan B']));
    const last = smtp.messages.filter((m) => m.to.includes(stay)).at(-1)!;
    expect(parse(last.raw)).toMatchObject({ sequence: 5, start: day.at('12:00') });
    expect(last.text).not.toContain('Reason');
  });

  it('sends nothing for a booking without attendees', async () => {
    const day = nextWeekday('tue', 'Europe/Berlin');
    const booking = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') } });
    expect(booking.status).toBe(201);
    const db = await getDb();
    await sendDueInvitations(db, new Date(), 100, admin.customerId);
    expect(await db.select().from(bookingInvitations).where(eq(bookingInvitations.claimId, booking.body.booking_id))).toEqual([]);
  });
});
