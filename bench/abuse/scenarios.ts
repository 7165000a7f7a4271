/**
 * What bench/abuse.ts sends: the customer it sets up over HTTP (two owners, a meeting class, a
 * public link) and the worst request of each kind issue 9 found, plus a 31-day search and decisions
 * for an owner with 100 hard blocks.
 */
import { Temporal } from 'temporal-polyfill';

export const TZ = 'Europe/Berlin';
const DAY = 86_400_000;

export type Scenario = {
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  /** Statuses that count as the intended answer (anything else aborts the run). */
  expect: number[];
  /** Anonymous (no API key), like the public requester pages. */
  anonymous?: boolean;
};

/** The attack's rule (issue 9): every day of every month, COUNT almost a billion, from year 1. */
const ATTACK_RULE = {
  rrule: 'FREQ=MONTHLY;COUNT=999999999;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,-1,-2,-3',
  dtstart: '0001-01-01T00:00',
  duration_minutes: 30,
};

/**
 * 100 hard blocks of the heaviest kinds the limits allow, all still running in the searched month:
 * 40 DAILY (one short block a day each, at staggered times), 30 WEEKLY on all seven days, 20 MONTHLY
 * on ten days a month, and 10 MONTHLY with COUNT from 1900 that rarely match (their COUNT
 * checkpoint lies past 2100, so they are the ones a walk from DTSTART would have been slowest for).
 */
