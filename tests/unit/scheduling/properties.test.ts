/**
 * Property-based tests (fast-check). The invariants are checked against simple, independent
 * references (naive overlap filters, workingIntervals/hardBlockIntervals/bookedMinutesOnLocalDay)
 * rather than against the internals used by arbitrate().
 */
import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import {
  arbitrate,
  VERDICT_CLAIMS_MARGIN_MS,
  bookedMinutesOnLocalDay,
  findHoldStretch,
  hardBlockIntervals,
  isWorkingDay,
  localDayBounds,
  nextAvailable,
  searchSlots,
  workingIntervals,
  type ArbitrationRequest,
  type Claim,
  type HardBlock,
  type LocalRange,
  type OwnerRules,
  type RequestPolicy,
  type Weekday,
} from '@/server/domain/scheduling';
import { at, H, MIN } from './helpers';

// Property runs take a few seconds; leave room for a busy machine.
vi.setConfig({ testTimeout: 60_000 });

const DAY = 24 * H;
const WEEKDAYS: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC', 'Pacific/Chatham'];
// Anchors next to the 2026 transitions (EU, US, Lord Howe) and an ordinary week.
const ANCHORS = ['2026-03-07T00:00Z', '2026-03-27T00:00Z', '2026-10-23T00:00Z', '2026-10-30T00:00Z', '2026-04-03T00:00Z', '2026-06-01T00:00Z'].map(at);
const hhmm = (q: number) => (q === 96 ? '24:00' : `${String(Math.floor(q / 4)).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`);

const rangeArb: fc.Arbitrary<LocalRange | null> = fc
  .tuple(fc.integer({ min: 0, max: 95 }), fc.integer({ min: 1, max: 96 }))
  .map(([a, b]) => (a < b ? { start: hhmm(a), end: hhmm(b) } : null));
const everyDay = (ranges: LocalRange[], days = WEEKDAYS) =>
  Object.fromEntries(WEEKDAYS.map((d) => [d, days.includes(d) ? ranges : []])) as Record<Weekday, LocalRange[]>;
const randomWeek = fc
  .tuple(...WEEKDAYS.map(() => fc.array(rangeArb, { maxLength: 2 })))
  .map((days) => Object.fromEntries(WEEKDAYS.map((d, i) => [d, days[i].filter((r): r is LocalRange => r !== null)])) as Record<Weekday, LocalRange[]>);
const workingArb: fc.Arbitrary<Record<Weekday, LocalRange[]> | null> = fc.oneof(
  fc.constant(null),
  fc.constant(everyDay([{ start: '09:00', end: '17:00' }], ['mon', 'tue', 'wed', 'thu', 'fri'])),
  fc.constant(everyDay([{ start: '00:00', end: '24:00' }])),
  fc.constant(everyDay([{ start: '01:00', end: '04:00' }, { start: '08:00', end: '12:00' }, { start: '13:00', end: '24:00' }])),
  randomWeek,
);
const hardBlockArb: fc.Arbitrary<HardBlock> = fc.oneof(
  fc.record({
    days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: 3 }),
    start: fc.integer({ min: 0, max: 95 }).map(hhmm),
    end: fc.integer({ min: 1, max: 96 }).map(hhmm),
  }).filter((b) => b.start !== b.end),
  fc.record({
    rrule: fc.constantFrom('FREQ=DAILY', 'FREQ=DAILY;INTERVAL=2;COUNT=4', 'FREQ=WEEKLY;BYDAY=MO,WE,FR', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;COUNT=3', 'FREQ=MONTHLY;BYDAY=1MO,-1FR'),
    dtstart: fc.tuple(fc.constantFrom('2026-03-01', '2026-03-26', '2026-10-20'), fc.integer({ min: 0, max: 95 })).map(([d, q]) => `${d}T${hhmm(q)}`),
    duration_minutes: fc.integer({ min: 1, max: 12 }).map((q) => q * 15),
  }),
);
const rulesArb: fc.Arbitrary<OwnerRules> = fc.record({
  timeZone: fc.constantFrom(...ZONES),
  workingHours: workingArb,
  hardBlocks: fc.array(hardBlockArb, { maxLength: 2 }),
  maxDailyMeetingHours: fc.option(fc.constantFrom(0.5, 1, 2.5, 4, 8), { freq: 3, nil: null }),
});
const policyArb: fc.Arbitrary<RequestPolicy> = fc.record({
  priority: fc.integer({ min: 0, max: 9 }),
  preemptPolicy: fc.constantFrom('preempt_lower' as const, 'never' as const),
  agentCanPreempt: fc.boolean(),
});

