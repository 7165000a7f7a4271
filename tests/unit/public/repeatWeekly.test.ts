import { describe, expect, it } from 'vitest';
import { isDomainError } from '@/server/domain/errors';
import { contactVerificationMessage, proposalOutcomeMessage } from '@/server/domain/email';
import { checkRepeatWeeks, weeklyRule, weeklySlots } from '@/server/domain/publicScheduling/repeatWeekly';

/** docs/public-scheduling.md "Repeating weekly": the pure pieces (the rule, the weeks, the check of a request, the mails' list). */
const berlinClock = (d: Date) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(d);

function refusal(fn: () => unknown): { code: string; field?: string } | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return { code: err.code, field: err.fields?.[0]?.field };
  }
}

describe('repeat weekly', () => {
  it('is the series FREQ=WEEKLY;COUNT=N', () => {
    expect(weeklyRule(6)).toBe('FREQ=WEEKLY;COUNT=6');
  });

  it('keeps the local time in the host zone every week, across the spring clock change (the UTC time moves)', () => {
    // Wednesday 2027-03-17 10:00 Berlin (CET, UTC+1); Berlin moves to CEST on 2027-03-28.
    const weeks = weeklySlots({ start: new Date('2027-03-17T09:00:00Z'), end: new Date('2027-03-17T09:30:00Z') }, 4, 'Europe/Berlin');
    expect(weeks.map((w) => w.start.toISOString())).toEqual(['2027-03-17T09:00:00.000Z', '2027-03-24T09:00:00.000Z', '2027-03-31T08:00:00.000Z', '2027-04-07T08:00:00.000Z']);
    expect(weeks.map((w) => berlinClock(w.start))).toEqual(['10:00', '10:00', '10:00', '10:00']);
    expect(weeks.every((w) => w.end.getTime() - w.start.getTime() === 30 * 60_000)).toBe(true);
  });

  it('takes 2 up to the type\'s most weeks, only from a type that offers it with one host; none asked is one meeting', () => {
    const type = { repeatWeeklyMaxWeeks: 6, hostMode: 'single' };
    expect(checkRepeatWeeks(type, undefined)).toBeNull();
    expect(checkRepeatWeeks(type, 2)).toBe(2);
    expect(checkRepeatWeeks(type, 6)).toBe(6);
    for (const weeks of [1, 7, 2.5]) expect(refusal(() => checkRepeatWeeks(type, weeks))).toEqual({ code: 'invalid_request', field: 'repeat_weeks' });
    expect(refusal(() => checkRepeatWeeks({ repeatWeeklyMaxWeeks: null, hostMode: 'single' }, 2))).toEqual({ code: 'invalid_request', field: 'repeat_weeks' });
    expect(refusal(() => checkRepeatWeeks({ repeatWeeklyMaxWeeks: 6, hostMode: 'collective' }, 2))).toEqual({ code: 'invalid_request', field: 'repeat_weeks' });
  });

  it('the verification and acceptance mails list every week in the reader\'s zone and language; one meeting lists none', () => {
    const weeks = weeklySlots({ start: new Date('2026-12-02T09:00:00Z'), end: new Date('2026-12-02T09:30:00Z') }, 3, 'Europe/Berlin');
    const m = { title: 'Coaching', ownerName: 'Wendy', start: weeks[0].start, end: weeks[0].end, timeZone: 'America/New_York', weeks };
    const verify = contactVerificationMessage('r@example.com', m, { verificationUrl: 'https://x/v', statusUrl: 'https://x/s' }).text;
    expect(verify).toContain('Every week at this time, 3 meetings in all:');
    expect(verify.match(/^- .*\(America\/New_York\)$/gm)).toHaveLength(3);
    expect(verify).toContain('December 16, 2026');
    const booked = proposalOutcomeMessage('r@example.com', m, { status: 'booked' }, 'de').text;
    expect(booked).toContain('Jede Woche zu dieser Zeit, insgesamt 3 Termine:');
    expect(booked.match(/^- /gm)).toHaveLength(3);
    expect(proposalOutcomeMessage('r@example.com', { ...m, weeks: undefined }, { status: 'booked' }).text).not.toContain('Every week');
  });
});
