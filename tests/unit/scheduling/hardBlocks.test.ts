import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { blocksWithCheckpoints, hardBlockIntervals, parseRRule, RRuleError, storedHardBlocks, validateOwnerRules, type HardBlock } from '@/server/domain/scheduling';
import { daysFromCivil } from '@/server/domain/scheduling/civil';
import { compatibleInstant } from '@/server/domain/scheduling/localTime';
import { withCountCheckpoint } from '@/server/domain/scheduling/rrule';
import { at, rules, show } from './helpers';

// Property runs take a few seconds; leave room for a busy machine.
vi.setConfig({ testTimeout: 60_000 });

const blocks = (timeZone: string, hardBlocks: HardBlock[], from: string, to: string) =>
  show(hardBlockIntervals(rules({ timeZone, hardBlocks }), at(from), at(to)));
const rr = (rrule: string, dtstart: string, duration_minutes = 60): HardBlock => ({ rrule, dtstart, duration_minutes });

describe('weekly hard blocks', () => {
  it('Mon/Wed 12:00-13:00 keeps local time across the EU spring transition', () => {
    const b: HardBlock = { days: ['mon', 'wed'], start: '12:00', end: '13:00', label: 'lunch' };
    expect(blocks('Europe/Berlin', [b], '2026-03-23T00:00Z', '2026-04-02T00:00Z')).toEqual([
      '2026-03-23T11:00Z/2026-03-23T12:00Z',
      '2026-03-25T11:00Z/2026-03-25T12:00Z',
      '2026-03-30T10:00Z/2026-03-30T11:00Z',
      '2026-04-01T10:00Z/2026-04-01T11:00Z',
    ]);
  });

  it('America/New_York across the fall-back transition', () => {
    const b: HardBlock = { days: ['fri', 'mon'], start: '09:00', end: '10:00' };
    expect(blocks('America/New_York', [b], '2026-10-30T00:00Z', '2026-11-03T00:00Z')).toEqual([
      '2026-10-30T13:00Z/2026-10-30T14:00Z',
      '2026-11-02T14:00Z/2026-11-02T15:00Z',
    ]);
  });

  it('an overnight block (end <= start) runs into the next day, also when queried from that next day', () => {
    const b: HardBlock = { days: ['fri'], start: '22:00', end: '06:00' };
    expect(blocks('Europe/Berlin', [b], '2026-06-05T00:00Z', '2026-06-07T00:00Z')).toEqual([
      '2026-06-05T20:00Z/2026-06-06T04:00Z',
    ]);
    expect(blocks('Europe/Berlin', [b], '2026-06-06T01:00Z', '2026-06-06T12:00Z')).toEqual([
      '2026-06-06T01:00Z/2026-06-06T04:00Z',
    ]);
  });

  it('adjacent and overlapping blocks are merged and clipped', () => {
    const hb: HardBlock[] = [
      { days: ['tue'], start: '10:00', end: '11:00' },
      { days: ['tue'], start: '11:00', end: '12:00' },
      rr('FREQ=DAILY', '2026-06-01T11:30', 60),
    ];
    expect(blocks('Europe/Berlin', hb, '2026-06-02T08:30Z', '2026-06-02T12:00Z')).toEqual([
      '2026-06-02T08:30Z/2026-06-02T10:30Z',
    ]);
  });
});

