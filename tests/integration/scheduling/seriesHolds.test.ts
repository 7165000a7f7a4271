import { beforeAll, describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, nextWeekday, onDate, setupOwner, tuesdayBeforeSpringForward } from './fixtures';

/**
 * Series holds, and confirm, release and reschedule with a scope (docs/arbitration.md "Recurring
 * series"): POST /v1/holds with recurrence makes one hold per occurrence with one series_id and
 * TTL; confirm takes every active hold in scope or none; release frees those in scope; reschedule
 * moves each occurrence in scope by the same local shift, all or none. Runs on PGlite, and on
 * PostgreSQL with TEST_DATABASE_URL.
 */
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

const BERLIN = 'Europe/Berlin';
const NINE_TO_FIVE = [{ start: '09:00', end: '17:00' }];
const WEEKDAYS = { mon: NINE_TO_FIVE, tue: NINE_TO_FIVE, wed: NINE_TO_FIVE, thu: NINE_TO_FIVE, fri: NINE_TO_FIVE };

type Item = { index?: number; hold_id?: string; booking_id?: string; start: string; start_local: string };
const hold = (owner: string, body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/holds', { key, body: { owner_email: owner, meeting_class: 'internal', ...body } });
const book = (owner: string, body: Record<string, unknown>) => call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...body } });
const statuses = async (owner: string, ids: string[]) => {
  const rows = await claimsOf(admin, owner);
  return ids.map((id) => rows.find((c) => c.id === id)?.status);
};
const weeksAfter = (date: Temporal.PlainDate, weeks: number, tz: string) => onDate(date.add({ weeks }).toString(), tz);

describe('series holds over POST /v1/holds', () => {
  it('a weekly candidate hold across the spring-forward: one hold per occurrence at 10:00 local, one series_id and TTL', async () => {
    const owner = await setupOwner(admin, { timeZone: BERLIN });
    const day = tuesdayBeforeSpringForward();
    const r = await hold(owner, { hold_scope: 'candidate', candidate: { start: day.at('10:00'), end: day.at('11:00') }, recurrence: 'FREQ=WEEKLY;COUNT=4', ttl_seconds: 300 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.series).toMatchObject({ occurrences_requested: 4, min_occurrences: 4, refused_occurrences: [] });
    const holds = r.body.series.holds as Item[];
    expect(r.body).toMatchObject({ hold_id: holds[0].hold_id, series_id: r.body.series.series_id, status: 'active' });
    expect(holds.map((h) => h.index)).toEqual([0, 1, 2, 3]);
    expect(holds.map((h) => h.start_local.slice(11, 16))).toEqual(['10:00', '10:00', '10:00', '10:00']);
    expect(holds.map((h) => h.start.slice(11, 13))).toEqual(['09', '08', '08', '08']);
    const read = await Promise.all(holds.map((h) => call('GET', `/v1/holds/${h.hold_id}`, { key: admin.key })));
    expect(new Set(read.map((x) => x.body.series_id))).toEqual(new Set([r.body.series.series_id]));
    expect(new Set(read.map((x) => x.body.expires_at))).toEqual(new Set([r.body.expires_at]));
  });

  it('all or nothing, or min_occurrences; a window hold, or min_occurrences alone, is a 400', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('wed', 'UTC');
    const third = weeksAfter(day.date, 2, 'UTC');
    expect((await book(owner, { start: third.at('10:00'), end: third.at('11:00') })).status).toBe(201);
    const series = { hold_scope: 'candidate', candidate: { start: day.at('10:00'), end: day.at('11:00') }, recurrence: 'FREQ=WEEKLY;COUNT=4' };
    const refused = await hold(owner, series);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.message).toMatch(/nothing was held/);
    expect(refused.body.refused_occurrences.map((o: { index: number; code: string }) => [o.index, o.code])).toEqual([[2, 'ARBITRATION_REJECTED']]);
    expect((await claimsOf(admin, owner)).filter((c) => c.kind === 'hold')).toHaveLength(0);
    const some = await hold(owner, { ...series, min_occurrences: 3 });
    expect(some.status, some.text).toBe(200);
    expect((some.body.series.holds as Item[]).map((h) => h.index)).toEqual([0, 1, 3]);
    expect(some.body.series.refused_occurrences.map((o: { index: number }) => o.index)).toEqual([2]);

    const window = await hold(owner, { hold_scope: 'window', window: { start: day.at('12:00'), end: day.at('15:00') }, duration_minutes: 30, recurrence: 'FREQ=WEEKLY;COUNT=2' });
    expect(window.status, window.text).toBe(400);
    expect(window.body.error.message).toMatch(/window hold with recurrence is not supported/);
    expect((await hold(owner, { hold_scope: 'candidate', candidate: { start: day.at('15:00'), end: day.at('15:30') }, min_occurrences: 1 })).status).toBe(400);
  });
});

