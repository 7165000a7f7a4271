import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { localIso, localSpan } from '@/server/domain/scheduling';

/** The reference: Temporal's own formatting of the instant in the zone (what localIso replaced for speed). */
const temporalIso = (ms: number, zone: string) =>
  Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).toString({ timeZoneName: 'never', offset: 'auto' });

// Zones with DST both ways, half- and quarter-hour offsets, a 30-minute DST shift (Lord Howe), a skipped
// date (Apia 2011), a sub-minute historic offset (Monrovia until 1972) and UTC itself.
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'America/Sao_Paulo', 'Australia/Sydney', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Asia/Kolkata', 'Pacific/Chatham', 'Pacific/Apia', 'Africa/Monrovia', 'America/St_Johns', 'Europe/London', 'Asia/Tokyo'];
// Property runs compare with Temporal (slow): leave room for a busy machine.
vi.setConfig({ testTimeout: 60_000 });

const MIN = Date.UTC(1970, 0, 1);
const MAX = Date.UTC(2100, 0, 1);

describe('localIso', () => {
  it('formats like Temporal for any instant of the accepted range in any zone', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN, max: MAX - 1 }), fc.constantFrom(...ZONES), (ms, zone) => {
        expect(localIso(ms, zone)).toBe(temporalIso(ms, zone));
      }),
      { numRuns: 1500 },
    );
  });

  it('formats like Temporal on both sides of every transition of 2026 and 1971', () => {
    for (const zone of ZONES) {
      for (const year of [1971, 2026]) {
        let zdt = Temporal.Instant.fromEpochMilliseconds(Date.UTC(year, 0, 1)).toZonedDateTimeISO(zone);
        for (let i = 0; i < 6; i++) {
          const next = zdt.getTimeZoneTransition('next');
          if (!next || next.year > year) break;
          const t = next.epochMilliseconds;
          for (const ms of [t - 60_000, t - 1, t, t + 1, t + 30 * 60_000]) expect(localIso(ms, zone)).toBe(temporalIso(ms, zone));
          zdt = next;
        }
      }
    }
  });

  it('keeps seconds always and fractions only when present', () => {
    const t = Date.UTC(2027, 0, 12, 13, 0, 0);
    expect(localIso(t, 'Europe/Berlin')).toBe('2027-01-12T14:00:00+01:00');
    expect(localIso(t + 500, 'Europe/Berlin')).toBe('2027-01-12T14:00:00.5+01:00');
    expect(localIso(t + 125, 'America/New_York')).toBe('2027-01-12T08:00:00.125-05:00');
    expect(localIso(t, 'UTC')).toBe('2027-01-12T13:00:00+00:00');
    expect(localSpan(t, t + 3_600_000, 'Asia/Kathmandu')).toEqual({
      start: '2027-01-12T13:00:00.000Z',
      end: '2027-01-12T14:00:00.000Z',
      start_local: '2027-01-12T18:45:00+05:45',
      end_local: '2027-01-12T19:45:00+05:45',
    });
  });
});