describe('RRULE hard blocks', () => {
  it.each([
    [
      'DAILY COUNT across EU spring forward',
      'Europe/Berlin', rr('FREQ=DAILY;COUNT=3', '2026-03-28T09:00'), '2026-03-01T00:00Z', '2026-05-01T00:00Z',
      ['2026-03-28T08:00Z/2026-03-28T09:00Z', '2026-03-29T07:00Z/2026-03-29T08:00Z', '2026-03-30T07:00Z/2026-03-30T08:00Z'],
    ],
    [
      'DAILY INTERVAL=2 UNTIL (date, inclusive) across US spring forward',
      'America/New_York', rr('FREQ=DAILY;INTERVAL=2;UNTIL=20260309', '2026-03-01T10:00', 30), '2026-02-01T00:00Z', '2026-04-01T00:00Z',
      ['2026-03-01T15:00Z/2026-03-01T15:30Z', '2026-03-03T15:00Z/2026-03-03T15:30Z', '2026-03-05T15:00Z/2026-03-05T15:30Z',
        '2026-03-07T15:00Z/2026-03-07T15:30Z', '2026-03-09T14:00Z/2026-03-09T14:30Z'],
    ],
    [
      'DAILY UNTIL as UTC date-time is inclusive',
      'Europe/Berlin', rr('FREQ=DAILY;UNTIL=20260329T070000Z', '2026-03-27T09:00'), '2026-03-01T00:00Z', '2026-05-01T00:00Z',
      ['2026-03-27T08:00Z/2026-03-27T09:00Z', '2026-03-28T08:00Z/2026-03-28T09:00Z', '2026-03-29T07:00Z/2026-03-29T08:00Z'],
    ],
    [
      'WEEKLY INTERVAL=2 BYDAY=TU,TH COUNT=5 across EU fall back',
      'Europe/Berlin', rr('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;COUNT=5', '2026-10-13T08:30', 45), '2026-10-01T00:00Z', '2026-12-31T00:00Z',
      ['2026-10-13T06:30Z/2026-10-13T07:15Z', '2026-10-15T06:30Z/2026-10-15T07:15Z', '2026-10-27T07:30Z/2026-10-27T08:15Z',
        '2026-10-29T07:30Z/2026-10-29T08:15Z', '2026-11-10T07:30Z/2026-11-10T08:15Z'],
    ],
    [
      'WEEKLY BYDAY=MO across US fall back',
      'America/New_York', rr('RRULE:FREQ=WEEKLY;BYDAY=MO', '2026-10-26T09:00'), '2026-10-20T00:00Z', '2026-11-05T00:00Z',
      ['2026-10-26T13:00Z/2026-10-26T14:00Z', '2026-11-02T14:00Z/2026-11-02T15:00Z'],
    ],
    [
      'DTSTART not matching BYDAY is still the first occurrence and counts',
      'Europe/Berlin', rr('FREQ=WEEKLY;BYDAY=MO;COUNT=3', '2026-06-03T10:00'), '2026-05-01T00:00Z', '2026-08-01T00:00Z',
      ['2026-06-03T08:00Z/2026-06-03T09:00Z', '2026-06-08T08:00Z/2026-06-08T09:00Z', '2026-06-15T08:00Z/2026-06-15T09:00Z'],
    ],
    [
      'MONTHLY BYDAY=-1FR COUNT=3 (last Friday)',
      'Europe/Berlin', rr('FREQ=MONTHLY;BYDAY=-1FR;COUNT=3', '2026-01-30T16:00'), '2026-01-01T00:00Z', '2026-12-31T00:00Z',
      ['2026-01-30T15:00Z/2026-01-30T16:00Z', '2026-02-27T15:00Z/2026-02-27T16:00Z', '2026-03-27T15:00Z/2026-03-27T16:00Z'],
    ],
    [
      'MONTHLY on the 31st skips short months',
      'Europe/Berlin', rr('FREQ=MONTHLY', '2026-01-31T12:00'), '2026-01-01T00:00Z', '2026-06-01T00:00Z',
      ['2026-01-31T11:00Z/2026-01-31T12:00Z', '2026-03-31T10:00Z/2026-03-31T11:00Z', '2026-05-31T10:00Z/2026-05-31T11:00Z'],
    ],
    [
      'MONTHLY INTERVAL=2 BYMONTHDAY=1,-1',
      'UTC', rr('FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=1,-1', '2026-01-01T00:00', 15), '2026-01-01T00:00Z', '2026-06-01T00:00Z',
      ['2026-01-01T00:00Z/2026-01-01T00:15Z', '2026-01-31T00:00Z/2026-01-31T00:15Z', '2026-03-01T00:00Z/2026-03-01T00:15Z',
        '2026-03-31T00:00Z/2026-03-31T00:15Z', '2026-05-01T00:00Z/2026-05-01T00:15Z', '2026-05-31T00:00Z/2026-05-31T00:15Z'],
    ],
    [
      'an occurrence at a non-existent time is read with the offset before the gap (RFC 5545)',
      'Europe/Berlin', rr('FREQ=DAILY;COUNT=3', '2026-03-28T02:30', 30), '2026-03-01T00:00Z', '2026-04-30T00:00Z',
      ['2026-03-28T01:30Z/2026-03-28T02:00Z', '2026-03-29T01:30Z/2026-03-29T02:00Z', '2026-03-30T00:30Z/2026-03-30T01:00Z'],
    ],
  ])('%s', (_name, tz, block, from, to, expected) => {
    expect(blocks(tz, [block], from, to)).toEqual(expected);
  });

  it('an occurrence that started before `from` is included (clipped)', () => {
    expect(blocks('UTC', [rr('FREQ=DAILY', '2026-01-01T23:00', 120)], '2026-02-01T00:00Z', '2026-02-01T12:00Z')).toEqual([
      '2026-02-01T00:00Z/2026-02-01T01:00Z',
    ]);
  });

  it('jumps ahead instead of iterating from a distant dtstart, and COUNT is still exact', () => {
    const d0 = Temporal.PlainDate.from('2000-01-01');
    const daysTo = d0.until(Temporal.PlainDate.from('2026-06-01')).days; // index of 2026-06-01
    const t0 = performance.now();
    // DAILY: the last occurrence is 2026-06-01
    expect(blocks('UTC', [rr(`FREQ=DAILY;COUNT=${daysTo + 1}`, '2000-01-01T09:00')], '2026-05-31T00:00Z', '2026-06-03T00:00Z')).toEqual([
      '2026-05-31T09:00Z/2026-05-31T10:00Z',
      '2026-06-01T09:00Z/2026-06-01T10:00Z',
    ]);
    // WEEKLY BYDAY=MO,TH from Monday 2000-01-03: occurrence n (0-based) is Monday of week n/2 or Thursday
    const weeks = Temporal.PlainDate.from('2000-01-03').until(Temporal.PlainDate.from('2026-06-01')).days / 7; // 2026-06-01 is a Monday
    expect(blocks('UTC', [rr(`FREQ=WEEKLY;BYDAY=MO,TH;COUNT=${2 * weeks + 1}`, '2000-01-03T09:00')], '2026-05-25T00:00Z', '2026-06-10T00:00Z')).toEqual([
      '2026-05-25T09:00Z/2026-05-25T10:00Z',
      '2026-05-28T09:00Z/2026-05-28T10:00Z',
      '2026-06-01T09:00Z/2026-06-01T10:00Z',
    ]);
    // No COUNT, dtstart a century back
    expect(blocks('UTC', [rr('FREQ=DAILY;INTERVAL=3', '1926-01-01T09:00')], '2026-06-01T00:00Z', '2026-06-04T00:00Z')).toHaveLength(1);
    expect(performance.now() - t0).toBeLessThan(200);
  });
});

