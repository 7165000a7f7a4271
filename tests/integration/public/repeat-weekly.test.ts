import { asc, eq } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingProposals, claims } from '@/db/schema';
import { getDb, type Db } from '@/server/db';
import { closeMailer } from '@/server/domain/email';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { call, confirm, expectNoLeaks, meetingType, nextWeekday, ownerCaller, proposalRow, publicOwner, requesterCaller, useSmtp, type PublicSetup } from './fixtures';

/**
 * docs/public-scheduling.md "Repeating weekly": a public meeting type may offer "repeat weekly
 * for N weeks"; the requester's procedure (the pages' tRPC) sends it, every later week is checked
 * at submission (the weeks that are not free named, nothing stored), and the approval (a type's
 * "book instantly", or the owner's) books the series through the claim runner, all or nothing,
 * at the same local time in the owner's zone across daylight saving.
 */
const ZONE = 'Europe/Berlin';
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
let db: Db;
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  s = await publicOwner(admin, { name: 'Wendy Weekly', timeZone: ZONE });
  db = await getDb();
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

/** The requester procedures as the pages call them (answers recorded for the leak scan). */
function browser() {
  const caller = requesterCaller();
  return {
    meetingType: async (slug: string) => caller.then(({ requester, record }) => requester.meetingType({ link: s.alias, slug }).then((v) => record('meetingType', v))),
    submit: async (input: SubmitInput) => caller.then(({ requester, record }) => requester.submit({ link: s.alias, time_zone: ZONE, ...input }).then((v) => record('submit', v))),
    status: async (token: string) => caller.then(({ requester, record }) => requester.status({ token }).then((v) => record('status', v))),
    cancelMeeting: async (token: string) => caller.then(({ requester, record }) => requester.cancelMeeting({ token }).then((v) => record('cancelMeeting', v))),
    moveTimes: async (token: string) => caller.then(({ requester, record }) => requester.moveTimes({ token }).then((v) => record('moveTimes', v))),
    requestMove: async (token: string, slot: { start: string; end: string }) => caller.then(({ requester, record }) => requester.requestMove({ token, ...slot }).then((v) => record('requestMove', v))),
  };
}
type SubmitInput = ReturnType<typeof body>;

const body = (slug: string, slot: { start: string; end: string }, email: string, repeat_weeks?: number) => ({
  requester_contact: { email, name: 'Rory Repeat' },
  attendees: [],
  public_meeting_type: slug,
  duration_minutes: 30,
  requested_window: slot,
  ...(repeat_weeks ? { repeat_weeks } : {}),
});
const tokenOf = (statusUrl: string) => new URL(statusUrl).pathname.split('/').pop()!;
const seriesOf = (seriesId: string) => db.select().from(claims).where(eq(claims.seriesId, seriesId)).orderBy(asc(claims.startAt));
/** Berlin wall-clock time of an instant, "HH:MM". */
const berlinClock = (d: Date | string) => Temporal.Instant.from(new Date(d).toISOString()).toZonedDateTimeISO(ZONE).toPlainTime().toString({ smallestUnit: 'minute' });

