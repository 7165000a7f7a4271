import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { CALLER_TWINS, requireTimeZone, withCallerTimes } from '@/server/domain/callerZone';
import { DomainError } from '@/server/domain/errors';
import { localSpan } from '@/server/domain/scheduling';
import { operations } from '@/server/http/operations';
import { takesCallerZone } from '@/server/http/operation';

vi.setConfig({ testTimeout: 60_000 });

/** The reference: Temporal's own formatting of the instant in the zone. */
const temporalIso = (ms: number, zone: string) => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).toString({ timeZoneName: 'never', offset: 'auto' });
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns'];
const MIN = Date.UTC(1970, 0, 1);
const MAX = Date.UTC(2100, 0, 1);
const instant = (s: string) => Temporal.Instant.from(s).epochMilliseconds;

describe('withCallerTimes (docs/api.md "The caller\'s time zone")', () => {
  it('the time oracle: every caller twin is the same instant as its UTC twin and its owner twin, on the caller clock', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN, max: MAX - 3_600_000 }), fc.integer({ min: 5, max: 480 }), fc.constantFrom(...ZONES), fc.constantFrom(...ZONES), (ms, minutes, owner, caller) => {
        const span = localSpan(ms, ms + minutes * 60_000, owner);
        const answer = { booking: span, alternatives: [span], next_available: { ...span } };
        const out = withCallerTimes(answer, caller);
        for (const v of [out.booking, out.alternatives[0], out.next_available] as Record<string, string>[]) {
          for (const t of CALLER_TWINS) {
            expect(instant(v[t.caller])).toBe(Date.parse(v[t.utc]));
            expect(instant(v[t.caller])).toBe(instant(v[t.owner]));
            expect(v[t.caller]).toBe(temporalIso(Date.parse(v[t.utc]), caller));
            expect(v[t.owner]).toBe(span[t.owner]); // the owner's twin is left alone
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('across a DST change: New York 2027-03-14 (-05:00 then -04:00) beside a Berlin owner (+01:00 all day)', () => {
    const slot = localSpan(Date.parse('2027-03-14T06:30:00Z'), Date.parse('2027-03-14T07:30:00Z'), 'Europe/Berlin');
    expect(withCallerTimes(slot, 'America/New_York')).toEqual({
      start: '2027-03-14T06:30:00.000Z',
      end: '2027-03-14T07:30:00.000Z',
      start_local: '2027-03-14T07:30:00+01:00',
      start_caller: '2027-03-14T01:30:00-05:00',
      end_local: '2027-03-14T08:30:00+01:00',
      end_caller: '2027-03-14T03:30:00-04:00',
    });
  });

  it('adds twins beside an owner twin without a UTC field (a hold\'s own start_local) and leaves the rest as it was', () => {
    const hold = { hold_id: 'h', start_local: '2027-01-12T14:00:00+01:00', end_local: '2027-01-12T15:00:00+01:00', expires_at: '2027-01-12T13:10:00.000Z', warnings: ['X'] };
    const out = withCallerTimes(hold, 'Asia/Tokyo');
    expect(Object.keys(out)).toEqual(['hold_id', 'start_local', 'start_caller', 'end_local', 'end_caller', 'expires_at', 'warnings']);
    expect(out).toMatchObject({ start_caller: '2027-01-12T22:00:00+09:00', end_caller: '2027-01-12T23:00:00+09:00', expires_at: hold.expires_at });
    expect(hold).not.toHaveProperty('start_caller'); // a copy
    expect(withCallerTimes({ created_at: '2027-01-12T13:10:00.000Z', n: 1, none: null }, 'UTC')).toEqual({ created_at: '2027-01-12T13:10:00.000Z', n: 1, none: null });
  });
});

describe('requireTimeZone', () => {
  it('answers the IANA spelling, or INVALID_TIME_ZONE naming close matches', () => {
    expect(requireTimeZone('america/new_york')).toBe('America/New_York');
    const err = (() => {
      try {
        requireTimeZone('Europe/Berln');
      } catch (e) {
        return e as DomainError;
      }
    })();
    expect(err?.code).toBe('INVALID_TIME_ZONE');
    expect(err?.extra?.did_you_mean).toEqual(['Europe/Berlin']);
    expect(() => requireTimeZone('+01:00')).toThrow(DomainError);
  });
});

describe('every operation whose answer carries start_local takes time_zone', () => {
  const carriesLocal = (schema: unknown) => schema instanceof z.ZodType && JSON.stringify(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })).includes('"start_local"');
  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))('%s', (_name, op) => {
    expect(takesCallerZone(op)).toBe(carriesLocal(op.success.schema));
  });
});