describe('RRULE expansion matches a naive day-by-day oracle (property)', () => {
  const CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

  /** Independent, slow reference: walks every date from DTSTART with Temporal.PlainDate. */
  function oracle(rule: string, dtstart: string, from: Temporal.PlainDate, to: Temporal.PlainDate): string[] {
    const p = Object.fromEntries(rule.split(';').map((kv) => kv.split('=')));
    const I = Number(p.INTERVAL ?? 1);
    const count = p.COUNT ? Number(p.COUNT) : Infinity;
    const start = Temporal.PlainDateTime.from(dtstart);
    const d0 = start.toPlainDate();
    const byDay: { wd: number; ord: number }[] | null = p.BYDAY
      ? p.BYDAY.split(',').map((s: string) => ({ wd: CODES.indexOf(s.slice(-2)) + 1, ord: Number(s.slice(0, -2) || 0) }))
      : null;
    const byMonthDay: number[] | null = p.BYMONTHDAY ? p.BYMONTHDAY.split(',').map(Number) : null;
    const wkst = CODES.indexOf(p.WKST ?? 'MO') + 1;
    const matches = (d: Temporal.PlainDate): boolean => {
      if (p.FREQ === 'DAILY') return d0.until(d).days % I === 0 && (!byDay || byDay.some((b) => b.wd === d.dayOfWeek));
      if (p.FREQ === 'WEEKLY') {
        const ws = (x: Temporal.PlainDate) => x.subtract({ days: (x.dayOfWeek - wkst + 7) % 7 });
        const weeksApart = ws(d0).until(ws(d)).days / 7;
        return weeksApart % I === 0 && (byDay ? byDay.some((b) => b.wd === d.dayOfWeek) : d.dayOfWeek === d0.dayOfWeek);
      }
      const months = (d.year - d0.year) * 12 + d.month - d0.month;
      if (months % I !== 0) return false;
      const okDom = !byMonthDay || byMonthDay.some((v) => (v > 0 ? v : d.daysInMonth + v + 1) === d.day);
      const okDay =
        !byDay ||
        byDay.some((b) => {
          if (b.wd !== d.dayOfWeek) return false;
          if (b.ord === 0) return true;
          return b.ord > 0 ? Math.ceil(d.day / 7) === b.ord : Math.ceil((d.daysInMonth - d.day + 1) / 7) === -b.ord;
        });
      if (!byMonthDay && !byDay) return d.day === d0.day;
      return okDom && okDay;
    };
    const out: string[] = [];
    let n = 0;
    for (let d = d0; Temporal.PlainDate.compare(d, to) <= 0 && n < count; d = d.add({ days: 1 })) {
      if (!(d.equals(d0) || matches(d))) continue;
      n++;
      if (Temporal.PlainDate.compare(d, from) >= 0) out.push(d.toString());
    }
    return out;
  }

  const ruleArb = fc.record({
    freq: fc.constantFrom('DAILY', 'WEEKLY', 'MONTHLY'),
    interval: fc.integer({ min: 1, max: 4 }),
    count: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
    days: fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
    ord: fc.constantFrom(0, 1, 2, -1),
    monthDays: fc.option(fc.uniqueArray(fc.constantFrom(1, 2, 15, 28, 29, 30, 31, -1, -2), { minLength: 1, maxLength: 2 }), { nil: undefined }),
    wkst: fc.constantFrom('MO', 'SU', 'WE'),
    startOffset: fc.integer({ min: 0, max: 400 }),
    windowOffset: fc.integer({ min: 0, max: 300 }),
    windowDays: fc.integer({ min: 1, max: 40 }),
  });

  it('for random DAILY/WEEKLY/MONTHLY rules', () => {
    fc.assert(
      fc.property(ruleArb, (r) => {
        const parts = [`FREQ=${r.freq}`, `INTERVAL=${r.interval}`, `WKST=${r.wkst}`];
        if (r.count) parts.push(`COUNT=${r.count}`);
        if (r.days) parts.push(`BYDAY=${r.days.map((d) => (r.freq === 'MONTHLY' && r.ord ? r.ord : '') + CODES[d]).join(',')}`);
        if (r.monthDays && r.freq === 'MONTHLY') parts.push(`BYMONTHDAY=${r.monthDays.join(',')}`);
        const rule = parts.join(';');
        const d0 = Temporal.PlainDate.from('2025-01-01').add({ days: r.startOffset });
        const dtstart = `${d0.toString()}T12:00`;
        const from = d0.add({ days: r.windowOffset });
        const to = from.add({ days: r.windowDays });
        const got = hardBlockIntervals(
          rules({ timeZone: 'UTC', hardBlocks: [{ rrule: rule, dtstart, duration_minutes: 60 }] }),
          Date.parse(`${from}T00:00Z`),
          Date.parse(`${to}T23:59Z`),
        ).map((i) => new Date(i.start).toISOString().slice(0, 10));
        expect(got).toEqual(oracle(rule, dtstart, from, to));
      }),
      { numRuns: 300 },
    );
  });

  it('the same with the COUNT checkpoint stored with the block, whether COUNT ends before its horizon or not', () => {
    fc.assert(
      fc.property(ruleArb, fc.integer({ min: 0, max: 500 }), (r, horizonOffset) => {
        const parts = ['FREQ=MONTHLY', `INTERVAL=${r.interval}`, `COUNT=${r.count ?? 30}`];
        if (r.days) parts.push(`BYDAY=${r.days.map((d) => (r.ord ? r.ord : '') + CODES[d]).join(',')}`);
        if (r.monthDays) parts.push(`BYMONTHDAY=${r.monthDays.join(',')}`);
        const rule = parts.join(';');
        const d0 = Temporal.PlainDate.from('2025-01-01').add({ days: r.startOffset });
        const dtstart = `${d0.toString()}T12:00`;
        const horizon = d0.add({ days: horizonOffset });
        const block = withCountCheckpoint<Extract<HardBlock, { rrule: string }>>({ rrule: rule, dtstart, duration_minutes: 60 }, daysFromCivil(horizon.year, horizon.month, horizon.day));
        expect(block.count_checkpoint).toBeDefined();
        const from = d0.add({ days: r.windowOffset * 3 });
        const to = from.add({ days: r.windowDays });
        const got = hardBlockIntervals(rules({ timeZone: 'UTC', hardBlocks: [block] }), Date.parse(`${from}T00:00Z`), Date.parse(`${to}T23:59Z`)).map((i) =>
          new Date(i.start).toISOString().slice(0, 10),
        );
        expect(got).toEqual(oracle(rule, dtstart, from, to));
      }),
      { numRuns: 300 },
    );
  });

  it('a stored MONTHLY COUNT rule expands without walking from DTSTART', () => {
    // 10 occurrences a month from 1900: the walk from DTSTART would pass ~1,500 months to reach 2026.
    const rule = 'FREQ=MONTHLY;COUNT=10000;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYMONTHDAY=1,2,3,4,5,6,7,8,9,10';
    const [stored] = storedHardBlocks([{ rrule: rule, dtstart: '1900-01-01T00:00', duration_minutes: 60 }]);
    // The 10,000th occurrence is on 1983-04-10 (the 1,000th month of 10 days): COUNT is used up there.
    expect(stored).toMatchObject({ count_checkpoint: { day: '1983-04-01', used: 9990 } });
    expect(blocks('UTC', [stored], '1983-04-09T00:00Z', '1983-04-12T00:00Z')).toEqual(['1983-04-09T00:00Z/1983-04-09T01:00Z', '1983-04-10T00:00Z/1983-04-10T01:00Z']);
    expect(blocks('UTC', [stored], '1983-03-31T00:00Z', '1983-04-02T00:00Z')).toEqual(['1983-04-01T00:00Z/1983-04-01T01:00Z']);
    expect(blocks('UTC', [stored], '1983-05-01T00:00Z', '1983-05-02T00:00Z')).toEqual([]);
    expect(blocks('UTC', [stored], '2026-06-01T00:00Z', '2026-06-30T00:00Z')).toEqual([]);
    // A checkpoint is what lets the expansion jump: a wrong one shows (proof it is used, not recomputed).
    const lying = { ...stored, count_checkpoint: { day: '1950-01-01', used: 10000 } } as HardBlock;
    expect(blocks('UTC', [lying], '1960-06-01T00:00Z', '1960-06-03T00:00Z')).toEqual([]);
    expect(blocks('UTC', [lying], '1940-06-01T00:00Z', '1940-06-02T00:00Z')).toEqual(['1940-06-01T00:00Z/1940-06-01T01:00Z']);
  });

  it('a COUNT rule stored before checkpoints existed gets one for its decisions; blocks saved since pass unchanged', () => {
    const attack: HardBlock = { rrule: 'FREQ=MONTHLY;COUNT=999999999;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYMONTHDAY=1,2,3,-1', dtstart: '0001-01-01T00:00', duration_minutes: 30 };
    const weekly: HardBlock = { days: ['mon'], start: '12:00', end: '13:00' };
    const [withCp, same] = blocksWithCheckpoints([attack, weekly]);
    expect(withCp).toEqual({ ...attack, count_checkpoint: { day: '2101-02-01', used: expect.any(Number) } });
    expect(same).toBe(weekly);
    expect(blocks('UTC', [withCp], '2026-06-01T00:00Z', '2026-06-03T00:00Z')).toEqual(blocks('UTC', [attack], '2026-06-01T00:00Z', '2026-06-03T00:00Z'));
    const stored = storedHardBlocks([attack, weekly]);
    expect(blocksWithCheckpoints(stored)).toBe(stored);
  });
});

