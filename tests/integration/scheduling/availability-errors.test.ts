import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newAgent, newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setPrimaryCalendarStatus, setupOwner } from './fixtures';

/**
 * docs/api.md "3. Errors": availability and proposal errors and "NO_SLOTS_AVAILABLE
 * reason_code values", over HTTP: every code, every reason_code, with
 * next_available / next_available_exceeds_lookahead, plus the calendar and
 * meeting-class codes on search, holds and direct bookings.
 */
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

const TZ = 'UTC';
const search = (body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/availability/search', { key, body: { meeting_class: 'internal', duration_minutes: 30, ...body } });
const hold = (body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/holds', { key, body: { meeting_class: 'internal', hold_scope: 'candidate', ...body } });
const book = (body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/bookings', { key, body: { meeting_class: 'internal', ...body } });

function noSlots(res: ApiResponse, reason: string) {
  expectEnvelope(res, 409, 'NO_SLOTS_AVAILABLE');
  expect(res.body.reason_code).toBe(reason);
  return res.body;
}

describe('NO_SLOTS_AVAILABLE: each reason_code with next_available', () => {
  it('NO_FREE_SLOTS: working time, but the calendar is busy (a higher-priority booking)', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const mon = nextWeekday('mon', TZ);
    expect((await book({ owner_email: owner, meeting_class: 'external', start: mon.at('09:00'), end: mon.at('10:00') })).status).toBe(201);
    const body = noSlots(await search({ owner_email: owner, duration_minutes: 60, window: { start: mon.at('09:00'), end: mon.at('10:00') } }), 'NO_FREE_SLOTS');
    expect(body.next_available).toMatchObject({ start: mon.at('10:00'), end: mon.at('11:00') });
    expect(body.next_available_exceeds_lookahead).toBeUndefined();
    expect(body.pending_notifications).toEqual([]);
  });

  it('DAILY_HOURS_LIMIT: the owner reached max_daily_meeting_hours; next_available is the next day', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ, maxDailyMeetingHours: 1 });
    const mon = nextWeekday('mon', TZ);
    const tue = onNextDay(mon.date.toString());
    expect((await book({ owner_email: owner, start: mon.at('09:00'), end: mon.at('10:00') })).status).toBe(201);
    const body = noSlots(await search({ owner_email: owner, window: { start: mon.at('13:00'), end: mon.at('15:00') } }), 'DAILY_HOURS_LIMIT');
    expect(body.next_available).toMatchObject({ start: `${tue}T09:00:00.000Z`, end: `${tue}T09:30:00.000Z` });
  });

  it('OFF_DAY: a Saturday window; next_available is Monday 09:00', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const sat = nextWeekday('sat', TZ);
    const mon = onNextDay(onNextDay(sat.date.toString()));
    const body = noSlots(await search({ owner_email: owner, window: { start: sat.at('10:00'), end: sat.at('12:00') } }), 'OFF_DAY');
    expect(body.next_available).toMatchObject({ start: `${mon}T09:00:00.000Z`, end: `${mon}T09:30:00.000Z` });
  });

  it('WORKING_HOURS: a working day, before the working hours; next_available is 09:00 that day', async () => {
    const owner = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
    const mon = nextWeekday('mon', 'Europe/Berlin');
    const body = noSlots(await search({ owner_email: owner, window: { start: mon.at('06:00'), end: mon.at('08:00') } }), 'WORKING_HOURS');
    expect(body.next_available).toMatchObject({ start: mon.at('09:00'), end: mon.at('09:30') });
  });

  it('HARD_BLOCK: the window is inside a recurring block; next_available skips the block', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ, hardBlocks: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00', label: 'lunch' }] });
    const mon = nextWeekday('mon', TZ);
    const body = noSlots(await search({ owner_email: owner, window: { start: mon.at('12:00'), end: mon.at('13:00') } }), 'HARD_BLOCK');
    expect(body.next_available).toMatchObject({ start: mon.at('13:00'), end: mon.at('13:30') });
  });

  it('next_available_exceeds_lookahead: the only working day is 5 days away (lookahead 24 h, and the default 72 h)', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ, workingHours: { fri: [{ start: '09:00', end: '17:00' }] } });
    const sun = nextWeekday('sun', TZ);
    const window = { start: sun.at('09:00'), end: sun.at('10:00') };
    for (const lookahead of [24, undefined]) {
      const body = noSlots(await search({ owner_email: owner, window, ...(lookahead ? { next_available_lookahead_hours: lookahead } : {}) }), 'OFF_DAY');
      expect(body.next_available_exceeds_lookahead).toBe(true);
      expect(body).not.toHaveProperty('next_available');
    }
    // From Wednesday, Friday lies inside the 72 h lookahead.
    const wed = nextWeekday('wed', TZ);
    const fri = onNextDay(onNextDay(wed.date.toString()));
    const body = noSlots(await search({ owner_email: owner, window: { start: wed.at('09:00'), end: wed.at('10:00') } }), 'OFF_DAY');
    expect(body.next_available).toMatchObject({ start: `${fri}T09:00:00.000Z`, end: `${fri}T09:30:00.000Z` });
    // ... but not inside a 24 h one.
    const short = noSlots(await search({ owner_email: owner, window: { start: wed.at('09:00'), end: wed.at('10:00') }, next_available_lookahead_hours: 24 }), 'OFF_DAY');
    expect(short.next_available_exceeds_lookahead).toBe(true);
  });

  it('the lookahead boundary is inclusive: a slot starting exactly window end + lookahead is next_available', async () => {
    // Wednesday is the only working day; the window ends Monday 10:00, so Wednesday 09:00 is 47 h after it.
    const owner = await setupOwner(admin, { timeZone: TZ, workingHours: { wed: [{ start: '09:00', end: '17:00' }] } });
    const mon = nextWeekday('mon', TZ);
    const window = { start: mon.at('09:00'), end: mon.at('10:00') };
    const wed0900 = new Date(Date.parse(window.end) + 47 * 3_600_000).toISOString();
    expect(wed0900).toMatch(/T09:00:00\.000Z$/);
    const at = noSlots(await search({ owner_email: owner, window, next_available_lookahead_hours: 47 }), 'OFF_DAY');
    expect(at.next_available).toMatchObject({ start: wed0900, end: new Date(Date.parse(wed0900) + 30 * 60_000).toISOString() });
    expect(at).not.toHaveProperty('next_available_exceeds_lookahead');
    const before = noSlots(await search({ owner_email: owner, window, next_available_lookahead_hours: 46 }), 'OFF_DAY');
    expect(before.next_available_exceeds_lookahead).toBe(true);
    expect(before).not.toHaveProperty('next_available');
  });

  it('a rejected booking offers next_available starting no later than 72 h after the requested start', async () => {
    // Thursday is the only working day: its 09:00 is exactly 72 h after Monday 09:00, and 72.25 h after Monday 08:45.
    const owner = await setupOwner(admin, { timeZone: TZ, workingHours: { thu: [{ start: '09:00', end: '17:00' }] } });
    const mon = nextWeekday('mon', TZ);
    const thu0900 = new Date(Date.parse(mon.at('09:00')) + 72 * 3_600_000).toISOString();
    for (const start of ['09:00', '08:45']) {
      const res = await book({ owner_email: owner, start: mon.at(start), end: new Date(Date.parse(mon.at(start)) + 30 * 60_000).toISOString() });
      expectEnvelope(res, 409, 'ARBITRATION_REJECTED');
      if (start === '09:00') expect(res.body.next_available).toMatchObject({ start: thu0900, end: new Date(Date.parse(thu0900) + 30 * 60_000).toISOString() });
      else expect(res.body.next_available).toBeNull();
    }
  });

  it('next_available is null when no slot exists at all (no working days)', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ, workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] } });
    const mon = nextWeekday('mon', TZ);
    const body = noSlots(await search({ owner_email: owner, window: { start: mon.at('09:00'), end: mon.at('12:00') } }), 'OFF_DAY');
    expect(body.next_available).toBeNull();
    expect(body.next_available_exceeds_lookahead).toBeUndefined();
  });

  it('a window hold with no free stretch answers the same NO_SLOTS_AVAILABLE', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const sat = nextWeekday('sat', TZ);
    const res = await hold({ owner_email: owner, hold_scope: 'window', duration_minutes: 30, window: { start: sat.at('10:00'), end: sat.at('12:00') } });
    const body = noSlots(res, 'OFF_DAY');
    expect(body.next_available.start).toMatch(/T09:00:00\.000Z$/);
  });
});

