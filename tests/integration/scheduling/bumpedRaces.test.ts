import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { auditLog } from '@/db/schema';
import { newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, directAgents, nextWeekday, setupOwner } from './fixtures';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';

/**
 * A preemption race with on_preempted hold_nearest (docs/arbitration.md "Bumped meetings
 * rebooked"), on PostgreSQL only (as races.test.ts: PGlite serialises everything): many
 * higher-priority bookings on one owner at once, over bookings whose class asks for a
 * replacement. No two claims overlap, and each preempted booking gets at most one replacement.
 */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);

let admin: TestCustomer;
beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = await newCustomer();
});

function noFiveXx(responses: ApiResponse[]) {
  expect(responses.filter((r) => r.status >= 500).map((r) => r.text), 'no 5xx').toEqual([]);
  const byStatus: Record<number, number> = {};
  for (const r of responses) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  return byStatus;
}

describe('bumped meetings rebooked, racing', () => {
  it('60 concurrent preempting bookings over 8 rebookable ones: no overlap, at most one replacement per preempted booking', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin);
    const created = await call('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'rebook-race', priority: 10, on_preempted: 'hold_nearest' } });
    expect([201, 409]).toContain(created.status);
    const [low] = await directAgents(admin, 1, ['create_holds', 'create_bookings']);
    const bumpers = await directAgents(admin, 6, ['create_bookings', 'preempt']);
    const day = nextWeekday('thu', 'UTC');
    const bookingIds: string[] = [];
    for (const h of ['09', '10', '11', '12', '13', '14', '15', '16']) {
      const res = await call('POST', '/v1/bookings', { key: low.key, body: { owner_email: owner, meeting_class: 'rebook-race', start: day.at(`${h}:00`), end: day.at(`${h}:30`) } });
      expect(res.status, res.text).toBe(201);
      bookingIds.push(res.body.booking_id);
    }
    // 45-minute bookings of priority 50 starting on every quarter hour from 09:00 to 16:00 (several per start).
    const starts = Array.from({ length: 29 }, (_, i) => 9 * 60 + 15 * i);
    const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const s = starts[(i * 7) % starts.length];
        return call('POST', '/v1/bookings', { key: bumpers[i % bumpers.length].key, body: { owner_email: owner, meeting_class: 'external', start: day.at(hhmm(s)), end: day.at(hhmm(s + 45)) } });
      }),
    );
    const byStatus = noFiveXx(responses);
    expect(byStatus[201] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(byStatus).every((s) => s === '201' || s === '409'), JSON.stringify(byStatus)).toBe(true);

    // No two active claims of the owner overlap (holds past their expiry aside: none yet).
    const live = (await claimsOf(admin, owner)).filter((c) => c.status === 'active' || c.status === 'confirmed').sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
    for (let i = 1; i < live.length; i++) expect(live[i].startAt.getTime(), `${live[i - 1].id} / ${live[i].id}`).toBeGreaterThanOrEqual(live[i - 1].endAt.getTime());

    // Each preempted booking: at most one replacement hold, and the hold the event names is the one the audit names.
    const db = await getDb();
    const holdRows = await db.select().from(auditLog).where(and(eq(auditLog.customerId, admin.customerId), eq(auditLog.action, 'hold.create')));
    const replacements = new Map<string, string[]>();
    for (const r of holdRows) {
      const of = r.details?.replaces_booking_id;
      if (typeof of === 'string') replacements.set(of, [...(replacements.get(of) ?? []), r.holdId!]);
    }
    const all = await claimsOf(admin, owner);
    const preempted = all.filter((c) => bookingIds.includes(c.id) && c.status === 'preempted');
    expect(preempted.length).toBeGreaterThan(0);
    expect(replacements.size).toBeGreaterThan(0);
    for (const [bookingId, holds] of replacements) {
      expect(holds, bookingId).toHaveLength(1);
      expect(preempted.map((p) => p.id)).toContain(bookingId);
      const hold = all.find((c) => c.id === holds[0])!;
      expect(hold).toMatchObject({ kind: 'hold', agentId: low.agentId });
    }
    const notes = await call('GET', '/v1/notifications', { key: low.key });
    const told = (notes.body.notifications as { kind: string; data: { booking_id?: string; replacement_hold?: { id: string } | null } }[]).filter((n) => n.kind === 'booking.preempted' && n.data.booking_id);
    expect(told.map((n) => n.data.booking_id).sort()).toEqual(preempted.map((p) => p.id).sort());
    for (const n of told) {
      expect('replacement_hold' in n.data).toBe(true);
      expect(n.data.replacement_hold?.id ?? null).toBe(replacements.get(n.data.booking_id!)?.[0] ?? null);
    }
  });
});