describe('repeat weekly on public meeting types', () => {
  it('the admin sets it (2 to 52, null: off); the page shows it; a type without it refuses repeat_weeks', async () => {
    const slug = await meetingType(s, { slug: 'weekly-admin', duration_minutes: [30], repeat_weekly_max_weeks: 8 });
    const got = await call('GET', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key });
    expect(got.body.repeat_weekly_max_weeks).toBe(8);
    for (const bad of [1, 53, 2.5]) {
      const r = await call('PATCH', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key, body: { repeat_weekly_max_weeks: bad } });
      expect(r.status, `${bad}`).toBe(400);
    }
    expect((await browser().meetingType(slug)).repeat_weekly_max_weeks).toBe(8);
    const cleared = await call('PATCH', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key, body: { repeat_weekly_max_weeks: null } });
    expect(cleared.body.repeat_weekly_max_weeks).toBeNull();
    expect((await browser().meetingType(slug)).repeat_weekly_max_weeks).toBeNull();
    const day = nextWeekday('mon', ZONE);
    await expect(browser().submit(body(slug, { start: day.at('10:00'), end: day.at('10:30') }, uniqueEmail('norepeat'), 3))).rejects.toMatchObject({ cause: { code: 'invalid_request' } });
  });

  it('book instantly: "weekly for 20 weeks" is booked as one series at 10:00 Berlin every week (across the clock change); the status page and the mails list the weeks', async () => {
    const slug = await meetingType(s, { slug: 'weekly-instant', duration_minutes: [30], book_instantly: true, repeat_weekly_max_weeks: 20 });
    const day = nextWeekday('wed', ZONE);
    const slot = { start: day.at('10:00'), end: day.at('10:30') };
    const email = uniqueEmail('weekly');
    // More weeks than the type offers: refused, nothing stored.
    await expect(browser().submit(body(slug, slot, email, 21))).rejects.toMatchObject({ cause: { code: 'invalid_request' } });
    const sent = await browser().submit(body(slug, slot, email, 20));
    expect(sent.status).toBe('pending_requester_verification');
    const token = tokenOf(sent.status_url);
    // Before booking: the weeks asked for.
    const pending = await browser().status(token);
    expect(pending.weeks).toHaveLength(20);
    expect(pending.weeks!.every((w) => berlinClock(w.start) === '10:00' && !w.cancelled)).toBe(true);
    const asked = await smtp.waitFor(email, { subject: /Confirm/ });
    expect(asked.text).toContain('Every week at this time, 20 meetings in all:');
    expect(asked.text.match(/^- /gm)).toHaveLength(20);

    const verification = asked.text.match(/https?:\/\/\S+\/confirm/)![0];
    expect((await confirm({ contact_verification_url: verification })).body).toEqual({ status: 'booked' });
    const row = await proposalRow(token);
    expect(row).toMatchObject({ status: 'booked', repeatWeeks: 20 });
    const [first] = await db.select().from(claims).where(eq(claims.id, row.bookingId!));
    expect(first.seriesId).toBeTruthy();
    const series = await seriesOf(first.seriesId!);
    expect(series).toHaveLength(20);
    expect(series.every((c) => c.status === 'confirmed' && c.source === 'public' && c.proposalId === row.id)).toBe(true);
    // The same local time every week, so the UTC time moves by an hour at the clock change (late March).
    expect(series.map((c) => berlinClock(c.startAt))).toEqual(Array(20).fill('10:00'));
    expect(new Set(series.map((c) => c.startAt.getUTCHours())).size).toBe(2);
    const days = series.map((c) => Temporal.Instant.from(c.startAt.toISOString()).toZonedDateTimeISO(ZONE).toPlainDate());
    for (let i = 1; i < days.length; i++) expect(days[i - 1].until(days[i]).days).toBe(7);

    const booked = await browser().status(token);
    expect(booked.status).toBe('booked');
    expect(booked.weeks!.map((w) => w.start)).toEqual(series.map((c) => c.startAt.toISOString()));
    const accepted = await smtp.waitFor(email, { subject: /accepted/ });
    expect(accepted.text).toContain('Every week at this time, 20 meetings in all:');
    expect(accepted.text.match(/^- /gm)).toHaveLength(20);
  });

  it('a week that is not free refuses the request at submission, naming that week; nothing is stored', async () => {
    const slug = await meetingType(s, { slug: 'weekly-busy', duration_minutes: [30], book_instantly: true, repeat_weekly_max_weeks: 6 });
    const day = nextWeekday('thu', ZONE);
    const slot = { start: day.at('11:00'), end: day.at('11:30') };
    const third = day.date.add({ days: 14 });
    const blockStart = third.toZonedDateTime({ timeZone: ZONE, plainTime: '11:00' }).toInstant().toString({ smallestUnit: 'millisecond' });
    const blockEnd = third.toZonedDateTime({ timeZone: ZONE, plainTime: '11:30' }).toInstant().toString({ smallestUnit: 'millisecond' });
    const blocker = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', start: blockStart, end: blockEnd } });
    expect(blocker.status, blocker.text).toBe(201);
    const email = uniqueEmail('busy');
    const refused = await browser()
      .submit(body(slug, slot, email, 6))
      .then(() => null, (err: { cause?: { code: string; extra?: Record<string, unknown> } }) => err.cause);
    expect(refused?.code).toBe('time_unavailable');
    expect(refused?.extra?.unavailable_occurrences).toEqual([expect.objectContaining({ index: 2, start: new Date(blockStart).toISOString(), end: new Date(blockEnd).toISOString() })]);
    const rows = await db.select().from(bookingProposals).where(eq(bookingProposals.requesterEmail, email));
    expect(rows).toHaveLength(0);
    // Fewer weeks, before the busy one: sent.
    expect((await browser().submit(body(slug, slot, email, 2))).status).toBe('pending_requester_verification');
  });

  it("owner's approval: a week taken meanwhile refuses the whole series (nothing booked); once free, approval books every week", async () => {
    const slug = await meetingType(s, { slug: 'weekly-review', duration_minutes: [30], repeat_weekly_max_weeks: 4 });
    const day = nextWeekday('tue', ZONE);
    const slot = { start: day.at('14:00'), end: day.at('14:30') };
    const email = uniqueEmail('review');
    const sent = await browser().submit(body(slug, slot, email, 3));
    const token = tokenOf(sent.status_url);
    const asked = await smtp.waitFor(email, { subject: /Confirm/ });
    expect((await confirm({ contact_verification_url: asked.text.match(/https?:\/\/\S+\/confirm/)![0] })).body).toEqual({ status: 'pending_review' });
    const row = await proposalRow(token);
    const second = day.date.add({ days: 7 });
    const at = (t: string) => second.toZonedDateTime({ timeZone: ZONE, plainTime: t }).toInstant().toString({ smallestUnit: 'millisecond' });
    const owner = await ownerCaller(s);
    // A lower-priority meeting in the second week: approving would move it aside, which the owner must confirm (as for one meeting).
    const lower = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', start: at('14:00'), end: at('14:30') } });
    expect(lower.status, lower.text).toBe(201);
    const unconfirmed = await owner.proposals.approve({ proposal_id: row.id }).then(() => null, (err: { cause?: { code: string; extra?: Record<string, unknown> } }) => err.cause);
    expect(unconfirmed?.code).toBe('PREEMPTION_NOT_CONFIRMED');
    expect(unconfirmed?.extra?.displaced).toEqual([expect.objectContaining({ id: lower.body.booking_id })]);
    expect((await call('POST', `/v1/bookings/${lower.body.booking_id}/cancel`, { key: admin.key, body: {} })).status).toBe(200);
    // The second week is taken by an agent's meeting of the same priority meanwhile: refused.
    const blocker = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', start: at('14:00'), end: at('14:30') } });
    expect(blocker.status, blocker.text).toBe(201);
    const refusal = await owner.proposals.approve({ proposal_id: row.id }).then(() => null, (err: { cause?: { code: string; extra?: Record<string, unknown> } }) => err.cause);
    expect(refusal?.code).toBe('ARBITRATION_REJECTED');
    expect(refusal?.extra?.refused_occurrences).toEqual([expect.objectContaining({ index: 1, start: new Date(at('14:00')).toISOString() })]);
    expect((await proposalRow(token)).status).toBe('pending_review');
    expect(await db.select().from(claims).where(eq(claims.proposalId, row.id))).toHaveLength(0);

    const freed = await call('POST', `/v1/bookings/${blocker.body.booking_id}/cancel`, { key: admin.key, body: {} });
    expect(freed.status, freed.text).toBe(200);
    const approved = await owner.proposals.approve({ proposal_id: row.id });
    expect(approved.status).toBe('booked');
    const [first] = await db.select().from(claims).where(eq(claims.id, approved.booking_id!));
    const series = await seriesOf(first.seriesId!);
    expect(series.map((c) => berlinClock(c.startAt))).toEqual(['14:00', '14:00', '14:00']);
    expect((await browser().status(token)).weeks).toHaveLength(3);
    // The requester's "Cancel this meeting" cancels every week of it.
    const cancelled = await browser().cancelMeeting(token);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.weeks!.map((w) => w.cancelled)).toEqual([true, true, true]);
    expect((await seriesOf(first.seriesId!)).map((c) => c.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });

  it('once the first week is past, the status page acts on the next week: "Ask to move" moves that week alone, "Cancel" cancels the weeks not started', async () => {
    const slug = await meetingType(s, { slug: 'weekly-later', duration_minutes: [30], book_instantly: true, repeat_weekly_max_weeks: 4 });
    const day = nextWeekday('fri', ZONE);
    const email = uniqueEmail('later');
    const sent = await browser().submit(body(slug, { start: day.at('09:00'), end: day.at('09:30') }, email, 3));
    const token = tokenOf(sent.status_url);
    const asked = await smtp.waitFor(email, { subject: /Confirm/ });
    expect((await confirm({ contact_verification_url: asked.text.match(/https?:\/\/\S+\/confirm/)![0] })).body).toEqual({ status: 'booked' });
    const row = await proposalRow(token);
    const [first] = await db.select().from(claims).where(eq(claims.id, row.bookingId!));
    // The first week happened: its meeting lies in the past now.
    const past = new Date(Date.now() - 2 * 3_600_000);
    await db.update(claims).set({ startAt: past, endAt: new Date(past.getTime() + 30 * 60_000) }).where(eq(claims.id, first.id));
    const [, second, third] = await seriesOf(first.seriesId!);

    const page = await browser().status(token);
    expect(page).toMatchObject({ status: 'booked', cancellable: true, movable: true, start: second.startAt.toISOString(), end: second.endAt.toISOString() });
    expect(page.weeks).toHaveLength(3);

    // "Ask to move": the suggestions are for the second week's length and leave its time out; a book-instantly type moves it at once.
    const times = await browser().moveTimes(token);
    expect(times.duration_minutes).toBe(30);
    const target = times.suggested_times.find((t) => t.start !== second.startAt.toISOString())!;
    expect(target).toBeDefined();
    await browser().requestMove(token, target);
    const moved = await seriesOf(first.seriesId!);
    const byId = new Map(moved.map((c) => [c.id, c]));
    expect(byId.get(second.id)).toMatchObject({ status: 'confirmed', startAt: new Date(target.start), endAt: new Date(target.end) });
    expect(byId.get(first.id)).toMatchObject({ status: 'confirmed', startAt: past });
    expect(byId.get(third.id)).toMatchObject({ status: 'confirmed', startAt: third.startAt, endAt: third.endAt });

    // "Cancel this meeting": the weeks not started go, the past one stays as it happened.
    const cancelled = await browser().cancelMeeting(token);
    expect(cancelled.status).toBe('cancelled');
    const after = new Map((await seriesOf(first.seriesId!)).map((c) => [c.id, c.status]));
    expect([after.get(first.id), after.get(second.id), after.get(third.id)]).toEqual(['confirmed', 'cancelled', 'cancelled']);
  });
});