describe('window and lookahead validation', () => {
  let owner: string;
  beforeAll(async () => {
    owner = await setupOwner(admin, { timeZone: TZ });
  });

  it('WINDOW_TOO_NARROW (422) with window_duration_minutes and required_duration_minutes, on search and window holds', async () => {
    const mon = nextWeekday('mon', TZ);
    const window = { start: mon.at('09:00'), end: mon.at('09:20') };
    for (const res of [
      await search({ owner_email: owner, window }),
      await hold({ owner_email: owner, hold_scope: 'window', duration_minutes: 30, window }),
    ]) {
      expectEnvelope(res, 422, 'WINDOW_TOO_NARROW');
      expect(res.body).toMatchObject({ window_duration_minutes: 20, required_duration_minutes: 30 });
    }
  });

  it('PAST_TIME (422) for a window that starts in the past (search and window hold)', async () => {
    const start = new Date(Date.now() - 26 * 3600_000);
    start.setUTCMinutes(0, 0, 0);
    const window = { start: start.toISOString(), end: new Date(start.getTime() + 3600_000).toISOString() };
    expectEnvelope(await search({ owner_email: owner, window }), 422, 'PAST_TIME');
    expectEnvelope(await hold({ owner_email: owner, hold_scope: 'window', duration_minutes: 30, window }), 422, 'PAST_TIME');
  });

  it('LOOKAHEAD_EXCEEDS_MAXIMUM (400) above 72 hours; 72 is accepted', async () => {
    const mon = nextWeekday('mon', TZ);
    const window = { start: mon.at('09:00'), end: mon.at('10:00') };
    expectEnvelope(await search({ owner_email: owner, window, next_available_lookahead_hours: 73 }), 400, 'LOOKAHEAD_EXCEEDS_MAXIMUM');
    expect((await search({ owner_email: owner, window, next_available_lookahead_hours: 72 })).status).toBe(200);
  });
});