describe('compatibleInstant (RRULE occurrence instants without Temporal on ordinary days)', () => {
  it("equals Temporal's 'compatible' for any zone, date and wall time, transition days included", () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Beirut', 'Pacific/Chatham', 'UTC', 'America/St_Johns'];
    const transitionDays = ['2026-03-29', '2026-10-25', '2026-03-08', '2026-11-01', '2026-04-05', '2026-10-04', '2026-09-06', '2026-03-28'];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.oneof(fc.constantFrom(...transitionDays), fc.integer({ min: 0, max: 3000 }).map((d) => Temporal.PlainDate.from('2024-01-01').add({ days: d }).toString())),
        fc.integer({ min: 0, max: 86_399 }),
        (zone, iso, second) => {
          const d = Temporal.PlainDate.from(iso);
          const expected = d
            .toPlainDateTime({ hour: Math.floor(second / 3600), minute: Math.floor(second / 60) % 60, second: second % 60 })
            .toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
          expect(compatibleInstant(zone, daysFromCivil(d.year, d.month, d.day), second)).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('RRULE parsing and rule validation', () => {
  it.each([
    'FREQ=YEARLY',
    'FREQ=WEEKLY;BYSETPOS=1',
    'FREQ=DAILY;COUNT=2;UNTIL=20260101',
    'FREQ=WEEKLY;BYDAY=1MO',
    'FREQ=DAILY;BYMONTHDAY=3',
    'FREQ=DAILY;INTERVAL=0',
    'FREQ=MONTHLY;BYDAY=6MO',
    'FREQ=DAILY;UNTIL=2026-01-01',
    'INTERVAL=2',
    'FREQ=DAILY;FREQ=WEEKLY',
  ])('rejects %s', (rule) => {
    expect(() => parseRRule(rule)).toThrow(RRuleError);
  });

  it('parses the supported subset', () => {
    expect(parseRRule('rrule:freq=monthly;interval=2;byday=+1mo,-1fr;wkst=su;count=4')).toMatchObject({
      freq: 'MONTHLY',
      interval: 2,
      count: 4,
      byDay: [{ weekday: 0, ordinal: 1 }, { weekday: 4, ordinal: -1 }],
      wkst: 6,
    });
  });

  it('validateOwnerRules reports each problem with a path', () => {
    const issues = validateOwnerRules(
      rules({
        timeZone: 'Mars/Olympus',
        workingHours: { ...rules().workingHours!, mon: [{ start: '17:00', end: '09:00' }], tue: [{ start: '9:00', end: '25:00' }] },
        hardBlocks: [rr('FREQ=HOURLY', '2026-01-01T10:00'), { rrule: 'FREQ=DAILY', dtstart: '2026-02-30T10:00', duration_minutes: 30 }],
        maxDailyMeetingHours: 30,
      }),
    );
    expect(issues.map((i) => i.path)).toEqual([
      'time_zone',
      'working_hours.mon[0]',
      'working_hours.tue[0]',
      'hard_blocks[0].rrule',
      'hard_blocks[1].dtstart',
      'max_daily_meeting_hours',
    ]);
    expect(validateOwnerRules(rules({ hardBlocks: [rr('FREQ=WEEKLY;BYDAY=MO', '2026-01-05T10:00')] }))).toEqual([]);
  });
});

describe('memoised RRULE expansion', () => {
  it('equals the direct expansion for any rule, zone and window (memo hits and misses alike)', async () => {
    const { expandRRuleRange } = await import('@/server/domain/scheduling/rrule');
    const { expandRRuleBlock } = await import('@/server/domain/scheduling/rruleMemo');
    const ruleArb = fc.constantFrom(
      'FREQ=DAILY',
      'FREQ=WEEKLY;BYDAY=MO,WE,FR',
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU',
      'FREQ=MONTHLY;BYDAY=2TU',
      'FREQ=MONTHLY;BYMONTHDAY=1,15,-1',
      'FREQ=DAILY;COUNT=40',
    );
    fc.assert(
      fc.property(
        ruleArb,
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'),
        fc.integer({ min: 0, max: 600 }), // dtstart day offset from 2026-01-01
        fc.integer({ min: 0, max: 1439 }), // dtstart minute of day
        fc.integer({ min: 5, max: 1500 }), // duration (minutes; may run across days and chunks)
        fc.integer({ min: 0, max: 900 * 24 }), // window start, hours after 2026-01-01
        fc.integer({ min: 1, max: 40 * 24 }), // window length, hours
        (rrule, zone, d, m, duration, fromH, lenH) => {
          const c = new Date(Date.UTC(2026, 0, 1 + d));
          const dtstart = `${c.toISOString().slice(0, 10)}T${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
          const block = { rrule, dtstart, duration_minutes: duration };
          const from = Date.UTC(2026, 0, 1) + fromH * 3_600_000;
          const to = from + lenH * 3_600_000;
          const direct = expandRRuleRange(block, zone, from, to);
          expect(expandRRuleBlock(block, zone, from, to)).toEqual(direct);
          expect(expandRRuleBlock(block, zone, from, to)).toEqual(direct); // the second call reads the memo
        },
      ),
      { numRuns: 400 },
    );
  });
});