/** Non-overlapping claims (as the database guarantees) from anchor - 6 h onwards. */
const claimsArb = (anchor: number): fc.Arbitrary<Claim[]> =>
  fc
    .array(
      fc.record({
        gap: fc.integer({ min: 0, max: 12 }),
        len: fc.integer({ min: 1, max: 16 }),
        priority: fc.integer({ min: 0, max: 6 }),
        sacred: fc.boolean(),
        hold: fc.boolean(),
        windowHold: fc.boolean(),
      }),
      { maxLength: 40, size: 'medium' },
    )
    .map((items) => {
      let t = anchor - 6 * H;
      return items.map((c, i) => {
        const start = t + c.gap * 15 * MIN;
        const end = start + c.len * 15 * MIN;
        t = end;
        const kind = c.hold ? ('hold' as const) : ('booking' as const);
        const countedMinutes = c.hold && c.windowHold ? Math.max(15, Math.floor(c.len / 2) * 15) : c.len * 15;
        return { id: `c${i}`, kind, start, end, countedMinutes, priority: c.priority, sacred: !c.hold && c.sacred };
      });
    });

const scenarioArb = fc.constantFrom(...ANCHORS).chain((anchor) =>
  fc.record({
    anchor: fc.constant(anchor),
    rules: rulesArb,
    claims: claimsArb(anchor),
    now: fc.integer({ min: 0, max: 24 * 60 }).map((m) => anchor + m * MIN),
    startMin: fc.integer({ min: -6 * 60, max: 4 * 24 * 60 }).map((m) => anchor + m * MIN),
    durationMin: fc.integer({ min: 1, max: 48 }).map((q) => q * 5),
    policy: policyArb,
  }),
);

const overlapping = (claims: Claim[], start: number, end: number) =>
  claims.filter((c) => c.start < end && c.end > start).sort((a, b) => a.start - b.start);

/** Local days [start,end) touched by an interval. */
function daysTouched(tz: string, start: number, end: number) {
  const out: { start: number; end: number }[] = [];
  for (let t = start; t < end; ) {
    const d = localDayBounds(tz, t);
    out.push(d);
    t = d.end;
  }
  return out;
}

function onLocalQuarterHour(tz: string, t: number): boolean {
  const z = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(tz);
  return z.minute % 15 === 0 && z.second === 0 && z.millisecond === 0;
}

/** Every invariant an accepted [start, end) must satisfy, checked with independent references. */
function expectAcceptable(rules: OwnerRules, claims: Claim[], now: number, policy: RequestPolicy, start: number, end: number, preempt: string[]) {
  expect(start).toBeGreaterThanOrEqual(now);
  expect(hardBlockIntervals(rules, start, end)).toEqual([]);
  if (rules.workingHours) {
    const w = workingIntervals(rules, start - 2 * DAY, end + 2 * DAY);
    expect(w.some((i) => i.start <= start && end <= i.end)).toBe(true);
    for (const d of daysTouched(rules.timeZone, start, end)) expect(isWorkingDay(rules, d.start)).toBe(true);
  }
  const over = overlapping(claims, start, end);
  for (const c of over) {
    expect(c.sacred).toBe(false);
    expect(c.priority).toBeLessThan(policy.priority);
    expect(policy.agentCanPreempt && policy.preemptPolicy === 'preempt_lower').toBe(true);
  }
  expect(preempt).toEqual(over.map((c) => c.id));
  if (rules.maxDailyMeetingHours !== null) {
    for (const d of daysTouched(rules.timeZone, start, end)) {
      const booked = bookedMinutesOnLocalDay(claims, rules.timeZone, d.start, d.end, preempt);
      const ours = (Math.min(end, d.end) - Math.max(start, d.start)) / MIN;
      expect(booked + ours).toBeLessThanOrEqual(rules.maxDailyMeetingHours * 60 + 1e-9);
    }
  }
}