describe('meeting class and calendar resolution', () => {
  it('INVALID_MEETING_CLASS (400): unknown, and another customer’s class name (classes are customer-scoped)', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const other = await newCustomer();
    const foreign = `vip-${Date.now()}`;
    expect((await call('POST', '/v1/meeting-classes', { key: other.key, body: { name: foreign, priority: 90 } })).status).toBe(201);
    const mon = nextWeekday('mon', TZ);
    const slot = { start: mon.at('09:00'), end: mon.at('09:30') };
    for (const meeting_class of ['no-such-class', foreign]) {
      expectEnvelope(await search({ owner_email: owner, meeting_class, window: { start: mon.at('09:00'), end: mon.at('12:00') } }), 400, 'INVALID_MEETING_CLASS');
      expectEnvelope(await hold({ owner_email: owner, meeting_class, candidate: slot }), 400, 'INVALID_MEETING_CLASS');
      expectEnvelope(await book({ owner_email: owner, meeting_class, ...slot }), 400, 'INVALID_MEETING_CLASS');
    }
  });

  it('OWNER_NOT_FOUND (404) for an owner that does not exist, one code everywhere: search, holds, bookings, groups, schedule rules', async () => {
    const mon = nextWeekday('mon', TZ);
    const window = { start: mon.at('09:00'), end: mon.at('12:00') };
    const slot = { start: mon.at('09:00'), end: mon.at('09:30') };
    const nobody = `nobody.${Date.now()}@example.com`;
    const known = await setupOwner(admin, { timeZone: TZ });
    const answers = [
      await search({ owner_email: nobody, window }),
      await search({ owner_emails: [known, nobody], window }),
      await hold({ owner_email: nobody, candidate: slot }),
      await hold({ owner_email: nobody, hold_scope: 'window', window, duration_minutes: 30 }),
      await book({ owner_email: nobody, ...slot }),
      await book({ owner_emails: [known, nobody], ...slot }),
      await call('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(nobody)}`, { key: admin.key }),
    ];
    for (const res of answers) expect(expectEnvelope(res, 404, 'OWNER_NOT_FOUND').message).toContain(nobody);
  });

  it('CALENDAR_NOT_FOUND (404) only for an owner that exists without a usable calendar: disconnected primary, calendar_type that does not exist', async () => {
    const mon = nextWeekday('mon', TZ);
    const window = { start: mon.at('09:00'), end: mon.at('12:00') };
    const slot = { start: mon.at('09:00'), end: mon.at('09:30') };
    const check = async (target: Record<string, unknown>) => {
      expectEnvelope(await search({ ...target, window }), 404, 'CALENDAR_NOT_FOUND');
      expectEnvelope(await hold({ ...target, candidate: slot }), 404, 'CALENDAR_NOT_FOUND');
      expectEnvelope(await book({ ...target, ...slot }), 404, 'CALENDAR_NOT_FOUND');
    };

    const owner = await setupOwner(admin, { timeZone: TZ });
    await check({ owner_email: owner, calendar_type: 'google' });
    expect((await search({ owner_email: owner, calendar_type: 'internal', window })).status).toBe(200);

    await setPrimaryCalendarStatus(admin, owner, 'disconnected');
    await check({ owner_email: owner });
    await check({ owner_email: owner, calendar_type: 'internal' });
  });

  it('CALENDAR_REAUTH_REQUIRED (409): search, holds, bookings and confirm fail closed', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const mon = nextWeekday('mon', TZ);
    const slot = { start: mon.at('09:00'), end: mon.at('09:30') };
    const held = await hold({ owner_email: owner, candidate: slot });
    expect(held.status, held.text).toBe(200);
    await setPrimaryCalendarStatus(admin, owner, 'reauth_required');
    expectEnvelope(await search({ owner_email: owner, window: { start: mon.at('09:00'), end: mon.at('12:00') } }), 409, 'CALENDAR_REAUTH_REQUIRED');
    expectEnvelope(await hold({ owner_email: owner, candidate: { start: mon.at('10:00'), end: mon.at('10:30') } }), 409, 'CALENDAR_REAUTH_REQUIRED');
    expectEnvelope(await book({ owner_email: owner, start: mon.at('11:00'), end: mon.at('11:30') }), 409, 'CALENDAR_REAUTH_REQUIRED');
    expectEnvelope(await call('POST', `/v1/bookings/${held.body.hold_id}/confirm`, { key: admin.key, body: slot }), 409, 'CALENDAR_REAUTH_REQUIRED');
    await setPrimaryCalendarStatus(admin, owner, 'active');
    expect((await call('POST', `/v1/bookings/${held.body.hold_id}/confirm`, { key: admin.key, body: slot })).status).toBe(200);
  });
});

