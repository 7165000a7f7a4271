import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newAgent, newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, nextWeekday, onDate, patchClaim, setupOwner } from './fixtures';

/**
 * docs/api.md "9. Arbitration, counter-proposals and alternatives": 409 ARBITRATION_REJECTED with every reason.
 * The outcome is COUNTER_PROPOSED instead of NO_CAPACITY / WORKING_HOURS /
 * OFF_DAY / MAX_DAILY_HOURS whenever an alternative exists within 72 h, so the
 * plain reasons are built on an owner whose only working time is Monday
 * morning (nothing else within 72 h), and the counter-proposals on a Mon-Fri
 * 09-17 owner.
 */
let admin: TestCustomer;
let noPreempt: { key: string };
const TZ = 'UTC';
const mon = nextWeekday('mon', TZ);
const sat = onDate(mon.date.subtract({ days: 2 }).toString(), TZ);
const sun = onDate(mon.date.subtract({ days: 1 }).toString(), TZ);
const tue = onDate(mon.date.add({ days: 1 }).toString(), TZ);

beforeAll(async () => {
  admin = await newCustomer();
  noPreempt = await newAgent(admin, ['create_bookings', 'create_holds', 'read_availability']);
  await setupOwner(admin); // creates the standard classes
  expect((await call('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'sacred0', priority: 5, sacred_meeting_age_hours: 0 } })).status).toBe(201);
});

const book = (owner: string, meeting_class: string, start: string, end: string, key = admin.key) =>
  call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class, start, end } });
const cancel = (id: string) => call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body: {} });
/** Working time only Monday 09:00-`end` (UTC). */
const mondayMorningOwner = (end = '10:00', extra: Parameters<typeof setupOwner>[1] = {}) =>
  setupOwner(admin, { timeZone: TZ, workingHours: { mon: [{ start: '09:00', end }] }, ...extra });

function rejected(res: ApiResponse, reason: string) {
  const err = expectEnvelope(res, 409, 'ARBITRATION_REJECTED');
  expect(err.reason, res.text).toBe(reason);
  expect(Array.isArray(res.body.alternatives)).toBe(true);
  for (const alt of res.body.alternatives) expect(Object.keys(alt).sort()).toEqual(['end', 'end_local', 'reason_code', 'start', 'start_local']);
  return res.body as { alternatives: { start: string; end: string; reason_code: string }[]; next_available?: unknown };
}

/** Every alternative really is bookable: book it (201), then cancel it to free the time for the next one. */
async function expectBookable(owner: string, meetingClass: string, alternatives: { start: string; end: string }[], key = admin.key) {
  expect(alternatives.length).toBeGreaterThan(0);
  for (const alt of alternatives) {
    const res = await book(owner, meetingClass, alt.start, alt.end, key);
    expect(res.status, `${alt.start}: ${res.text}`).toBe(201);
    expect((await cancel(res.body.booking_id)).status).toBe(200);
  }
}

describe('NO_CAPACITY', () => {
  it('equal or higher priority already there and no alternative within 72 h: reason NO_CAPACITY, alternatives []', async () => {
    const owner = await mondayMorningOwner();
    expect((await book(owner, 'external', mon.at('09:00'), mon.at('10:00'))).status).toBe(201);
    expect(rejected(await book(owner, 'external', mon.at('09:00'), mon.at('10:00')), 'NO_CAPACITY').alternatives).toEqual([]);
    expect(rejected(await book(owner, 'internal', mon.at('09:30'), mon.at('10:00')), 'NO_CAPACITY').alternatives).toEqual([]);
    // A candidate hold goes through the same arbitration.
    const hold = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', hold_scope: 'candidate', candidate: { start: mon.at('09:00'), end: mon.at('09:30') } } });
    expect(rejected(hold, 'NO_CAPACITY').alternatives).toEqual([]);
  });

  it('inside a hard block with no alternative: NO_CAPACITY', async () => {
    const owner = await mondayMorningOwner('10:00', { hardBlocks: [{ days: ['mon'], start: '09:00', end: '10:00', label: 'standup' }] });
    expect(rejected(await book(owner, 'external', mon.at('09:00'), mon.at('09:30')), 'NO_CAPACITY').alternatives).toEqual([]);
  });

  it('COUNTER_PROPOSED replaces it when alternatives exist: the 3 nearest that do not overlap, each capacity_conflict and each bookable', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    expect((await book(owner, 'external', mon.at('10:00'), mon.at('11:00'))).status).toBe(201);
    const body = rejected(await book(owner, 'internal', mon.at('10:00'), mon.at('11:00')), 'COUNTER_PROPOSED');
    expect(body.alternatives).toMatchObject([
      { start: mon.at('09:00'), end: mon.at('10:00'), reason_code: 'capacity_conflict' },
      { start: mon.at('11:00'), end: mon.at('12:00'), reason_code: 'capacity_conflict' },
      { start: mon.at('12:00'), end: mon.at('13:00'), reason_code: 'capacity_conflict' },
    ]);
    await expectBookable(owner, 'internal', body.alternatives);
  });
});

