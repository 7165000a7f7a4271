import { beforeAll, describe, expect, it } from 'vitest';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, directAgents, nextWeekday, setupOwner } from './fixtures';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';

/**
 * Buffers under contention (docs/arbitration.md "Buffers": the check runs in arbitrate(), under
 * the owner lock in the one claim path). Two adjacent slots do not overlap, so the exclusion
 * constraint would let both in; only the buffer check decides. PostgreSQL only: on PGlite
 * requests are serialised anyway.
 */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);
const TZ = 'UTC';
let admin: TestCustomer;

beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = await newCustomer();
  const made = await call('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'buffered', priority: 50, buffer_before_minutes: 15, buffer_after_minutes: 15 } });
  expect(made.status, made.text).toBe(201);
});

describe('buffered races on PostgreSQL', () => {
  it('256 racers for two adjacent slots whose buffers collide: one winner, the rest 409 naming a buffer or the slot, no 5xx', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const agents = await directAgents(admin, 32, ['create_bookings']);
    const day = nextWeekday('wed', TZ, 3);
    const slots = [
      { start: day.at('10:00'), end: day.at('10:30') },
      { start: day.at('10:30'), end: day.at('11:00') },
    ];
    const responses = await Promise.all(
      Array.from({ length: 256 }, (_, i) => call('POST', '/v1/bookings', { key: agents[i % agents.length].key, body: { owner_email: owner, meeting_class: 'buffered', ...slots[i % 2] } })),
    );
    expect(responses.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(255);
    const winner = responses.find((r) => r.status === 201)!;
    for (const r of responses.filter((x) => x.status === 409)) {
      expect(r.body.error.code, r.text).toBe('ARBITRATION_REJECTED');
      const other = r.body.conflicts.some((c: { kind: string }) => c.kind === 'buffer');
      const same = r.body.conflicts.some((c: { kind: string }) => c.kind === 'booking');
      expect(other || same, r.text).toBe(true);
    }
    const active = (await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed' || c.status === 'active');
    expect(active).toHaveLength(1);
    expect(active[0].id).toBe(winner.body.booking_id);
  });
});
