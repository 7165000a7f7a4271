import { describe, expect, it } from 'vitest';
import { arbitrate, outOfOfficeAt, searchSlots, validateOwnerRules, type OutOfOffice } from '@/server/domain/scheduling';
import { at, iso, POLICY, rules, show } from './helpers';

/** Out of office (docs/arbitration.md "Out of office"): inclusive local dates with no working time. */
const NOW = at('2026-01-01T00:00Z');
const away = (outOfOffice: OutOfOffice[], over = {}) => rules({ outOfOffice, ...over });
const failed = (d: ReturnType<typeof arbitrate>) => (d.outcome === 'reject' || d.outcome === 'counter_propose' ? d.failedReason : d.outcome);
const decide = (start: string, end: string, r: ReturnType<typeof rules>) => arbitrate({ start: at(start), end: at(end), ...POLICY }, { now: NOW, rules: r, claims: [] });

describe('out of office', () => {
  const r = away([{ start: '2026-03-27', end: '2026-03-30', note: 'Lisbon' }]); // Fri..Mon across Berlin's spring forward

  it('refuses every claim on the range\'s days, first and last included, with OUT_OF_OFFICE; the days around stay', () => {
    expect(failed(decide('2026-03-27T09:00+01:00', '2026-03-27T10:00+01:00', r))).toBe('OUT_OF_OFFICE');
    expect(failed(decide('2026-03-30T16:00+02:00', '2026-03-30T17:00+02:00', r))).toBe('OUT_OF_OFFICE');
    // A weekend day inside: OUT_OF_OFFICE comes before OFF_DAY.
    expect(failed(decide('2026-03-28T10:00+01:00', '2026-03-28T11:00+01:00', r))).toBe('OUT_OF_OFFICE');
    expect(decide('2026-03-26T16:00+01:00', '2026-03-26T17:00+01:00', r).outcome).toBe('accept');
    expect(decide('2026-03-31T09:00+02:00', '2026-03-31T10:00+02:00', r).outcome).toBe('accept');
  });

  it('applies without working hours too (which otherwise allow any time)', () => {
    const open = away([{ start: '2026-03-27', end: '2026-03-27' }], { workingHours: null });
    expect(failed(decide('2026-03-27T03:00+01:00', '2026-03-27T04:00+01:00', open))).toBe('OUT_OF_OFFICE');
    expect(decide('2026-03-26T23:00+01:00', '2026-03-27T00:00+01:00', open).outcome).toBe('accept');
    // A claim running into the range from the day before is refused.
    expect(failed(decide('2026-03-26T23:30+01:00', '2026-03-27T00:30+01:00', open))).toBe('OUT_OF_OFFICE');
  });

  it('a search offers nothing inside and says OUT_OF_OFFICE; outOfOfficeAt gives the first instant after the range', () => {
    const search = (from: string, to: string) => searchSlots({ rules: r, claims: [], now: NOW, durationMinutes: 60, request: POLICY, maxResults: 100, stepMinutes: 60, window: { start: at(from), end: at(to) } });
    const none = search('2026-03-27T00:00+01:00', '2026-03-31T00:00+02:00');
    expect(none.slots).toEqual([]);
    expect(none.noSlots?.reason_code).toBe('OUT_OF_OFFICE');
    const around = search('2026-03-26T15:00+01:00', '2026-03-31T11:00+02:00');
    expect(show(around.slots)).toEqual(['2026-03-26T14:00Z/2026-03-26T15:00Z', '2026-03-26T15:00Z/2026-03-26T16:00Z', '2026-03-31T07:00Z/2026-03-31T08:00Z', '2026-03-31T08:00Z/2026-03-31T09:00Z']);
    const hit = outOfOfficeAt(r, at('2026-03-28T10:00+01:00'), at('2026-03-28T11:00+01:00'));
    expect(hit?.range.note).toBe('Lisbon');
    expect(iso(hit!.after)).toBe('2026-03-30T22:00Z'); // Tuesday 00:00 Berlin summer time
    expect(outOfOfficeAt(r, at('2026-03-31T10:00+02:00'), at('2026-03-31T11:00+02:00'))).toBeUndefined();
  });

  it('validation names bad dates and reversed ranges', () => {
    expect(validateOwnerRules(away([{ start: '2026-02-30', end: '2026-03-01' }, { start: '2026-03-05', end: '2026-03-04' }, { start: '2026-03-05', end: '2026-03-05' }]))).toEqual([
      { path: 'out_of_office[0].start', message: 'start must be a calendar date YYYY-MM-DD' },
      { path: 'out_of_office[1]', message: 'end must be on or after start (both days are included)' },
    ]);
  });
});
