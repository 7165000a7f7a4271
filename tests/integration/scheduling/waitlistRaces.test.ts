import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { waitlistEntries } from '@/db/schema';
import { newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, directAgents, nextWeekday, setupOwner } from './fixtures';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';

/**
 * The waitlist under races on PostgreSQL (docs/arbitration.md "Waitlist"), in the manner of
 * races.test.ts: many waiters, several frees arriving at once (cancels racing direct bookings of
 * the same time): each freed time is offered once, no two active claims overlap, and the offers
 * go to the earliest entries. On PGlite (one connection) a race proves nothing: skipped.
 */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);
const TZ = 'UTC';
const WAITERS = 100;
const FREES = 8;

let admin: TestCustomer;
beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = await newCustomer();
});

const no5xx = (responses: ApiResponse[]) => expect(responses.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);

describe('waitlist races on PostgreSQL', () => {
  it(`${WAITERS} waiters, ${FREES} concurrent cancels racing direct bookings: each freed time offered once, no overlap`, async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('tue', TZ);
    const slots = Array.from({ length: FREES }, (_, i) => ({ start: day.at(`${String(9 + i).padStart(2, '0')}:00`), end: day.at(`${String(9 + i).padStart(2, '0')}:30`) }));
    // Every half hour of the day is booked; the first of each hour is cancelled below.
    const bookings: string[] = [];
    for (let h = 9; h < 17; h++) {
      for (const m of ['00', '30']) {
        const start = day.at(`${String(h).padStart(2, '0')}:${m}`);
        const end = new Date(Date.parse(start) + 30 * 60_000).toISOString();
        const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start, end } });
        expect(res.status, res.text).toBe(201);
        if (m === '00' && h - 9 < FREES) bookings.push(res.body.booking_id);
      }
    }
    const waiters = await directAgents(admin, WAITERS, ['create_holds', 'create_bookings']);
    const joined: string[] = [];
    for (const w of waiters) {
      const res = await call('POST', '/v1/waitlist', { key: w.key, body: { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window_start: day.at('09:00'), window_end: day.at('17:00') } });
      expect(res.status, res.text).toBe(201);
      joined.push(res.body.id);
    }
    const racers = await directAgents(admin, 4, ['create_bookings']);
    const [cancels, competing] = await Promise.all([
      Promise.all(bookings.map((id) => call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body: {} }))),
      Promise.all(slots.flatMap((s, i) => [0, 1].map((k) => call('POST', '/v1/bookings', { key: racers[(i + k) % racers.length].key, body: { owner_email: owner, meeting_class: 'internal', ...s } })))),
    ]);
    no5xx([...cancels, ...competing]);
    expect(cancels.map((r) => r.status)).toEqual(bookings.map(() => 200));

    const live = (await claimsOf(admin, owner)).filter((c) => c.status === 'active' || c.status === 'confirmed');
    const sorted = [...live].sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
    for (let i = 1; i < sorted.length; i++) expect(sorted[i].startAt.getTime(), 'no two live claims overlap').toBeGreaterThanOrEqual(sorted[i - 1].endAt.getTime());

    const entries = await (await getDb()).select().from(waitlistEntries).where(eq(waitlistEntries.ownerId, live[0].ownerId));
    const offered = entries.filter((e) => e.status === 'offered');
    const holds = new Map(live.filter((c) => c.kind === 'hold').map((c) => [c.id, c]));
    // Each offer is a live hold of its own; the freed times went to a waiter or a racing booking, once each.
    expect(new Set(offered.map((e) => e.holdId)).size).toBe(offered.length);
    for (const e of offered) expect(holds.get(e.holdId!)?.agentId).toBe(e.agentId);
    const won = competing.filter((r) => r.status === 201).length;
    expect(offered.length + won).toBe(FREES);
    // The earliest entries were offered (one class: time joined decides).
    expect(new Set(offered.map((e) => e.id))).toEqual(new Set(joined.slice(0, offered.length)));
    expect(entries.filter((e) => e.status === 'waiting').length).toBe(WAITERS - offered.length);

    // Round two: every offer released at once; each released time goes to the next entries, once.
    const keyOf = new Map(waiters.map((w) => [w.agentId, w.key]));
    const released = await Promise.all(offered.map((e) => call('DELETE', `/v1/holds/${e.holdId}`, { key: keyOf.get(e.agentId!)! })));
    no5xx(released);
    expect(released.map((r) => r.status)).toEqual(offered.map(() => 200));
    const after = await (await getDb()).select().from(waitlistEntries).where(eq(waitlistEntries.ownerId, live[0].ownerId));
    const second = after.filter((e) => e.status === 'offered');
    expect(after.filter((e) => e.status === 'lapsed').map((e) => e.id).sort()).toEqual(offered.map((e) => e.id).sort());
    expect(new Set(second.map((e) => e.id))).toEqual(new Set(joined.slice(offered.length, offered.length * 2)));
    const again = (await claimsOf(admin, owner)).filter((c) => c.status === 'active' || c.status === 'confirmed').sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
    for (let i = 1; i < again.length; i++) expect(again[i].startAt.getTime()).toBeGreaterThanOrEqual(again[i - 1].endAt.getTime());
    expect(new Set(second.map((e) => e.holdId)).size).toBe(second.length);
  }, 300_000);
});
