import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, closeTimeZones, supportedTimeZones } from '@/server/domain/scheduling';

/** docs/api.md "Time zones": the names GET /v1/time-zones lists, and INVALID_TIME_ZONE's close matches. */
describe('time zone names', () => {
  it('lists the runtime zones plus UTC, sorted, each accepted in its own spelling', () => {
    const zones = supportedTimeZones();
    expect(zones.length).toBeGreaterThan(300);
    expect(zones).toEqual(expect.arrayContaining(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo']));
    expect([...zones].sort()).toEqual(zones);
    expect(new Set(zones).size).toBe(zones.length);
    expect(zones.filter((z) => canonicalTimeZone(z) !== z)).toEqual([]);
  });

  it('names close matches: a typo, a city alone, spaces for underscores; nothing for what is nowhere near', () => {
    expect(closeTimeZones('Europe/Berln')).toEqual(['Europe/Berlin']);
    expect(closeTimeZones('europe/londn')).toEqual(['Europe/London']);
    expect(closeTimeZones('berlin')).toEqual(['Europe/Berlin']);
    expect(closeTimeZones('New York')).toEqual(['America/New_York']);
    expect(closeTimeZones('Pacific/Aukland')).toEqual(['Pacific/Auckland']);
    expect(closeTimeZones('Mars/Base')).toEqual([]);
    expect(closeTimeZones('+01:00')).toEqual([]);
    expect(closeTimeZones('')).toEqual([]);
    expect(closeTimeZones('Europe/Berln'.repeat(40)).length).toBeLessThanOrEqual(3);
  });
});
