import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, onDate, setPrimaryCalendarStatus, setupOwner } from './fixtures';

/**
 * Collective search (docs/groups.md "Collective search"): owner_emails on POST
 * /v1/availability/search. The answer must be exactly what every owner's own arbiter accepts.
 */
type Slot = { start: string; end: string; start_local: string; end_local: string; preempts: boolean; local?: Record<string, { start_local: string; end_local: string }>; free_optional?: string[] };
let admin: TestCustomer;
let berlin: string;
let newYork: string;
let utc: string;
let offDay: string;
const day = nextWeekday('tue', 'UTC');
const later = (days: number) => onDate(day.date.add({ days }).toString(), 'UTC');
const nextDay = later(1);
const window = { start: day.at('00:00'), end: later(2).at('00:00') };

const search = (body: Record<string, unknown>, key = admin.key) =>
  call('POST', '/v1/availability/search', { key, body: { meeting_class: 'external', duration_minutes: 30, max_results: 500, window, ...body } });
const book = async (owner: string, meetingClass: string, start: string, end: string) => {
  const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: meetingClass, start, end } });
  expect(res.status, res.text).toBe(201);
};
const starts = (slots: Slot[]) => slots.map((s) => s.start);

beforeAll(async () => {
  admin = await newCustomer();
  berlin = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
  newYork = await setupOwner(admin, { timeZone: 'America/New_York' });
  // 07:00-20:00 UTC every weekday: wide enough to cover the Berlin / New York overlap whatever the season.
  const wide = [{ start: '07:00', end: '20:00' }];
  utc = await setupOwner(admin, { timeZone: 'UTC', workingHours: { mon: wide, tue: wide, wed: wide, thu: wide, fri: wide } });
  offDay = await setupOwner(admin, { timeZone: 'UTC', workingHours: { mon: wide } });
  // Busy time: a sacred-by-priority meeting at New York, a preemptable one at Berlin, one at the UTC owner.
  await book(newYork, 'external', day.at('14:30'), day.at('15:00'));
  await book(berlin, 'focus', day.at('15:00'), day.at('15:30'));
  await book(utc, 'external', nextDay.at('14:00'), nextDay.at('15:00'));
});

