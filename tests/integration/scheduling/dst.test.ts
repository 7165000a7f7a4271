import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, everyDay, onDate, setupOwner } from './fixtures';

/**
 * Working hours across DST transitions, over HTTP. The 2026 transitions
 * (EU 2026-03-29 / 2026-10-25, US 2026-03-08 / 2026-11-01) are already in the
 * past (the suite runs from 2026-11 on) and would answer PAST_TIME, so these
 * use the next ones: EU 2027-03-28 / 2027-10-31, US 2027-03-14 / 2027-11-07
 * (test names carry the dates). So that the file does not turn into a time
 * bomb, a later run moves on to the first year whose transitions are still
 * ahead, by the same rules.
 *
 * The oracle is independent of the code under test: transition dates from the
 * EU and US rules (last Sunday of March/October; second Sunday of March, first
 * of November) and UTC instants from the fixed offsets (CET +1, CEST +2,
 * EST -5, EDT -4). For 2027 they are also pinned to literal dates below.
 * The transitions are Sundays, so the owners work every day 09:00-17:00 local.
 */
type Zone = 'Europe/Berlin' | 'America/New_York';
type Case = {
  name: string;
  tz: Zone;
  /** The day before, the transition day, the day after: [date, local 09:00 in UTC, local 17:00 in UTC]. */
  days: [date: string, nine: string, five: string][];
  /** Offsets (hours east of UTC) before and after the transition. */
  offsets: [before: number, after: number];
  date: string;
};

const DAY = 86_400_000;
const HOUR = 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const ymd = (ms: number) => iso(ms).slice(0, 10);
/** UTC midnight of the n-th (1-based; -1 = last) Sunday of a month. */
function sunday(year: number, month: number, n: number): number {
  if (n > 0) {
    const first = Date.UTC(year, month - 1, 1);
    return first + ((7 - new Date(first).getUTCDay()) % 7) * DAY + (n - 1) * 7 * DAY;
  }
  const last = Date.UTC(year, month, 0);
  return last - new Date(last).getUTCDay() * DAY;
}
/** The UTC instant of local `hour`:00 on the date at `midnight`, for a zone `offset` hours east of UTC. */
const localAt = (midnight: number, hour: number, offset: number) => midnight + (hour - offset) * HOUR;

const RULES: { label: string; tz: Zone; when: (y: number) => number; offsets: [number, number]; names: string }[] = [
  { label: 'EU spring forward', tz: 'Europe/Berlin', when: (y) => sunday(y, 3, -1), offsets: [1, 2], names: 'CET +01 -> CEST +02' },
  { label: 'EU fall back', tz: 'Europe/Berlin', when: (y) => sunday(y, 10, -1), offsets: [2, 1], names: 'CEST +02 -> CET +01' },
  { label: 'US spring forward', tz: 'America/New_York', when: (y) => sunday(y, 3, 2), offsets: [-5, -4], names: 'EST -05 -> EDT -04' },
  { label: 'US fall back', tz: 'America/New_York', when: (y) => sunday(y, 11, 1), offsets: [-4, -5], names: 'EDT -04 -> EST -05' },
];

/** From 2027 on, the first year in which the day before the transition is still more than a day ahead. */
function caseFor(rule: (typeof RULES)[number]): Case {
  let year = 2027;
  while (rule.when(year) - DAY < Date.now() + 2 * DAY) year++;
  const d = rule.when(year);
  const [b, a] = rule.offsets;
  const days: Case['days'] = [
    [ymd(d - DAY), iso(localAt(d - DAY, 9, b)), iso(localAt(d - DAY, 17, b))],
    [ymd(d), iso(localAt(d, 9, a)), iso(localAt(d, 17, a))],
    [ymd(d + DAY), iso(localAt(d + DAY, 9, a)), iso(localAt(d + DAY, 17, a))],
  ];
  return { name: `${rule.label}, Sunday ${ymd(d)} (${rule.names})`, tz: rule.tz, days, offsets: rule.offsets, date: ymd(d) };
}
const CASES = RULES.map(caseFor);

it('the oracle: 2027 transitions are EU 2027-03-28 / 2027-10-31 and US 2027-03-14 / 2027-11-07', () => {
  expect(RULES.map((r) => ymd(r.when(2027)))).toEqual(['2027-03-28', '2027-10-31', '2027-03-14', '2027-11-07']);
  expect(RULES.map((r) => ymd(r.when(2026)))).toEqual(['2026-03-29', '2026-10-25', '2026-03-08', '2026-11-01']);
  // Berlin on 2027-03-28: 09:00 CEST is 07:00Z; New York on 2027-11-07: 09:00 EST is 14:00Z.
  expect(iso(localAt(Date.UTC(2027, 2, 28), 9, 2))).toBe('2027-03-28T07:00:00.000Z');
  expect(iso(localAt(Date.UTC(2027, 10, 7), 9, -5))).toBe('2027-11-07T14:00:00.000Z');
});