describe('WORKING_HOURS_NOT_CONFIGURED warning beside successes', () => {
  it('search, candidate hold, window hold, confirm and direct booking all succeed on a Saturday night with the warning', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ, workingHours: null });
    const sat = nextWeekday('sat', TZ);
    const W = ['WORKING_HOURS_NOT_CONFIGURED'];
    const found = await search({ owner_email: owner, window: { start: sat.at('02:00'), end: sat.at('03:00') } });
    expect(found.status, found.text).toBe(200);
    expect(found.body.warnings).toEqual(W);
    expect(found.body.slots[0]).toMatchObject({ start: sat.at('02:00'), end: sat.at('02:30'), preempts: false });

    const candidate = await hold({ owner_email: owner, candidate: { start: sat.at('02:00'), end: sat.at('02:30') } });
    expect(candidate.status, candidate.text).toBe(200);
    expect(candidate.body.warnings).toEqual(W);
    const confirmed = await call('POST', `/v1/bookings/${candidate.body.hold_id}/confirm`, { key: admin.key, body: { start: sat.at('02:00'), end: sat.at('02:30') } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.warnings).toEqual(W);

    const windowHold = await hold({ owner_email: owner, hold_scope: 'window', duration_minutes: 30, window: { start: sat.at('04:00'), end: sat.at('05:00') } });
    expect(windowHold.status, windowHold.text).toBe(200);
    expect(windowHold.body.warnings).toEqual(W);

    const direct = await book({ owner_email: owner, start: sat.at('23:00'), end: sat.at('23:30') });
    expect(direct.status, direct.text).toBe(201);
    expect(direct.body.warnings).toEqual(W);
  });

  it('an owner with working hours gets no warnings field', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const mon = nextWeekday('mon', TZ);
    const found = await search({ owner_email: owner, window: { start: mon.at('09:00'), end: mon.at('10:00') } });
    expect(found.status).toBe(200);
    expect(found.body.warnings).toBeUndefined();
  });
});