describe('confirm and release of a series hold with scope', () => {
  it('confirm following books this and the later holds in one go; the earlier one stays a hold; release series frees what is left', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('tue', 'UTC');
    const r = await hold(owner, { hold_scope: 'candidate', candidate: { start: day.at('14:00'), end: day.at('14:30') }, recurrence: 'FREQ=WEEKLY;COUNT=4' });
    expect(r.status, r.text).toBe(200);
    const holds = r.body.series.holds as (Item & { end: string })[];
    const ids = holds.map((h) => h.hold_id!);
    const confirm = (h: Item & { end: string }, body: Record<string, unknown> = {}) =>
      call('POST', `/v1/bookings/${h.hold_id}/confirm`, { key: admin.key, body: { start: h.start, end: (h as { end: string }).end, ...body } });
    const ok = await confirm(holds[2], { scope: 'following', title: 'Review' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ hold_id: ids[2], series_id: r.body.series.series_id, title: 'Review' });
    const booked = ok.body.series.bookings as Item[];
    expect(booked.map((b) => b.start)).toEqual([holds[2].start, holds[3].start]);
    expect(await statuses(owner, ids)).toEqual(['active', 'active', 'promoted', 'promoted']);
    const second = await call('GET', `/v1/bookings/${booked[1].booking_id}`, { key: admin.key });
    expect(second.body).toMatchObject({ status: 'confirmed', series_id: r.body.series.series_id, title: 'Review' });
    // The default scope is one occurrence, as before; its booking joins the series.
    const one = await confirm(holds[0]);
    expect(one.status, one.text).toBe(200);
    expect(one.body.series_id).toBe(r.body.series.series_id);
    expect(one.body.series).toBeUndefined();
    const released = await call('DELETE', `/v1/holds/${ids[1]}?scope=series`, { key: admin.key });
    expect(released.status, released.text).toBe(200);
    expect(await statuses(owner, ids)).toEqual(['promoted', 'released', 'promoted', 'promoted']);
  });

  it('confirm series is all or none: one occurrence the rules now refuse, and nothing is confirmed', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('mon', 'UTC');
    const r = await hold(owner, { hold_scope: 'candidate', candidate: { start: day.at('11:00'), end: day.at('12:00') }, recurrence: 'FREQ=DAILY;COUNT=3' });
    expect(r.status, r.text).toBe(200);
    const holds = r.body.series.holds as (Item & { end: string })[];
    // Wednesday's hour becomes a hard block after the holds were made.
    const rules = await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: owner, working_hours: WEEKDAYS, hard_blocks: [{ days: ['wed'], start: '11:00', end: '12:00', label: 'offsite' }], max_daily_meeting_hours: null } });
    expect(rules.status, rules.text).toBe(200);
    const refused = await call('POST', `/v1/bookings/${holds[0].hold_id}/confirm`, { key: admin.key, body: { start: holds[0].start, end: holds[0].end, scope: 'series' } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.message).toMatch(/nothing was confirmed/);
    expect(refused.body.refused_occurrences.map((o: { start: string }) => o.start)).toEqual([holds[2].start]);
    expect(await statuses(owner, holds.map((h) => h.hold_id!))).toEqual(['active', 'active', 'active']);
    expect((await claimsOf(admin, owner)).filter((c) => c.kind === 'booking')).toHaveLength(0);
    // A hold outside a series takes no scope.
    const single = await hold(owner, { hold_scope: 'candidate', candidate: { start: day.at('15:00'), end: day.at('15:30') } });
    expect((await call('DELETE', `/v1/holds/${single.body.hold_id}?scope=following`, { key: admin.key })).status).toBe(400);
  });
});