describe('collective search', () => {
  it('returns exactly the slots every owner alone would be offered, with each owner\'s local times', async () => {
    const owners = [berlin, newYork, utc];
    const singles: Slot[][] = [];
    for (const o of owners) {
      const r = await search({ owner_email: o });
      expect(r.status, r.text).toBe(200);
      singles.push(r.body.slots);
    }
    const res = await search({ owner_emails: owners });
    expect(res.status, res.text).toBe(200);
    const common = singles[0].filter((s) => singles.every((list) => list.some((x) => x.start === s.start && x.end === s.end)));
    expect(common.length).toBeGreaterThan(0);
    const slots: Slot[] = res.body.slots;
    expect(starts(slots)).toEqual(starts(common));
    expect(res.body.owner_email).toBe(berlin);
    expect(res.body.time_zone).toBe('Europe/Berlin');
    expect(res.body.owners).toEqual([
      { owner_email: berlin, time_zone: 'Europe/Berlin', required: true },
      { owner_email: newYork, time_zone: 'America/New_York', required: true },
      { owner_email: utc, time_zone: 'UTC', required: true },
    ]);
    for (const s of slots) {
      owners.forEach((o, i) => {
        const own = singles[i].find((x) => x.start === s.start)!;
        expect(s.local![o]).toEqual({ start_local: own.start_local, end_local: own.end_local });
      });
      expect(s.start_local).toBe(s.local![berlin].start_local);
      expect(s.free_optional).toEqual([]);
    }
    // The Berlin focus meeting is preempted by an external one: offered, marked preempts.
    expect(slots.find((s) => s.start === day.at('15:00'))?.preempts).toBe(true);
    // The New York external meeting (same priority) is not.
    expect(starts(slots)).not.toContain(day.at('14:30'));
  });

  it('ranks by free optional owners, then time, and applies the quorum', async () => {
    const res = await search({ owner_emails: [berlin, newYork], optional_owner_emails: [utc] });
    expect(res.status, res.text).toBe(200);
    const slots: Slot[] = res.body.slots;
    const busyAtUtc = (s: Slot) => Date.parse(s.start) < Date.parse(nextDay.at('15:00')) && Date.parse(s.end) > Date.parse(nextDay.at('14:00'));
    expect(slots.some(busyAtUtc)).toBe(true);
    for (const s of slots) expect(s.free_optional).toEqual(busyAtUtc(s) ? [] : [utc]);
    const firstWithout = slots.findIndex((s) => s.free_optional!.length === 0);
    expect(slots.slice(firstWithout).every((s) => s.free_optional!.length === 0)).toBe(true);
    const byTime = (list: Slot[]) => list.every((s, i) => i === 0 || Date.parse(list[i - 1].start) <= Date.parse(s.start));
    expect(byTime(slots.slice(0, firstWithout))).toBe(true);
    expect(byTime(slots.slice(firstWithout))).toBe(true);
    expect(Object.keys(slots[0].local!).sort()).toEqual([berlin, newYork, utc].sort());

    const quorum = await search({ owner_emails: [berlin, newYork], optional_owner_emails: [utc], min_optional: 1 });
    expect(quorum.status, quorum.text).toBe(200);
    expect(starts(quorum.body.slots)).toEqual(starts(slots.slice(0, firstWithout)));

    const top = await search({ owner_emails: [berlin, newYork], optional_owner_emails: [utc], max_results: 2, distinct: true });
    expect(top.status, top.text).toBe(200);
    expect(top.body.slots).toHaveLength(2);
    expect(top.body.slots.every((s: Slot) => s.free_optional!.length === 1)).toBe(true);
  });

  it('keeps distinct and max_per_day working', async () => {
    const res = await search({ owner_emails: [berlin, newYork, utc], distinct: true, max_per_day: 2 });
    expect(res.status, res.text).toBe(200);
    const slots: Slot[] = res.body.slots;
    const perDay = new Map<string, number>();
    for (const s of slots) perDay.set(s.start_local.slice(0, 10), (perDay.get(s.start_local.slice(0, 10)) ?? 0) + 1);
    expect([...perDay.values()].every((n) => n <= 2)).toBe(true);
    for (let i = 1; i < slots.length; i++) expect(Date.parse(slots[i].start)).toBeGreaterThanOrEqual(Date.parse(slots[i - 1].end));
  });

  it('answers NO_SLOTS_AVAILABLE with next_available and each owner\'s reasons', async () => {
    const res = await search({ owner_emails: [utc, offDay] });
    expectEnvelope(res, 409, 'NO_SLOTS_AVAILABLE');
    expect(res.body.reason_code).toBe('OFF_DAY');
    expect(res.body.owners).toEqual([
      { owner_email: utc, required: true, reasons: ['WORKING_HOURS', 'NO_FREE_SLOTS'], free_slots: expect.any(Number) },
      { owner_email: offDay, required: true, reasons: ['OFF_DAY'], free_slots: 0 },
    ]);
    expect(res.body.owners[0].free_slots).toBeGreaterThan(0);
    // Lookahead 72 h past Thursday 00:00 reaches no Monday: the next common slot lies beyond it.
    expect(res.body.next_available_exceeds_lookahead).toBe(true);
    const mon = later(6);
    const early = await search({ owner_emails: [utc, offDay], window: { start: mon.at('00:00'), end: mon.at('07:00') } });
    expectEnvelope(early, 409, 'NO_SLOTS_AVAILABLE');
    expect(early.body.reason_code).toBe('WORKING_HOURS');
    expect(early.body.next_available).toMatchObject({ start: mon.at('07:00'), end: mon.at('07:30') });
  });

  it('validates the owners named', async () => {
    expectEnvelope(await search({ owner_emails: [berlin] }), 400, 'invalid_request');
    expectEnvelope(await search({ owner_email: berlin, owner_emails: [berlin, newYork] }), 400, 'invalid_request');
    expectEnvelope(await search({ owner_emails: [berlin, berlin.toUpperCase()] }), 400, 'invalid_request');
    expectEnvelope(await search({ owner_emails: [berlin, newYork], optional_owner_emails: [newYork] }), 400, 'invalid_request');
    expectEnvelope(await search({ owner_emails: [berlin, newYork], optional_owner_emails: [utc], min_optional: 2 }), 400, 'invalid_request');
    expectEnvelope(await search({ owner_email: berlin, optional_owner_emails: [utc] }), 400, 'invalid_request');
    expectEnvelope(await search({ owner_emails: Array.from({ length: 21 }, (_, i) => `o${i}@example.com`) }), 400, 'invalid_request');
    expectEnvelope(await search({ owner_emails: [berlin, 'nobody@example.com'] }), 404, 'OWNER_NOT_FOUND');
    expectEnvelope(await search({ owner_emails: [berlin, newYork], meeting_class: 'no-such-class' }), 400, 'INVALID_MEETING_CLASS');
  });

  it('fails closed when one owner\'s calendar needs re-authorisation', async () => {
    const stale = await setupOwner(admin, { timeZone: 'UTC' });
    await setPrimaryCalendarStatus(admin, stale, 'reauth_required');
    expectEnvelope(await search({ owner_emails: [berlin, stale] }), 409, 'CALENDAR_REAUTH_REQUIRED');
    expectEnvelope(await search({ owner_emails: [berlin, newYork], optional_owner_emails: [stale] }), 409, 'CALENDAR_REAUTH_REQUIRED');
  });

  it('needs every owner named in the agent\'s owner_scope, and audits the refusal', async () => {
    const scoped = await newAgent(admin, ['read_availability'], `user:${berlin}`);
    expectEnvelope(await search({ owner_emails: [berlin, newYork] }, scoped.key), 403, 'owner_scope_denied');
    expectEnvelope(await search({ owner_emails: [berlin, utc], optional_owner_emails: [newYork] }, scoped.key), 403, 'owner_scope_denied');
    const log = await call('GET', `/v1/audit-log?limit=50&action=request.denied&agent_id=${scoped.agentId}`, { key: admin.key });
    expect(log.status, log.text).toBe(200);
    expect(log.body.entries.map((e: { owner_email: string }) => e.owner_email).sort()).toEqual([newYork, utc].sort());
    for (const e of log.body.entries) expect(e).toMatchObject({ outcome: 'denied', reason: 'owner_scope_denied' });
  });
});