describe('WORKING_HOURS and OFF_DAY', () => {
  it('WORKING_HOURS without alternatives carries next_available (null here)', async () => {
    const owner = await mondayMorningOwner();
    expect((await book(owner, 'external', mon.at('09:00'), mon.at('10:00'))).status).toBe(201);
    const body = rejected(await book(owner, 'internal', mon.at('08:00'), mon.at('09:00')), 'WORKING_HOURS');
    expect(body.alternatives).toEqual([]);
    expect(body.next_available).toBeNull();
  });

  it('OFF_DAY without alternatives', async () => {
    const owner = await mondayMorningOwner();
    expect((await book(owner, 'external', mon.at('09:00'), mon.at('10:00'))).status).toBe(201);
    expect(rejected(await book(owner, 'internal', sun.at('09:00'), sun.at('10:00')), 'OFF_DAY').alternatives).toEqual([]);
    expect(rejected(await book(owner, 'internal', tue.at('09:00'), tue.at('10:00')), 'OFF_DAY').alternatives).toEqual([]);
  });

  it('counter-proposes working_hours and off_day alternatives, all bookable', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const early = rejected(await book(owner, 'internal', mon.at('07:00'), mon.at('08:00')), 'COUNTER_PROPOSED');
    expect(early.alternatives.map((a) => a.reason_code)).toEqual(['working_hours', 'working_hours', 'working_hours']);
    expect(early.alternatives[0]).toMatchObject({ start: mon.at('09:00'), end: mon.at('10:00'), reason_code: 'working_hours' });
    expect(early.next_available).toMatchObject({ start: mon.at('09:00'), end: mon.at('10:00') });
    await expectBookable(owner, 'internal', early.alternatives);

    const weekend = rejected(await book(owner, 'internal', sat.at('10:00'), sat.at('10:30')), 'COUNTER_PROPOSED');
    expect(weekend.alternatives).toHaveLength(3);
    expect(weekend.alternatives.every((a) => a.reason_code === 'off_day')).toBe(true);
    await expectBookable(owner, 'internal', weekend.alternatives);
  });
});

describe('SACRED_MEETING (never counter-proposed, but alternatives are carried)', () => {
  it('a class with sacred_meeting_age_hours 0 is sacred as soon as it is booked', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    expect((await book(owner, 'sacred0', mon.at('13:00'), mon.at('14:00'))).status).toBe(201);
    const body = rejected(await book(owner, 'external', mon.at('13:00'), mon.at('14:00')), 'SACRED_MEETING');
    expect(body.alternatives.length).toBeGreaterThan(0);
    expect(body.alternatives.every((a) => a.reason_code === 'sacred_meeting')).toBe(true);
    await expectBookable(owner, 'external', body.alternatives);
  });

  it('a booking older than 24 h, one with an accepted external attendee, and one imported from the provider', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const slots = [
      ['09:00', '10:00', { createdAt: new Date(Date.now() - 25 * 3600_000) }],
      ['11:00', '12:00', { externalAccepted: true }],
      ['14:00', '15:00', { source: 'provider' as const }],
    ] as const;
    for (const [start, end, patch] of slots) {
      const low = await book(owner, 'focus', mon.at(start), mon.at(end));
      expect(low.status).toBe(201);
      // Not sacred yet: the admin agent (with preempt) could take it.
      const before = await call('POST', '/v1/arbitration/evaluate', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', start: mon.at(start), end: mon.at(end) } });
      expect(before.body).toMatchObject({ outcome: 'accept', would_preempt: [low.body.booking_id] });
      await patchClaim(low.body.booking_id, patch);
      rejected(await book(owner, 'external', mon.at(start), mon.at(end)), 'SACRED_MEETING');
      expect((await call('GET', `/v1/bookings/${low.body.booking_id}`, { key: admin.key })).body.status).toBe('confirmed');
    }
  });
});

