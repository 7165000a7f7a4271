import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { meetingType, publicOwner } from '../public/fixtures';
import { call, nextWeekday, setupOwner } from './fixtures';

/**
 * docs/reliability.md "Limits on work per request": what one request may ask for is bounded, and
 * anything outside the bounds is a 400 naming the field, never a long request or a 500.
 */
let admin: TestCustomer;
let owner: string;
const TZ = 'UTC';
const mon = nextWeekday('mon', TZ);

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ });
});

const fieldsOf = (err: { details?: { fields?: { path: string }[] } }) => (err.details?.fields ?? []).map((f) => f.path);

describe('evaluate validates like the booking it simulates', () => {
  const evaluate = (start: string, end: string) => call('POST', '/v1/arbitration/evaluate', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start, end } });
  const book = (start: string, end: string) => call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start, end } });

  it('refuses a span the booking refuses (over 480 or under 5 minutes, end not after start) with the same code and field', async () => {
    const start = mon.at('09:00');
    const cases = [
      new Date(Date.parse(start) + 481 * 60_000).toISOString(), // 481 minutes
      '2099-12-31T00:00:00Z', // decades
      new Date(Date.parse(start) + 4 * 60_000).toISOString(), // 4 minutes
      start, // empty
      mon.at('08:00'), // reversed
    ];
    for (const end of cases) {
      const booking = expectEnvelope(await book(start, end), 400, 'invalid_request');
      const evaluated = expectEnvelope(await evaluate(start, end), 400, 'invalid_request');
      expect(fieldsOf(evaluated), end).toEqual(fieldsOf(booking));
      expect(evaluated.message).toBe(booking.message);
    }
  });

  it('still evaluates spans of 5 and 480 minutes', async () => {
    const start = mon.at('09:00');
    for (const minutes of [5, 480]) {
      const res = await evaluate(start, new Date(Date.parse(start) + minutes * 60_000).toISOString());
      expect(res.status, res.text).toBe(200);
      expect(res.body.outcome).toBe('accept');
    }
  });
});

describe('instants outside the supported range (1970-01-01 to 2100-01-01) are a 400, never a 500', () => {
  const cases: [string, string][] = [
    ['9999-12-31T23:00:00Z', '9999-12-31T23:30:00Z'],
    ['2100-01-01T00:00:01Z', '2100-01-01T00:30:00Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:30:00Z'],
  ];

  it('POST /v1/bookings, /v1/holds, /v1/availability/search and /v1/arbitration/evaluate', async () => {
    for (const [start, end] of cases) {
      const base = { owner_email: owner, meeting_class: 'internal' };
      const requests = [
        ['/v1/bookings', { ...base, start, end }, 'body.start'],
        ['/v1/holds', { ...base, hold_scope: 'candidate', candidate: { start, end } }, 'body.candidate.start'],
        ['/v1/holds', { ...base, hold_scope: 'window', duration_minutes: 30, window: { start, end } }, 'body.window.start'],
        ['/v1/availability/search', { ...base, duration_minutes: 30, window: { start, end } }, 'body.window.start'],
        ['/v1/arbitration/evaluate', { ...base, start, end }, 'body.start'],
      ] as const;
      for (const [path, body, field] of requests) {
        const err = expectEnvelope(await call('POST', path, { key: admin.key, body }), 400, 'invalid_request');
        expect(fieldsOf(err), `${path} ${start}`).toContain(field);
      }
    }
  });

  it('the last supported instant still works', async () => {
    const res = await call('POST', '/v1/arbitration/evaluate', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', start: '2099-12-31T23:00:00Z', end: '2100-01-01T00:00:00Z' },
    });
    expect(res.status, res.text).toBe(200);
  });

  it('GET /public/schedules/{id}/meeting-types/{slug}/suggested-times', async () => {
    const s = await publicOwner(admin);
    const slug = await meetingType(s);
    for (const [from, to] of cases) {
      const res = await call('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
      expect(fieldsOf(expectEnvelope(res, 400, 'invalid_request'))).toContain('query.from');
    }
    // The default `to` (from + 14 days) may pass the range: it is computed, not asked for, and answers.
    const late = await call('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?from=${encodeURIComponent('2099-12-31T00:00:00Z')}`);
    expect(late.status, late.text).toBe(200);
  });
});

describe('windows', () => {
  it('a search or window hold spans at most 31 days', async () => {
    const start = mon.at('00:00');
    const window = (days: number) => ({ start, end: new Date(Date.parse(start) + days * 86_400_000).toISOString() });
    const base = { owner_email: owner, meeting_class: 'internal', duration_minutes: 30 };
    const search = (days: number) => call('POST', '/v1/availability/search', { key: admin.key, body: { ...base, window: window(days) } });
    const hold = (days: number) => call('POST', '/v1/holds', { key: admin.key, body: { ...base, hold_scope: 'window', window: window(days) } });
    for (const res of [await search(31.01), await hold(31.01)]) expect(fieldsOf(expectEnvelope(res, 400, 'invalid_request'))).toEqual(['body.window']);
    expect((await search(31)).status).toBe(200);
  });
});