let admin: TestCustomer;
const owners: Record<string, string> = {};
beforeAll(async () => {
  admin = await newCustomer();
  owners['Europe/Berlin'] = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay() });
  owners['America/New_York'] = await setupOwner(admin, { timeZone: 'America/New_York', workingHours: everyDay() });
});

const search = (owner: string, body: Record<string, unknown>) =>
  call('POST', '/v1/availability/search', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', max_results: 500, ...body } });

describe.each(CASES.map((c) => [c.name, c] as const))('DST over HTTP, next transitions (2026 ones are past): %s', (_name, { tz, days }) => {
  const [before, transition, after] = days;
  const local = (date: string) => onDate(date, tz);
  const dayAfterAfter = onDate(local(after[0]).date.add({ days: 1 }).toString(), tz);

  it('a whole working day (480 min) is exactly local 09:00-17:00 on the day before, the transition day and the day after', async () => {
    const res = await search(owners[tz], { duration_minutes: 480, slot_step_minutes: 60, window: { start: local(before[0]).at('00:00'), end: dayAfterAfter.at('00:00') } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.time_zone).toBe(tz);
    expect(res.body.slots).toMatchObject(days.map(([, nine, five]) => ({ start: nine, end: five, preempts: false })));
  });

  it.each(days.map((d) => [d[0], d] as const))('hourly slots on %s are the 8 local hours 09:00..17:00, contiguous in UTC', async (_date, [date, nine, five]) => {
    const nextDay = onDate(local(date).date.add({ days: 1 }).toString(), tz);
    const res = await search(owners[tz], { duration_minutes: 60, slot_step_minutes: 60, window: { start: local(date).at('00:00'), end: nextDay.at('00:00') } });
    expect(res.status, res.text).toBe(200);
    const expected = Array.from({ length: 8 }, (_, h) => ({ start: iso(Date.parse(nine) + h * HOUR), end: iso(Date.parse(nine) + (h + 1) * HOUR), preempts: false }));
    expect(res.body.slots).toMatchObject(expected);
    expect(res.body.slots[7].end).toBe(five);
  });

  it('next_available searched from the evening before lands on the transition day at local 09:00', async () => {
    const [, nine] = transition;
    const eve = local(before[0]);
    const res = await search(owners[tz], { duration_minutes: 30, window: { start: eve.at('18:00'), end: eve.at('23:00') } });
    expectEnvelope(res, 409, 'NO_SLOTS_AVAILABLE');
    expect(res.body.reason_code).toBe('WORKING_HOURS');
    expect(res.body.next_available).toMatchObject({ start: nine, end: iso(Date.parse(nine) + HOUR / 2) });
  });

  it('bookings on the transition day: local 09:00-10:00 and 16:00-17:00 are accepted; an hour either side is not', async () => {
    const [, nine, five] = transition;
    const book = (start: number, end: number) =>
      call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owners[tz], meeting_class: 'internal', start: iso(start), end: iso(end) } });
    const n = Date.parse(nine);
    const f = Date.parse(five);
    const early = await book(n - HOUR, n);
    expect(expectEnvelope(early, 409, 'ARBITRATION_REJECTED').reason).toBe('COUNTER_PROPOSED');
    expect(early.body.alternatives[0]).toMatchObject({ start: nine, end: iso(n + HOUR), reason_code: 'working_hours' });
    expect(early.body.next_available).toMatchObject({ start: nine, end: iso(n + HOUR) });
    const late = await book(f, f + HOUR);
    expect(expectEnvelope(late, 409, 'ARBITRATION_REJECTED').reason).toBe('COUNTER_PROPOSED');

    const first = await book(n, n + HOUR);
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ start: nine, end: iso(n + HOUR) });
    const last = await book(f - HOUR, f);
    expect(last.status, last.text).toBe(201);
    expect(last.body).toMatchObject({ start: iso(f - HOUR), end: five });
  });
});

describe('DST over HTTP: a 00:00-24:00 working day has 23 or 25 hourly slots on the transition day', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, { tz, date, offsets: [b, a] }) => {
    const owner = await setupOwner(admin, { timeZone: tz, workingHours: everyDay('00:00', '24:00') });
    const midnight = Date.parse(`${date}T00:00:00Z`);
    const count = 24 + b - a; // 23 when clocks go forward, 25 when they go back
    const d = onDate(date, tz);
    const next = onDate(d.date.add({ days: 1 }).toString(), tz);
    const res = await search(owner, { duration_minutes: 60, slot_step_minutes: 60, window: { start: d.at('00:00'), end: next.at('00:00') } });
    expect(res.status, res.text).toBe(200);
    const starts = res.body.slots.map((s: { start: string }) => Date.parse(s.start));
    expect(starts).toHaveLength(count);
    expect(iso(starts[0])).toBe(iso(localAt(midnight, 0, b)));
    expect(iso(starts[count - 1])).toBe(iso(localAt(midnight, 23, a)));
    starts.slice(1).forEach((t: number, i: number) => expect(t - starts[i]).toBe(HOUR));
  });
});