describe('MAX_DAILY_HOURS', () => {
  it('without alternatives: reason MAX_DAILY_HOURS', async () => {
    const owner = await mondayMorningOwner('12:00', { maxDailyMeetingHours: 1 });
    expect((await book(owner, 'internal', mon.at('09:00'), mon.at('10:00'))).status).toBe(201);
    expect(rejected(await book(owner, 'internal', mon.at('10:00'), mon.at('11:00')), 'MAX_DAILY_HOURS').alternatives).toEqual([]);
  });

  it('counter-proposes daily_hours_limit alternatives on the next day, all bookable', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ, maxDailyMeetingHours: 1 });
    expect((await book(owner, 'internal', mon.at('09:00'), mon.at('10:00'))).status).toBe(201);
    const body = rejected(await book(owner, 'internal', mon.at('11:00'), mon.at('12:00')), 'COUNTER_PROPOSED');
    expect(body.alternatives).toMatchObject([
      { start: tue.at('09:00'), end: tue.at('10:00'), reason_code: 'daily_hours_limit' },
      { start: tue.at('10:00'), end: tue.at('11:00'), reason_code: 'daily_hours_limit' },
      { start: tue.at('11:00'), end: tue.at('12:00'), reason_code: 'daily_hours_limit' },
    ]);
    await expectBookable(owner, 'internal', body.alternatives);
  });

  it('confirm re-runs the daily limit (the rules changed after the hold was made)', async () => {
    const owner = await mondayMorningOwner('12:00', { maxDailyMeetingHours: 2 });
    const hold = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: mon.at('09:00'), end: mon.at('10:00') } } });
    expect(hold.status, hold.text).toBe(200);
    const rules = await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: owner, working_hours: { mon: [{ start: '09:00', end: '12:00' }] }, max_daily_meeting_hours: 0.5 } });
    expect(rules.status, rules.text).toBe(200);
    rejected(await call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: admin.key, body: { start: mon.at('09:00'), end: mon.at('10:00') } }), 'MAX_DAILY_HOURS');
  });
});

describe('preemption rules', () => {
  it('PERMISSION_DENIED_PREEMPT for an agent without preempt; its alternatives are free slots it can book', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const low = await book(owner, 'focus', mon.at('15:00'), mon.at('16:00'));
    const body = rejected(await book(owner, 'external', mon.at('15:00'), mon.at('16:00'), noPreempt.key), 'PERMISSION_DENIED_PREEMPT');
    expect(body.alternatives.every((a) => a.reason_code === 'permission_denied_preempt')).toBe(true);
    for (const alt of body.alternatives) expect(alt.end <= mon.at('15:00') || alt.start >= mon.at('16:00')).toBe(true);
    await expectBookable(owner, 'external', body.alternatives, noPreempt.key);
    const high = await book(owner, 'external', mon.at('15:00'), mon.at('16:00'));
    expect(high.status).toBe(201);
    expect(high.body.preempted_booking_ids).toEqual([low.body.booking_id]);
  });

  it('a `guarded` class (policy never) cannot preempt a lower one, even with the preempt permission', async () => {
    const single = await mondayMorningOwner();
    const low = await book(single, 'focus', mon.at('09:00'), mon.at('10:00'));
    expect(rejected(await book(single, 'guarded', mon.at('09:00'), mon.at('10:00')), 'NO_CAPACITY').alternatives).toEqual([]);

    const owner = await setupOwner(admin, { timeZone: TZ });
    const low2 = await book(owner, 'focus', mon.at('09:00'), mon.at('10:00'));
    const body = rejected(await book(owner, 'guarded', mon.at('09:00'), mon.at('10:00')), 'COUNTER_PROPOSED');
    expect(body.alternatives.every((a) => a.reason_code === 'capacity_conflict')).toBe(true);
    await expectBookable(owner, 'guarded', body.alternatives);
    for (const id of [low.body.booking_id, low2.body.booking_id]) {
      expect((await call('GET', `/v1/bookings/${id}`, { key: admin.key })).body.status).toBe('confirmed');
    }
    // `external` (preempt_lower) may.
    expect((await book(owner, 'external', mon.at('09:00'), mon.at('10:00'))).body.preempted_booking_ids).toEqual([low2.body.booking_id]);
  });

  it('every rejection leaves exactly the claims that were there', async () => {
    const owner = await mondayMorningOwner();
    await book(owner, 'external', mon.at('09:00'), mon.at('10:00'));
    const before = await claimsOf(admin, owner);
    await book(owner, 'external', mon.at('09:00'), mon.at('10:00'));
    await book(owner, 'internal', sun.at('09:00'), sun.at('10:00'));
    const after = await claimsOf(admin, owner);
    expect(after.map((c) => [c.id, c.status])).toEqual(before.map((c) => [c.id, c.status]));
  });
});
