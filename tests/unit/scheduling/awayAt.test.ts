import { describe, expect, it } from 'vitest';
import { awayAt, type OutOfOffice } from '@/server/domain/scheduling';
import { at, iso, rules } from './helpers';

/** Whether an owner is away now, and until when (docs/public-scheduling.md "Away"): the owner's local dates decide. */
const away = (outOfOffice: OutOfOffice[]) => rules({ outOfOffice }); // Europe/Berlin

describe('awayAt', () => {
  const r = away([
    { start: '2026-03-27', end: '2026-03-28', note: 'Lisbon' },
    { start: '2026-03-29', end: '2026-03-30' }, // follows without a gap: one absence, across spring forward
    { start: '2026-04-02', end: '2026-04-02' },
  ]);

  it('is away on every local date of the range, first and last included, until the end of an unbroken absence', () => {
    for (const now of ['2026-03-27T00:00+01:00', '2026-03-28T12:00+01:00', '2026-03-30T23:59+02:00']) {
      expect(awayAt(r, at(now))?.end, now).toBe('2026-03-30');
    }
    // the range today falls in, and its note (private to the owner: the pages never show it)
    expect(awayAt(r, at('2026-03-27T10:00+01:00'))).toMatchObject({ start: '2026-03-27', note: 'Lisbon' });
    expect(iso(awayAt(r, at('2026-03-29T09:00+02:00'))!.back)).toBe('2026-03-30T22:00Z'); // Tuesday 00:00 Berlin summer time
  });

  it('is in on the dates around and between the ranges, judged in the owner\'s zone, not UTC', () => {
    expect(awayAt(r, at('2026-03-26T23:59+01:00'))).toBeUndefined(); // 22:59 UTC on the 26th
    expect(awayAt(r, at('2026-03-26T23:30Z'))).toMatchObject({ end: '2026-03-30' }); // already the 27th in Berlin
    expect(awayAt(r, at('2026-03-31T10:00+02:00'))).toBeUndefined();
    expect(awayAt(r, at('2026-04-02T10:00+02:00'))).toMatchObject({ start: '2026-04-02', end: '2026-04-02' });
    expect(awayAt(away([]), at('2026-03-28T12:00+01:00'))).toBeUndefined();
  });
});