const RUNS = { numRuns: 150 };

describe('arbitrate properties', () => {
  it('an accepted request never overlaps a sacred / higher-or-equal claim or a hard block, lies in working hours, and keeps the daily limit', () => {
    let accepted = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const req: ArbitrationRequest = { start: s.startMin, end: s.startMin + s.durationMin * MIN, ...s.policy };
        const d = arbitrate(req, { now: s.now, rules: s.rules, claims: s.claims });
        if (req.start < s.now) expect(d).toEqual({ outcome: 'past_time' });
        if (d.outcome !== 'accept') return;
        accepted++;
        expectAcceptable(s.rules, s.claims, s.now, s.policy, req.start, req.end, d.preempt);
        expect(d.warnings).toEqual(s.rules.workingHours ? [] : ['WORKING_HOURS_NOT_CONFIGURED']);
      }),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(20);
  });

  it('with a preempting agent above every non-sacred claim and no other constraint, every future request is accepted and preempts exactly what it overlaps', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const open: OwnerRules = { timeZone: s.rules.timeZone, workingHours: null, hardBlocks: [], maxDailyMeetingHours: null };
        const claims = s.claims.map((c) => ({ ...c, sacred: false, priority: Math.min(c.priority, 6) }));
        const policy: RequestPolicy = { priority: 7, preemptPolicy: 'preempt_lower', agentCanPreempt: true };
        const req: ArbitrationRequest = { start: s.startMin, end: s.startMin + s.durationMin * MIN, ...policy };
        const d = arbitrate(req, { now: s.now, rules: open, claims });
        if (req.start < s.now) return;
        expect(d).toEqual({ outcome: 'accept', preempt: overlapping(claims, req.start, req.end).map((c) => c.id), warnings: ['WORKING_HOURS_NOT_CONFIGURED'] });
        // one priority level lower: a tie with a claim of priority 6 becomes NO_CAPACITY
        const tied = arbitrate({ ...req, priority: 6 }, { now: s.now, rules: open, claims });
        const blockers = overlapping(claims, req.start, req.end).filter((c) => c.priority >= 6);
        expect(tied.outcome === 'accept').toBe(blockers.length === 0);
      }),
      RUNS,
    );
  });

  it('the verdict depends only on the claims within VERDICT_CLAIMS_MARGIN_MS (what a decision loads first)', () => {
    let dropped = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const req: ArbitrationRequest = { start: s.startMin, end: s.startMin + s.durationMin * MIN, ...s.policy };
        const near = s.claims.filter((c) => c.end > req.start - VERDICT_CLAIMS_MARGIN_MS && c.start < req.end + VERDICT_CLAIMS_MARGIN_MS);
        dropped += s.claims.length - near.length;
        const all = arbitrate(req, { now: s.now, rules: s.rules, claims: s.claims });
        const narrow = arbitrate(req, { now: s.now, rules: s.rules, claims: near });
        const verdict = (d: typeof all) => (d.outcome === 'accept' ? d : d.outcome === 'past_time' ? d : { outcome: 'not accepted', failedReason: d.failedReason });
        expect(verdict(narrow)).toEqual(verdict(all));
      }),
      { numRuns: 400 },
    );
    expect(dropped, 'the scenarios must have claims outside the margin').toBeGreaterThan(100);
  });

  it('every alternative is itself accepted, and the outcome follows the counter-propose rule', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const req: ArbitrationRequest = { start: s.startMin, end: s.startMin + s.durationMin * MIN, ...s.policy };
        const ctx = { now: s.now, rules: s.rules, claims: s.claims };
        const d = arbitrate(req, ctx);
        if (d.outcome === 'accept' || d.outcome === 'past_time') return;
        expect(d.alternatives.length).toBeLessThanOrEqual(3);
        const starts = d.alternatives.map((a) => a.start);
        expect([...starts].sort((a, b) => a - b)).toEqual(starts);
        const counterable = ['NO_CAPACITY', 'WORKING_HOURS', 'OFF_DAY', 'MAX_DAILY_HOURS'].includes(d.failedReason);
        expect(d.outcome).toBe(counterable && d.alternatives.length > 0 ? 'counter_propose' : 'reject');
        expect(d.reason).toBe(d.outcome === 'counter_propose' ? 'COUNTER_PROPOSED' : d.failedReason);
        for (const a of d.alternatives) {
          expect(a.end - a.start).toBe(req.end - req.start);
          expect(Math.abs(a.start - req.start)).toBeLessThanOrEqual(72 * H);
          expect(onLocalQuarterHour(s.rules.timeZone, a.start)).toBe(true);
          const again = arbitrate({ ...req, start: a.start, end: a.end }, ctx);
          expect(again.outcome).toBe('accept');
          if (again.outcome === 'accept') expectAcceptable(s.rules, s.claims, s.now, s.policy, a.start, a.end, again.preempt);
        }
      }),
      RUNS,
    );
  });

  it('alternatives are the nearest acceptable quarter-hour slots (ties to the earlier) that overlap no nearer one', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const req: ArbitrationRequest = { start: s.startMin, end: s.startMin + s.durationMin * MIN, ...s.policy };
        const d = arbitrate(req, { now: s.now, rules: s.rules, claims: s.claims });
        if (d.outcome === 'accept' || d.outcome === 'past_time') return;
        const len = req.end - req.start;
        const all = searchSlots({
          rules: s.rules, claims: s.claims, now: s.now, durationMinutes: len / MIN, request: s.policy, stepMinutes: 15, maxResults: 10_000,
          window: { start: Math.max(s.now, req.start - 72 * H), end: req.start + 72 * H + len },
        }).slots.map((x) => x.start).filter((t) => t !== req.start);
        const expected: number[] = [];
        for (const t of all.sort((a, b) => Math.abs(a - req.start) - Math.abs(b - req.start) || a - b)) {
          if (expected.length === 3) break;
          if (!expected.some((f) => t < f + len && f < t + len)) expected.push(t);
        }
        expected.sort((a, b) => a - b);
        expect(d.alternatives.map((a) => a.start)).toEqual(expected);
        // distinct, like a `distinct` search
        for (let i = 1; i < d.alternatives.length; i++) expect(d.alternatives[i].start).toBeGreaterThanOrEqual(d.alternatives[i - 1].end);
      }),
      { numRuns: 60 },
    );
  });

  it('decisions are deterministic and independent of claim order', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const req: ArbitrationRequest = { start: s.startMin, end: s.startMin + s.durationMin * MIN, ...s.policy };
        const a = arbitrate(req, { now: s.now, rules: s.rules, claims: s.claims });
        const b = arbitrate(req, { now: s.now, rules: s.rules, claims: [...s.claims].reverse() });
        expect(b).toEqual(a);
        expect(arbitrate(req, { now: s.now, rules: s.rules, claims: s.claims })).toEqual(a);
      }),
      RUNS,
    );
  });
});

