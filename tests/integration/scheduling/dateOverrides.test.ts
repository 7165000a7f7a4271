import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { owners } from '@/db/schema';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, directAgents, nextWeekday, onDate, ownerIdOf, setupOwner } from './fixtures';

/**
 * Date overrides (docs/arbitration.md "Date overrides") through PUT/GET /v1/schedule-rules and on
 * every agent surface: a local date's hours replace its weekday's ([] = a day off), as local wall
 * time in the owner's zone; searches, holds and bookings honour them.
 */
let admin: TestCustomer;
let agent: string;
const TZ = 'Europe/Berlin';
const nineToFive = [{ start: '09:00', end: '17:00' }];
const weekdays = { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive };

beforeAll(async () => {
  admin = await newCustomer();
  [{ key: agent }] = await directAgents(admin, 1, ['read_availability', 'create_holds', 'create_bookings']);
});

const putRules = (owner: string, date_overrides: unknown, working_hours: unknown = weekdays) =>
  call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: owner, time_zone: TZ, working_hours, date_overrides } });
const book = (owner: string, start: string, end: string) => call('POST', '/v1/bookings', { key: agent, body: { owner_email: owner, meeting_class: 'external', start, end } });
const search = (owner: string, start: string, end: string) =>
  call('POST', '/v1/availability/search', { key: agent, body: { owner_email: owner, meeting_class: 'external', duration_minutes: 60, window: { start, end }, slot_step_minutes: 60 } });
const hold = (owner: string, start: string, end: string) =>
  call('POST', '/v1/holds', { key: agent, body: { owner_email: owner, meeting_class: 'external', hold_scope: 'candidate', candidate: { start, end } } });

describe('date overrides in schedule rules', () => {
  it('are stored sorted by date, read back, and move rules_version', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const id = await ownerIdOf(admin, owner);
    const db = await getDb();
    const [before] = await db.select({ v: owners.rulesVersion }).from(owners).where(eq(owners.id, id));
    const list = [
      { date: '2027-01-09', working_hours: [{ start: '10:00', end: '12:00' }] },
      { date: '2027-01-04', working_hours: [] },
    ];
    const put = await putRules(owner, list);
    expect(put.status, put.text).toBe(200);
    expect(put.body.date_overrides).toEqual([list[1], list[0]]);
    const got = await call('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(owner)}`, { key: admin.key });
    expect(got.body.date_overrides).toEqual([list[1], list[0]]);
    const [after] = await db.select({ v: owners.rulesVersion }).from(owners).where(eq(owners.id, id));
    expect(after.v).toBeGreaterThan(before.v);
    // Without date_overrides a PUT replaces them with none.
    expect((await putRules(owner, undefined)).body.date_overrides).toEqual([]);
  });

  it('refuses bad dates, bad ranges, duplicates and overrides without working hours, naming the field', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const cases: [unknown, unknown, string][] = [
      [[{ date: '2027-02-30', working_hours: [] }], weekdays, 'date_overrides[0].date'],
      [[{ date: '2027-03-01', working_hours: [{ start: '12:00', end: '10:00' }] }], weekdays, 'date_overrides[0].working_hours[0]'],
      [[{ date: '2027-03-01', working_hours: [] }, { date: '2027-03-01', working_hours: nineToFive }], weekdays, 'date_overrides[1].date'],
      [[{ date: '2027-03-01', working_hours: [] }], null, 'date_overrides'],
    ];
    for (const [list, hours, field] of cases) {
      const res = await putRules(owner, list, hours);
      const err = expectEnvelope(res, 400, 'INVALID_SCHEDULE_RULES');
      expect(err.message, res.text).toContain(field);
    }
    const tooMany = Array.from({ length: 367 }, (_, i) => ({ date: onDate('2027-01-01', TZ).date.add({ days: i }).toString(), working_hours: [] }));
    expect((await putRules(owner, tooMany)).status).toBe(400);
  });
});

describe('the arbiter and the search honour overrides', () => {
  it('an opened Saturday: searched, held and booked inside its hours; refused outside with WORKING_HOURS', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const sat = nextWeekday('sat', TZ);
    expect((await putRules(owner, [{ date: sat.date.toString(), working_hours: [{ start: '10:00', end: '12:00' }] }])).status).toBe(200);
    const found = await search(owner, sat.at('00:00'), sat.at('23:00'));
    expect(found.status, found.text).toBe(200);
    expect(found.body.slots.map((s: { start: string }) => s.start)).toEqual([sat.at('10:00'), sat.at('11:00')]);
    const outside = await book(owner, sat.at('12:00'), sat.at('13:00'));
    expect(outside.status).toBe(409);
    expect(outside.body.alternatives.map((a: { start: string }) => a.start)).toContain(sat.at('11:00'));
    const held = await hold(owner, sat.at('10:00'), sat.at('11:00'));
    expect(held.status, held.text).toBe(200);
    expect((await book(owner, sat.at('11:00'), sat.at('12:00'))).status).toBe(201);
    // The Saturday after is an ordinary day off.
    const next = onDate(sat.date.add({ days: 7 }).toString(), TZ);
    const refused = await book(owner, next.at('10:00'), next.at('11:00'));
    expect(refused.status).toBe(409);
  });

  it('a Monday off: no slots that day (OFF_DAY), a hold and a booking refused with OFF_DAY', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ, workingHours: { mon: nineToFive } });
    const mon = nextWeekday('mon', TZ);
    expect((await putRules(owner, [{ date: mon.date.toString(), working_hours: [] }], { mon: nineToFive })).status).toBe(200);
    const none = await search(owner, mon.at('09:00'), mon.at('17:00'));
    expectEnvelope(none, 409, 'NO_SLOTS_AVAILABLE');
    expect(none.body.reason_code).toBe('OFF_DAY');
    // The next Monday keeps its weekly hours.
    const nextMon = onDate(mon.date.add({ days: 7 }).toString(), TZ);
    for (const res of [await book(owner, mon.at('10:00'), mon.at('11:00')), await hold(owner, mon.at('10:00'), mon.at('11:00'))]) {
      expect(expectEnvelope(res, 409, 'ARBITRATION_REJECTED').reason, res.text).toBe('OFF_DAY');
    }
    expect((await book(owner, nextMon.at('10:00'), nextMon.at('11:00'))).status).toBe(201);
  });

  it('is local wall time on a DST date: Berlin 2027-03-28 01:00-04:00 is two real hours', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = onDate('2027-03-28', TZ); // a Sunday; clocks go 02:00 -> 03:00
    expect((await putRules(owner, [{ date: '2027-03-28', working_hours: [{ start: '01:00', end: '04:00' }] }])).status).toBe(200);
    const found = await search(owner, day.at('00:00'), day.at('12:00'));
    expect(found.body.slots.map((s: { start: string }) => s.start)).toEqual(['2027-03-28T00:00:00.000Z', '2027-03-28T01:00:00.000Z']);
    expect((await book(owner, '2027-03-28T01:00:00.000Z', '2027-03-28T02:00:00.000Z')).status).toBe(201);
    expect((await book(owner, '2027-03-28T02:00:00.000Z', '2027-03-28T03:00:00.000Z')).status).toBe(409);
  });
});

