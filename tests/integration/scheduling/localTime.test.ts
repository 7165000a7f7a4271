import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, everyDay, onDate, setupOwner } from './fixtures';

/**
 * Local time in and out (docs/api.md "Time zones"): inputs with any RFC 3339 offset equal their
 * UTC twins; answers add start_local/end_local in the owner's zone. The DST case uses the EU
 * spring-forward of 2027-03-28 (Europe/Berlin +01:00 -> +02:00 at 01:00Z); the oracle is fixed
 * literal strings, not the code under test.
 */
let admin: TestCustomer;
let berlin: string;
beforeAll(async () => {
  admin = await newCustomer();
  berlin = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay('00:00', '24:00') });
});

const search = (body: Record<string, unknown>) =>
  call('POST', '/v1/availability/search', { key: admin.key, body: { owner_email: berlin, meeting_class: 'internal', duration_minutes: 60, slot_step_minutes: 60, max_results: 500, ...body } });

describe('offset inputs', () => {
  it('a search with +01:00 / -05:00 offsets answers exactly what its UTC twin answers', async () => {
    const utc = await search({ window: { start: '2027-01-12T13:00:00Z', end: '2027-01-12T17:00:00Z' } });
    const offset = await search({ window: { start: '2027-01-12T14:00:00+01:00', end: '2027-01-12T12:00:00-05:00' } });
    expect(utc.status, utc.text).toBe(200);
    expect(offset.status, offset.text).toBe(200);
    expect(offset.body).toEqual(utc.body);
    expect(utc.body.slots[0]).toEqual({ start: '2027-01-12T13:00:00.000Z', end: '2027-01-12T14:00:00.000Z', start_local: '2027-01-12T14:00:00+01:00', end_local: '2027-01-12T15:00:00+01:00', preempts: false });
  });

  it('a booking made with an offset is stored at the UTC instant (read back equal to the UTC twin)', async () => {
    const made = await call('POST', '/v1/bookings', {
      key: admin.key,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
      body: { owner_email: berlin, meeting_class: 'internal', start: '2027-01-13T10:00:00+01:00', end: '2027-01-13T10:30:00+01:00' },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ start: '2027-01-13T09:00:00.000Z', end: '2027-01-13T09:30:00.000Z', start_local: '2027-01-13T10:00:00+01:00', end_local: '2027-01-13T10:30:00+01:00' });
    const twin = await call('POST', '/v1/bookings', {
      key: admin.key,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
      body: { owner_email: berlin, meeting_class: 'internal', start: '2027-01-13T09:00:00Z', end: '2027-01-13T09:30:00Z' },
    });
    expectEnvelope(twin, 409, 'ARBITRATION_REJECTED'); // the same instants, now taken
  });

  it('a bad date-time says what is accepted', async () => {
    const res = await search({ window: { start: '2027-01-12 14:00', end: '2027-01-12T17:00:00Z' } });
    expectEnvelope(res, 400, 'invalid_request');
    expect(res.text).toContain('RFC 3339 date-time with Z or a UTC offset');
  });

  it('the 1970..2100 range still applies to offset inputs', async () => {
    const res = await search({ window: { start: '2100-01-01T00:30:00-01:00', end: '2100-01-01T05:00:00Z' } });
    expectEnvelope(res, 400, 'invalid_request');
  });
});

describe('local twins across a DST change (Europe/Berlin, 2027-03-28)', () => {
  it('slots either side of 01:00Z carry +01:00 then +02:00', async () => {
    const res = await search({ window: { start: '2027-03-27T23:00:00Z', end: '2027-03-28T03:00:00Z' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.slots.map((s: { start_local: string; end_local: string }) => [s.start_local, s.end_local])).toEqual([
      ['2027-03-28T00:00:00+01:00', '2027-03-28T01:00:00+01:00'],
      ['2027-03-28T01:00:00+01:00', '2027-03-28T03:00:00+02:00'],
      ['2027-03-28T03:00:00+02:00', '2027-03-28T04:00:00+02:00'],
      ['2027-03-28T04:00:00+02:00', '2027-03-28T05:00:00+02:00'],
    ]);
  });

  it('a window hold and its held_window carry local twins; SLOT_OUTSIDE_HOLD names the held window locally', async () => {
    const day = onDate('2027-03-28', 'Europe/Berlin');
    const hold = await call('POST', '/v1/holds', {
      key: admin.key,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
      body: { owner_email: berlin, meeting_class: 'internal', hold_scope: 'window', duration_minutes: 60, window: { start: '2027-03-28T01:30:00+01:00', end: '2027-03-28T05:30:00+02:00' } },
    });
    expect(hold.status, hold.text).toBe(200);
    expect(hold.body.held_window).toEqual({ start: '2027-03-28T00:30:00.000Z', end: '2027-03-28T03:30:00.000Z', start_local: '2027-03-28T01:30:00+01:00', end_local: '2027-03-28T05:30:00+02:00' });
    expect(hold.body.start_local).toBe('2027-03-28T01:30:00+01:00');
    const outside = await call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, {
      key: admin.key,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
      body: { start: day.at('10:00'), end: day.at('11:00') },
    });
    expectEnvelope(outside, 422, 'SLOT_OUTSIDE_HOLD');
    expect(outside.body.held_window.end_local).toBe('2027-03-28T05:30:00+02:00');
  });
});