describe('search properties', () => {
  const searchArb = scenarioArb.chain((s) =>
    fc.record({
      s: fc.constant(s),
      windowStart: fc.integer({ min: -24 * 4, max: 3 * 24 * 4 }).map((q) => s.anchor + q * 15 * MIN + 7 * MIN),
      windowHours: fc.integer({ min: 1, max: 72 }),
      step: fc.constantFrom(5, 15, 20, 30, 45, 60),
    }),
  );

  it('every slot searchSlots returns is accepted by arbitrate with the same request', () => {
    fc.assert(
      fc.property(searchArb, ({ s, windowStart, windowHours, step }) => {
        const window = { start: windowStart, end: windowStart + windowHours * H };
        const res = searchSlots({ rules: s.rules, claims: s.claims, now: s.now, window, durationMinutes: s.durationMin, stepMinutes: step, maxResults: 40, request: s.policy });
        expect(res.slots.length === 0).toBe(res.noSlots !== undefined);
        let prev = -Infinity;
        for (const slot of res.slots) {
          expect(slot.start).toBeGreaterThan(prev);
          prev = slot.start;
          expect(slot.start).toBeGreaterThanOrEqual(window.start);
          expect(slot.end).toBeLessThanOrEqual(window.end);
          const z = Temporal.Instant.fromEpochMilliseconds(slot.start).toZonedDateTimeISO(s.rules.timeZone);
          expect((z.hour * 60 + z.minute) % step).toBe(0);
          const d = arbitrate({ start: slot.start, end: slot.end, ...s.policy }, { now: s.now, rules: s.rules, claims: s.claims });
          expect(d.outcome).toBe('accept');
          if (d.outcome === 'accept') expect(d.preempt.length > 0).toBe(slot.preempts);
          if (d.outcome === 'accept' && (slot === res.slots[0] || slot.preempts)) {
            expectAcceptable(s.rules, s.claims, s.now, s.policy, slot.start, slot.end, d.preempt);
          }
        }
      }),
      RUNS,
    );
  });

  it('nextAvailable is accepted and nothing earlier on the grid is', () => {
    fc.assert(
      fc.property(searchArb, ({ s, windowStart, windowHours }) => {
        const common = { rules: s.rules, claims: s.claims, now: s.now, durationMinutes: s.durationMin, request: s.policy };
        const latestStart = windowStart + (windowHours + 24) * H;
        const next = nextAvailable({ ...common, from: windowStart, latestStart });
        const upTo = next ? next.start : latestStart + 1;
        const earlier = searchSlots({ ...common, window: { start: windowStart, end: upTo - 1 + s.durationMin * MIN }, maxResults: 1 });
        expect(earlier.slots).toEqual([]);
        if (!next) return;
        expect(next.start).toBeGreaterThanOrEqual(Math.max(windowStart, s.now));
        expect(next.start).toBeLessThanOrEqual(latestStart);
        expect(arbitrate({ ...next, ...s.policy }, { now: s.now, rules: s.rules, claims: s.claims }).outcome).toBe('accept');
      }),
      RUNS,
    );
  });

  it('a window-hold stretch is free working time inside the window, long enough, with an acceptable slot', () => {
    fc.assert(
      fc.property(searchArb, ({ s, windowStart, windowHours }) => {
        const window = { start: windowStart, end: windowStart + windowHours * H };
        const stretch = findHoldStretch({ rules: s.rules, claims: s.claims, now: s.now, window, durationMinutes: s.durationMin, request: s.policy });
        if (!stretch) return;
        expect(stretch.start).toBeGreaterThanOrEqual(Math.max(window.start, s.now));
        expect(stretch.end).toBeLessThanOrEqual(window.end);
        expect(stretch.end - stretch.start).toBeGreaterThanOrEqual(s.durationMin * MIN);
        expect(overlapping(s.claims, stretch.start, stretch.end)).toEqual([]);
        expect(hardBlockIntervals(s.rules, stretch.start, stretch.end)).toEqual([]);
        if (s.rules.workingHours) {
          const w = workingIntervals(s.rules, stretch.start - 2 * DAY, stretch.end + 2 * DAY);
          expect(w.some((i) => i.start <= stretch.start && stretch.end <= i.end)).toBe(true);
        }
      }),
      RUNS,
    );
  });
});