describe('out of office', () => {
  it('a booking and a hold inside answer 409 OUT_OF_OFFICE with the range and next_available after it; a search offers nothing; the day after books', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const mon = nextWeekday('mon', TZ);
    const wed = onDate(mon.date.add({ days: 2 }).toString(), TZ);
    const thu = onDate(mon.date.add({ days: 3 }).toString(), TZ);
    const range = { start: mon.date.toString(), end: wed.date.toString(), note: 'conference' };
    const put = await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: owner, time_zone: TZ, working_hours: weekdays, out_of_office: [range] } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.out_of_office).toEqual([range]);
    for (const res of [await book(owner, wed.at('10:00'), wed.at('11:00')), await hold(owner, mon.at('09:00'), mon.at('10:00'))]) {
      expectEnvelope(res, 409, 'OUT_OF_OFFICE');
      expect(res.body.out_of_office).toEqual({ start: range.start, end: range.end });
      expect(res.body.next_available).toMatchObject({ start: thu.at('09:00'), end: thu.at('10:00') });
    }
    const none = await search(owner, mon.at('09:00'), wed.at('17:00'));
    expectEnvelope(none, 409, 'NO_SLOTS_AVAILABLE');
    expect(none.body.reason_code).toBe('OUT_OF_OFFICE');
    expect((await book(owner, thu.at('09:00'), thu.at('10:00'))).status).toBe(201);
    // Reversed ranges are refused.
    const bad = await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: owner, working_hours: weekdays, out_of_office: [{ start: range.end, end: range.start }] } });
    expect(expectEnvelope(bad, 400, 'INVALID_SCHEDULE_RULES').message).toContain('out_of_office[0]');
  });
});

describe('out of office after a hold', () => {
  it('a hold taken before the owner marks the day away is not confirmed: the rules moved, and the confirm answers OUT_OF_OFFICE', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const thu = nextWeekday('thu', TZ);
    const held = await hold(owner, thu.at('10:00'), thu.at('11:00'));
    expect(held.status, held.text).toBe(200);
    const range = [{ start: thu.date.toString(), end: thu.date.toString() }];
    expect((await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: owner, time_zone: TZ, working_hours: weekdays, out_of_office: range } })).status).toBe(200);
    const confirmed = await call('POST', `/v1/bookings/${held.body.hold_id}/confirm`, { key: agent, body: { start: thu.at('10:00'), end: thu.at('11:00') } });
    expectEnvelope(confirmed, 409, 'OUT_OF_OFFICE');
    expect(confirmed.body.out_of_office).toEqual({ start: range[0].start, end: range[0].end });
  });
});

describe('out of office in a pool', () => {
  it('a pool booking goes to the member who is not away; with every member away it answers OUT_OF_OFFICE', async () => {
    const away = await setupOwner(admin, { timeZone: TZ });
    const here = await setupOwner(admin, { timeZone: TZ });
    const tue = nextWeekday('tue', TZ);
    const range = [{ start: tue.date.toString(), end: tue.date.toString() }];
    expect((await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: away, time_zone: TZ, working_hours: weekdays, out_of_office: range } })).status).toBe(200);
    const name = `ooo-${Date.now()}`;
    const pool = await call('POST', '/v1/pools', { key: admin.key, body: { name, members: [{ owner_email: away, weight: 100 }, { owner_email: here, weight: 1 }] } });
    expect(pool.status, pool.text).toBe(201);
    const first = await call('POST', '/v1/bookings', { key: admin.key, body: { pool: name, meeting_class: 'internal', start: tue.at('10:00'), end: tue.at('11:00') } });
    expect(first.status, first.text).toBe(201);
    expect(first.body.owner_email).toBe(here);
    expect((await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: here, time_zone: TZ, working_hours: weekdays, out_of_office: range } })).status).toBe(200);
    const none = await call('POST', '/v1/bookings', { key: admin.key, body: { pool: name, meeting_class: 'internal', start: tue.at('12:00'), end: tue.at('13:00') } });
    expectEnvelope(none, 409, 'OUT_OF_OFFICE');
  });
});