describe('slots that preempt', () => {
  it('are offered with preempts: true only to an agent holding the preempt permission', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const mon = nextWeekday('mon', TZ);
    expect((await book({ owner_email: owner, meeting_class: 'focus', start: mon.at('09:00'), end: mon.at('09:30') })).status).toBe(201);
    const window = { start: mon.at('09:00'), end: mon.at('10:00') };
    const withPreempt = await search({ owner_email: owner, meeting_class: 'external', window });
    expect(withPreempt.body.slots.slice(0, 3)).toMatchObject([
      { start: mon.at('09:00'), end: mon.at('09:30'), preempts: true },
      { start: mon.at('09:15'), end: mon.at('09:45'), preempts: true },
      { start: mon.at('09:30'), end: mon.at('10:00'), preempts: false },
    ]);
    const reader = await newAgent(admin, ['read_availability']);
    const without = await search({ owner_email: owner, meeting_class: 'external', window }, reader.key);
    expect(without.body.slots).toMatchObject([{ start: mon.at('09:30'), end: mon.at('10:00'), preempts: false }]);
  });
});

describe('rate-limit headers', () => {
  it('search advertises 300/min per key; holds and bookings 120/min', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const mon = nextWeekday('mon', TZ);
    const s = await search({ owner_email: owner, window: { start: mon.at('09:00'), end: mon.at('10:00') } });
    expect(s.headers.get('ratelimit-limit')).toBe('300');
    expect(Number(s.headers.get('ratelimit-remaining'))).toBeLessThan(300);
    expect(Number(s.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    // Errors carry the headers too.
    const err = await search({ owner_email: owner, window: { start: mon.at('09:00'), end: mon.at('09:10') } });
    expect(err.status).toBe(422);
    expect(err.headers.get('ratelimit-limit')).toBe('300');
    expect((await hold({ owner_email: owner, candidate: { start: mon.at('09:00'), end: mon.at('09:30') } })).headers.get('ratelimit-limit')).toBe('120');
    expect((await book({ owner_email: owner, start: mon.at('10:00'), end: mon.at('10:30') })).headers.get('ratelimit-limit')).toBe('120');
  });
});

/** The calendar date after `isoDate` (YYYY-MM-DD). */
function onNextDay(isoDate: string): string {
  const d = new Date(`${isoDate}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