export function hundredRules(): unknown[] {
  const at = (i: number) => `${String(7 + Math.floor(i / 6)).padStart(2, '0')}:${String((i % 6) * 10).padStart(2, '0')}`;
  const rules: unknown[] = [];
  for (let i = 0; i < 40; i++) rules.push({ rrule: 'FREQ=DAILY', dtstart: `1900-01-01T${at(i)}`, duration_minutes: 5, label: `daily ${i}` });
  for (let i = 0; i < 30; i++) rules.push({ rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU', dtstart: `1950-01-02T${at(i + 40)}`, duration_minutes: 5 });
  for (let i = 0; i < 20; i++) rules.push({ rrule: 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYMONTHDAY=1,3,5,7,9,11,13,15,17,19', dtstart: `2000-01-01T${at(i + 70)}`, duration_minutes: 5 });
  for (let i = 0; i < 10; i++) {
    rules.push({ rrule: 'FREQ=MONTHLY;COUNT=10000;BYDAY=FR,SA,SU,MO,TU,WE,TH;BYMONTHDAY=13,-13,29,30,31', dtstart: `1900-01-01T${at(i + 90)}`, duration_minutes: 5 });
  }
  return rules;
}

export type Setup = { heavy: string; plain: string; alias: string; slug: string };

/** Monday four weeks ahead, 00:00 in TZ, as epoch ms: the searched month starts there. */
function monthStart(): number {
  const today = Temporal.Now.plainDateISO(TZ);
  return today.add({ days: 8 - today.dayOfWeek + 21 }).toZonedDateTime({ timeZone: TZ }).epochMilliseconds;
}

export function scenarios(s: Setup): Scenario[] {
  const iso = (ms: number) => new Date(ms).toISOString();
  const m0 = monthStart();
  const nine = m0 + 9 * 3_600_000; // Monday 09:00 local (winter or summer: within the 08-20 working hours)
  const heavy = { owner_email: s.heavy, meeting_class: 'bench-abuse' };
  const plain = { owner_email: s.plain, meeting_class: 'bench-abuse' };
  const y9999 = { start: '9999-12-31T23:00:00Z', end: '9999-12-31T23:30:00Z' };
  const suggested = (q: string) => `/public/schedules/${s.alias}/meeting-types/${s.slug}/suggested-times?${q}`;
  const window31 = `from=${encodeURIComponent(iso(m0))}&to=${encodeURIComponent(iso(m0 + 31 * DAY))}`;
  return [
    // Control: the health check itself as "the request" shows the noise floor of the health ratio on this host.
    { name: 'control: GET /api/health', method: 'GET', path: '/api/health', expect: [200], anonymous: true },
    // 1. evaluate with any span
    { name: 'evaluate: 300-year span (the attack)', method: 'POST', path: '/v1/arbitration/evaluate', body: { ...plain, start: iso(m0), end: '2326-01-01T00:00:00Z' }, expect: [400] },
    { name: 'evaluate: 73-year span inside the instant range', method: 'POST', path: '/v1/arbitration/evaluate', body: { ...plain, start: iso(m0), end: '2100-01-01T00:00:00Z' }, expect: [400] },
    { name: 'evaluate: 480 min, 100-rule owner (alternatives)', method: 'POST', path: '/v1/arbitration/evaluate', body: { ...heavy, start: iso(nine), end: iso(nine + 480 * 60_000) }, expect: [200] },
    // 2. pathological hard-block RRULEs
    { name: 'PUT rules: 20 attack RRULEs (refused)', method: 'PUT', path: '/v1/schedule-rules', body: { owner_email: s.plain, working_hours: null, hard_blocks: Array.from({ length: 20 }, () => ATTACK_RULE) }, expect: [400] },
    { name: 'PUT rules: the 100 heaviest allowed blocks', method: 'PUT', path: '/v1/schedule-rules', body: { owner_email: s.heavy, working_hours: everyDay(), hard_blocks: hundredRules(), max_daily_meeting_hours: 10 }, expect: [200] },
    { name: 'suggested-times, anonymous, 100-rule owner, 31 days', method: 'GET', path: suggested(window31), expect: [200], anonymous: true },
    { name: 'booking, 100-rule owner', method: 'POST', path: '/v1/bookings', body: { ...heavy, start: iso(nine + 7 * DAY + 5 * 60_000), end: iso(nine + 7 * DAY + 10 * 60_000) }, expect: [201, 409] },
    { name: 'search 31 days, 100-rule owner, step 5 min', method: 'POST', path: '/v1/availability/search', body: { ...heavy, duration_minutes: 5, window: { start: iso(m0), end: iso(m0 + 31 * DAY) }, slot_step_minutes: 5, max_results: 500 }, expect: [200, 409] },
    // 3. the end of year 9999
    { name: 'booking at 9999-12-31T23:00Z', method: 'POST', path: '/v1/bookings', body: { ...plain, ...y9999 }, expect: [400] },
    { name: 'hold at 9999-12-31T23:00Z', method: 'POST', path: '/v1/holds', body: { ...plain, hold_scope: 'candidate', candidate: y9999 }, expect: [400] },
    { name: 'search at 9999-12-31T23:00Z', method: 'POST', path: '/v1/availability/search', body: { ...plain, duration_minutes: 30, window: y9999 }, expect: [400] },
    { name: 'evaluate at 9999-12-31T23:00Z', method: 'POST', path: '/v1/arbitration/evaluate', body: { ...plain, ...y9999 }, expect: [400] },
    { name: 'suggested-times from 9999-12-31T23:00Z', method: 'GET', path: suggested(`from=${encodeURIComponent(y9999.start)}`), expect: [400], anonymous: true },
    { name: 'evaluate at the last instant (2099-12-31T23:00Z)', method: 'POST', path: '/v1/arbitration/evaluate', body: { ...plain, start: '2099-12-31T23:00:00Z', end: '2100-01-01T00:00:00Z' }, expect: [200] },
    // 4. a 31-day search of an ordinary owner
    { name: 'search 31 days, plain owner, step 5 min', method: 'POST', path: '/v1/availability/search', body: { ...plain, duration_minutes: 30, window: { start: iso(m0), end: iso(m0 + 31 * DAY) }, slot_step_minutes: 5, max_results: 500 }, expect: [200] },
  ];
}

/** 08:00-20:00 every day: many candidate slots, so searches scan all of their window. */
export function everyDay(): Record<string, { start: string; end: string }[]> {
  const r = [{ start: '08:00', end: '20:00' }];
  return { mon: r, tue: r, wed: r, thu: r, fri: r, sat: r, sun: r };
}

/** Working hours Mon-Fri 09:00-17:00, a lunch block and two ordinary RRULEs. */
export const PLAIN_RULES = {
  working_hours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start: '09:00', end: '17:00' }]])),
  hard_blocks: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00', label: 'lunch' },
    { rrule: 'FREQ=WEEKLY;BYDAY=WE', dtstart: '2026-01-07T15:00', duration_minutes: 60 },
    { rrule: 'FREQ=MONTHLY;BYMONTHDAY=1', dtstart: '2026-01-01T09:00', duration_minutes: 90 },
  ],
  max_daily_meeting_hours: 6,
};
