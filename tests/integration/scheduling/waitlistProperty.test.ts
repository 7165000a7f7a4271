import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { waitlistEntries } from '@/db/schema';
import { newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, nextWeekday, setupOwner } from './fixtures';

/**
 * Property (docs/arbitration.md "Waitlist"): whatever sequence of bookings, joins, cancels,
 * releases and confirms runs, an offer never overlaps a claim: the owner's live claims never
 * overlap, and every offered entry's hold is live, its agent's, inside the entry's window and of
 * its duration.
 */
let admin: TestCustomer;
/** Offers seen over every run: the property must have had offers to check. */
let offersSeen = 0;
let agents: { agentId: string; key: string }[];
beforeAll(async () => {
  admin = await newCustomer();
  agents = [await newAgent(admin, ['create_holds', 'create_bookings']), await newAgent(admin, ['create_holds', 'create_bookings'])];
});

const HALF_HOURS = 16; // 09:00-17:00
type Step =
  | { kind: 'book'; at: number; len: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'join'; agent: number; at: number; len: number; duration: 30 | 60 }
  | { kind: 'release'; pick: number }
  | { kind: 'confirm'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('book' as const), at: fc.nat(HALF_HOURS - 1), len: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('join' as const), agent: fc.nat(1), at: fc.nat(HALF_HOURS - 2), len: fc.integer({ min: 2, max: 8 }), duration: fc.constantFrom(30 as const, 60 as const) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('confirm' as const), pick: fc.nat() }),
);

describe('waitlist property', () => {
  it('an offer never overlaps a claim', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
        const owner = await setupOwner(admin, { timeZone: 'UTC' });
        const day = nextWeekday((['mon', 'tue', 'wed', 'thu', 'fri'] as const)[run++ % 5], 'UTC');
        const t = (halfHours: number) => new Date(Date.parse(day.at('09:00')) + halfHours * 30 * 60_000).toISOString();
        const bookings: string[] = [];
        for (const s of steps) {
          if (s.kind === 'book') {
            const res = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: t(s.at), end: t(Math.min(HALF_HOURS, s.at + s.len)) } });
            if (res.status === 201) bookings.push(res.body.booking_id);
          } else if (s.kind === 'cancel' && bookings.length) {
            await call('POST', `/v1/bookings/${bookings.splice(s.pick % bookings.length, 1)[0]}/cancel`, { key: admin.key, body: {} });
          } else if (s.kind === 'join') {
            const end = Math.min(HALF_HOURS, s.at + s.len);
            await call('POST', '/v1/waitlist', { key: agents[s.agent].key, body: { owner_email: owner, meeting_class: 'internal', duration_minutes: s.duration, window_start: t(s.at), window_end: t(end) } });
          } else if (s.kind === 'release' || s.kind === 'confirm') {
            const offered = await offeredOf(owner);
            if (!offered.length) continue;
            const e = offered[s.pick % offered.length];
            const key = agents.find((a) => a.agentId === e.agentId)!.key;
            if (s.kind === 'release') await call('DELETE', `/v1/holds/${e.holdId}`, { key });
            else {
              const res = await call('POST', `/v1/bookings/${e.holdId}/confirm`, { key, body: { start: e.holdStart, end: e.holdEnd } });
              if (res.status === 200) bookings.push(res.body.booking_id);
            }
          }
          await invariants(owner);
        }
      }),
      { numRuns: 10, seed: 40 },
    );
    expect(offersSeen).toBeGreaterThan(0);
  }, 300_000);
});

async function offeredOf(owner: string) {
  const live = new Map((await claimsOf(admin, owner)).map((c) => [c.id, c]));
  const ownerId = [...live.values()][0]?.ownerId;
  if (!ownerId) return [];
  const entries = await (await getDb()).select().from(waitlistEntries).where(eq(waitlistEntries.ownerId, ownerId));
  return entries
    .filter((e) => e.status === 'offered' && live.get(e.holdId!)?.status === 'active')
    .map((e) => ({ ...e, holdStart: live.get(e.holdId!)!.startAt.toISOString(), holdEnd: live.get(e.holdId!)!.endAt.toISOString() }));
}

async function invariants(owner: string): Promise<void> {
  const all = await claimsOf(admin, owner);
  const live = all.filter((c) => c.status === 'active' || c.status === 'confirmed').sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
  for (let i = 1; i < live.length; i++) expect(live[i].startAt.getTime(), 'live claims never overlap').toBeGreaterThanOrEqual(live[i - 1].endAt.getTime());
  if (!all.length) return;
  const byId = new Map(all.map((c) => [c.id, c]));
  const entries = await (await getDb()).select().from(waitlistEntries).where(eq(waitlistEntries.ownerId, all[0].ownerId));
  for (const e of entries.filter((x) => x.status === 'offered')) {
    offersSeen++;
    const h = byId.get(e.holdId!)!;
    expect(h.kind).toBe('hold');
    expect(h.agentId).toBe(e.agentId);
    expect(h.endAt.getTime() - h.startAt.getTime()).toBe(e.durationMinutes * 60_000);
    expect(h.startAt.getTime()).toBeGreaterThanOrEqual(e.windowStart.getTime());
    expect(h.endAt.getTime()).toBeLessThanOrEqual(e.windowEnd.getTime());
  }
}