describe('reschedule of a series booking with scope', () => {
  it('following moves this and later occurrences to the same new local time across the spring-forward', async () => {
    const owner = await setupOwner(admin, { timeZone: BERLIN });
    const day = tuesdayBeforeSpringForward();
    const r = await book(owner, { start: day.at('10:00'), end: day.at('11:00'), recurrence: 'FREQ=WEEKLY;COUNT=4' });
    expect(r.status, r.text).toBe(201);
    const items = r.body.series.bookings as Item[];
    const ids = items.map((b) => b.booking_id!);
    // Occurrence 1 (after the change) moves from 10:00 to 11:30 local, 45 minutes long.
    const second = weeksAfter(day.date, 1, BERLIN);
    const moved = await call('POST', `/v1/bookings/${ids[1]}/reschedule`, { key: admin.key, body: { start: second.at('11:30'), end: second.at('12:15'), scope: 'following' } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ booking_id: ids[1], start: second.at('11:30') });
    expect((moved.body.series.bookings as Item[]).map((b) => b.booking_id)).toEqual(ids.slice(1));
    const rows = await claimsOf(admin, owner);
    const at = (id: string) => rows.find((c) => c.id === id)!;
    const local = (d: Date) => Temporal.Instant.fromEpochMilliseconds(d.getTime()).toZonedDateTimeISO(BERLIN).toPlainTime().toString().slice(0, 5);
    expect(ids.map((id) => local(at(id).startAt))).toEqual(['10:00', '11:30', '11:30', '11:30']);
    expect(ids.map((id) => (at(id).endAt.getTime() - at(id).startAt.getTime()) / 60_000)).toEqual([60, 45, 45, 45]);
  });

  it('series by a day: occurrences move onto each other\'s old days; one refused, nothing moves', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('mon', 'UTC');
    const r = await book(owner, { start: day.at('09:00'), end: day.at('10:00'), recurrence: 'FREQ=DAILY;COUNT=3' });
    expect(r.status, r.text).toBe(201);
    const ids = (r.body.series.bookings as Item[]).map((b) => b.booking_id!);
    const tue = onDate(day.date.add({ days: 1 }).toString(), 'UTC');
    const ok = await call('POST', `/v1/bookings/${ids[0]}/reschedule`, { key: admin.key, body: { start: tue.at('09:00'), end: tue.at('10:00'), scope: 'series' } });
    expect(ok.status, ok.text).toBe(200);
    const rows = await claimsOf(admin, owner);
    expect(ids.map((id) => rows.find((c) => c.id === id)!.startAt.toISOString())).toEqual([1, 2, 3].map((d) => onDate(day.date.add({ days: d }).toString(), 'UTC').at('09:00')));
    // Friday 09:00 is taken: moving the series one more day is refused whole.
    const fri = onDate(day.date.add({ days: 4 }).toString(), 'UTC');
    expect((await book(owner, { start: fri.at('09:00'), end: fri.at('10:00') })).status).toBe(201);
    const refused = await call('POST', `/v1/bookings/${ids[1]}/reschedule`, { key: admin.key, body: { start: onDate(day.date.add({ days: 3 }).toString(), 'UTC').at('09:00'), end: onDate(day.date.add({ days: 3 }).toString(), 'UTC').at('10:00'), scope: 'series' } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.message).toMatch(/nothing was moved/);
    expect(refused.body.refused_occurrences.map((o: { start: string }) => o.start)).toEqual([fri.at('09:00')]);
    const after = await claimsOf(admin, owner);
    expect(ids.map((id) => after.find((c) => c.id === id)!.startAt.toISOString())).toEqual([1, 2, 3].map((d) => onDate(day.date.add({ days: d }).toString(), 'UTC').at('09:00')));
  });
});

describe('scoped acts under races', () => {
  it('eight confirms of the same series at once: one books every occurrence, the others are refused, no hold is booked twice', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('thu', 'UTC');
    const r = await hold(owner, { hold_scope: 'candidate', candidate: { start: day.at('13:00'), end: day.at('13:30') }, recurrence: 'FREQ=WEEKLY;COUNT=3' });
    expect(r.status, r.text).toBe(200);
    const holds = r.body.series.holds as (Item & { end: string })[];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call('POST', `/v1/bookings/${holds[i % 3].hold_id}/confirm`, { key: admin.key, idempotencyKey: `race-${i}`, body: { start: holds[i % 3].start, end: holds[i % 3].end, scope: 'series' } })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(['HOLD_ALREADY_PROMOTED', 'HOLD_NOT_ACTIVE']).toContain(a.body.error.code);
    const rows = await claimsOf(admin, owner);
    expect(rows.filter((c) => c.kind === 'booking' && c.status === 'confirmed')).toHaveLength(3);
    expect(await statuses(owner, holds.map((h) => h.hold_id!))).toEqual(['promoted', 'promoted', 'promoted']);
  });

  it('a series moved while another booking takes one of its new times: the series moves whole or not at all', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('mon', 'UTC');
    const r = await book(owner, { start: day.at('15:00'), end: day.at('15:30'), recurrence: 'FREQ=DAILY;COUNT=3' });
    expect(r.status, r.text).toBe(201);
    const ids = (r.body.series.bookings as Item[]).map((b) => b.booking_id!);
    const at = (d: number) => onDate(day.date.add({ days: d }).toString(), 'UTC');
    const [moved, rival] = await Promise.all([
      call('POST', `/v1/bookings/${ids[0]}/reschedule`, { key: admin.key, body: { start: at(0).at('16:00'), end: at(0).at('16:30'), scope: 'series' } }),
      book(owner, { start: at(2).at('16:00'), end: at(2).at('16:30') }),
    ]);
    const rows = await claimsOf(admin, owner);
    const hours = ids.map((id) => rows.find((c) => c.id === id)!.startAt.toISOString().slice(11, 16));
    if (moved.status === 200) {
      expect(hours).toEqual(['16:00', '16:00', '16:00']);
      expect(rival.status).toBe(409);
    } else {
      expect(moved.status, moved.text).toBe(409);
      expect(rival.status, rival.text).toBe(201);
      expect(hours).toEqual(['15:00', '15:00', '15:00']);
    }
  });
});
