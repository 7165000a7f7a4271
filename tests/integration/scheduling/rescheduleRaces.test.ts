import { beforeAll, describe, expect, it } from 'vitest';
import { newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';
import { call, claimsOf, directAgents, everyDay, nextWeekday, setupOwner } from './fixtures';

/**
 * A reschedule racing new bookings for its target slot, on real PostgreSQL (docs/api.md
 * "Reschedule"): per round, 256 clients, one of them moving a booking into the slot and the
 * others booking it directly, all at once through the real route handlers on the pool.
 * Exactly one ends holding the slot; the moved booking is at exactly one of its two times,
 * never both, never neither; no two active claims of the owner overlap. RACE_ROUNDS rounds
 * (default 3 here; CI sets 20), RACE_CONCURRENCY clients (default 256).
 */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);
const ROUNDS = Number(process.env.RACE_ROUNDS || 3);
const CONCURRENCY = Number(process.env.RACE_CONCURRENCY || 256);
const KEY_BUDGET = 100; // per key and policy, under the 120/min of bookings

let admin: TestCustomer;
beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = await newCustomer();
});

describe('reschedule races on PostgreSQL', () => {
  it(`${CONCURRENCY} clients race for a slot while a booking is rescheduled into it: exactly one holds it, the moved booking is at one time`, { timeout: 600_000 }, async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: 'UTC', workingHours: everyDay('00:00', '23:59') });
    const keys = (await directAgents(admin, Math.ceil((ROUNDS * CONCURRENCY) / KEY_BUDGET) + 1, ['create_bookings'])).map((a) => a.key);
    const mover = keys.pop()!;
    let used = 0;
    const outcomes: Record<string, number> = { moved: 0, booked: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const day = nextWeekday('mon', 'UTC', 1 + round);
      const from = { start: day.at('08:00'), end: day.at('08:30') };
      const to = { start: day.at('12:00'), end: day.at('12:30') };
      const b = await call('POST', '/v1/bookings', { key: mover, body: { owner_email: owner, meeting_class: 'internal', ...from } });
      expect(b.status, b.text).toBe(201);
      const moverAt = Math.floor(Math.random() * CONCURRENCY);
      const responses: { kind: 'move' | 'book'; res: ApiResponse }[] = await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, i) => {
          if (i === moverAt) return { kind: 'move' as const, res: await call('POST', `/v1/bookings/${b.body.booking_id}/reschedule`, { key: mover, body: to }) };
          const key = keys[used++ % keys.length];
          return { kind: 'book' as const, res: await call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class: 'internal', ...to } }) };
        }),
      );
      const failures = responses.filter((r) => r.res.status >= 500 || r.res.status === 429).map((r) => r.res.text);
      expect(failures, 'no 5xx, no 429').toEqual([]);
      const winners = responses.filter((r) => r.res.status === 200 || r.res.status === 201);
      expect(winners.length, `round ${round}: one winner`).toBe(1);
      for (const r of responses.filter((x) => x.res.status !== 200 && x.res.status !== 201)) {
        expect(r.res.status, r.res.text).toBe(409);
        expect(r.res.body.error.code).toBe('ARBITRATION_REJECTED');
      }
      const moved = winners[0].kind === 'move';
      outcomes[moved ? 'moved' : 'booked']++;
      // The database: one active claim on the target slot; the moved booking at exactly one of its times.
      const rows = (await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed');
      const onTarget = rows.filter((c) => c.startAt.toISOString() === new Date(to.start).toISOString());
      expect(onTarget.length).toBe(1);
      const booking = rows.filter((c) => c.id === b.body.booking_id);
      expect(booking.length).toBe(1);
      expect(booking[0].startAt.toISOString()).toBe(new Date(moved ? to.start : from.start).toISOString());
      expect(onTarget[0].id === b.body.booking_id).toBe(moved);
      const got = await call('GET', `/v1/bookings/${b.body.booking_id}`, { key: mover });
      expect(got.body.start).toBe(new Date(moved ? to.start : from.start).toISOString());
    }
    // No two active claims of the owner overlap.
    const active = (await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed').sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
    for (let i = 1; i < active.length; i++) expect(active[i].startAt.getTime()).toBeGreaterThanOrEqual(active[i - 1].endAt.getTime());
    ctx.annotate(`rounds won by the move: ${outcomes.moved}, by a new booking: ${outcomes.booked}`);
  });
});
