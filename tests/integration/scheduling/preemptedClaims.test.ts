import { beforeAll, expect, it } from 'vitest';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, everyDay, setupOwner } from './fixtures';

/** preempted_claims: [{id, kind}] beside preempted_booking_ids (docs/api.md "Arbitration"). */
let admin: TestCustomer;
let owner: string;
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { workingHours: everyDay('00:00', '24:00') });
});

it('names a preempted hold as kind hold and a preempted booking as kind booking', async () => {
  const headers = () => ({ 'Idempotency-Key': crypto.randomUUID() });
  const hold = await call('POST', '/v1/holds', { key: admin.key, headers: headers(), body: { owner_email: owner, meeting_class: 'focus', hold_scope: 'candidate', candidate: { start: '2027-02-08T10:00:00Z', end: '2027-02-08T11:00:00Z' } } });
  expect(hold.status, hold.text).toBe(200);
  const low = await call('POST', '/v1/bookings', { key: admin.key, headers: headers(), body: { owner_email: owner, meeting_class: 'focus', start: '2027-02-08T11:00:00Z', end: '2027-02-08T12:00:00Z' } });
  expect(low.status, low.text).toBe(201);
  const high = await call('POST', '/v1/bookings', { key: admin.key, headers: headers(), body: { owner_email: owner, meeting_class: 'external', start: '2027-02-08T10:00:00Z', end: '2027-02-08T12:00:00Z' } });
  expect(high.status, high.text).toBe(201);
  const byId = Object.fromEntries(high.body.preempted_claims.map((c: { id: string; kind: string }) => [c.id, c.kind]));
  expect(byId).toEqual({ [hold.body.hold_id]: 'hold', [low.body.booking_id]: 'booking' });
  expect([...high.body.preempted_booking_ids].sort()).toEqual([hold.body.hold_id, low.body.booking_id].sort());
});
