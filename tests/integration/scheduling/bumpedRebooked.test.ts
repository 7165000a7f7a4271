import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { claims, webhookDeliveries } from '@/db/schema';
import { newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from './fixtures';
import { allowLoopbackOutbound } from '../../helpers/outbound';

allowLoopbackOutbound();

/**
 * A bumped meeting rebooked (docs/arbitration.md "Bumped meetings rebooked"): a class with
 * on_preempted hold_nearest gets its preempted booking's agent a hold on the nearest slot its
 * rules accept, in the preempting claim's transaction; booking.preempted carries it.
 */
let admin: TestCustomer;
let low: { agentId: string; key: string };
let owner: string;
const tue = nextWeekday('tue', 'UTC');
const key = () => ({ 'Idempotency-Key': crypto.randomUUID() });

type Note = { kind: string; data: Record<string, unknown> & { booking_id?: string; replacement_hold?: { id: string; start: string; end: string; expires_at: string } | null } };

async function book(as: { key: string }, meetingClass: string, start: string, end: string, ownerEmail = owner) {
  const res = await call('POST', '/v1/bookings', { key: as.key, headers: key(), body: { owner_email: ownerEmail, meeting_class: meetingClass, start, end } });
  expect(res.status, res.text).toBe(201);
  return res.body as { booking_id: string; preempted_booking_ids: string[] };
}

async function preemptedNote(bookingId: string): Promise<Note> {
  const notes = await call('GET', '/v1/notifications', { key: low.key });
  const note = (notes.body.notifications as Note[]).find((n) => n.kind === 'booking.preempted' && n.data.booking_id === bookingId);
  expect(note, notes.text).toBeDefined();
  return note!;
}

async function holdsOf(agentId: string, ownerId?: string) {
  const db = await getDb();
  return (await db.select().from(claims).where(and(eq(claims.agentId, agentId), eq(claims.kind, 'hold')))).filter((c) => !ownerId || c.ownerId === ownerId);
}

beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin);
  low = await newAgent(admin, ['create_holds', 'create_bookings', 'read_availability']);
  const created = await call('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'rebook', priority: 10, on_preempted: 'hold_nearest' } });
  expect(created.status, created.text).toBe(201);
  expect(created.body.on_preempted).toBe('hold_nearest');
});

describe('a class without the setting', () => {
  it('is preempted as before: no hold, no replacement_hold in the event', async () => {
    const before = (await holdsOf(low.agentId)).length;
    const bumped = await book(low, 'focus', tue.at('13:00'), tue.at('14:00'));
    const high = await book(admin, 'external', tue.at('13:00'), tue.at('14:00'));
    expect(high.preempted_booking_ids).toEqual([bumped.booking_id]);
    const note = await preemptedNote(bumped.booking_id);
    expect('replacement_hold' in note.data).toBe(false);
    expect((await holdsOf(low.agentId)).length).toBe(before);
  });
});

describe('on_preempted hold_nearest', () => {
  it('holds the nearest acceptable slot, announces it, links the audit rows, and the hold confirms', async () => {
    const hook = await call('POST', '/v1/webhooks', { key: low.key, body: { url: 'http://127.0.0.1:9/bumped', events: ['booking.preempted'] } });
    expect(hook.status, hook.text).toBe(201);
    const bumped = await book(low, 'rebook', tue.at('10:00'), tue.at('11:00'));
    const t0 = Date.now();
    await book(admin, 'external', tue.at('10:00'), tue.at('11:00'));
    const note = await preemptedNote(bumped.booking_id);
    const hold = note.data.replacement_hold!;
    // 09:00 and 11:00 are both an hour away; the earlier one wins (the alternatives' order).
    expect(hold).toMatchObject({ start: tue.at('09:00'), end: tue.at('10:00') });
    const ttl = Date.parse(hold.expires_at) - t0;
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThan(610_000);
    // The webhook carries the same hold.
    const deliveries = await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, hook.body.id));
    const bodies = deliveries.map((d) => JSON.parse(d.body) as { type: string; data: Note['data'] });
    expect(bodies.find((b) => b.type === 'booking.preempted' && b.data.booking_id === bumped.booking_id)?.data.replacement_hold).toEqual(hold);
    // The hold is the agent's, of the booking's class.
    const read = await call('GET', `/v1/holds/${hold.id}`, { key: low.key });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ hold_id: hold.id, status: 'active', meeting_class: 'rebook' });
    // The audit rows name each other.
    const preemptRows = await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(owner)}&action=claim.preempt&limit=20`, { key: admin.key });
    expect(preemptRows.body.entries.find((e: { booking_id: string }) => e.booking_id === bumped.booking_id)?.details.replacement_hold_id).toBe(hold.id);
    const holdRows = await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(owner)}&action=hold.create&limit=20`, { key: admin.key });
    expect(holdRows.body.entries.find((e: { hold_id: string }) => e.hold_id === hold.id)?.details.replaces_booking_id).toBe(bumped.booking_id);
    // The agent confirms it like any hold.
    const confirmed = await call('POST', `/v1/bookings/${hold.id}/confirm`, { key: low.key, headers: key(), body: { start: hold.start, end: hold.end } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await call('GET', `/v1/holds/${hold.id}`, { key: low.key })).body.status).toBe('promoted');
  });

  it('the hold releases like any hold', async () => {
    const wed = nextWeekday('wed', 'UTC');
    const bumped = await book(low, 'rebook', wed.at('14:00'), wed.at('14:30'));
    await book(admin, 'external', wed.at('14:00'), wed.at('15:00'));
    const hold = (await preemptedNote(bumped.booking_id)).data.replacement_hold!;
    // 13:30 is nearest (30 min before); 15:00 is an hour after the requested start.
    expect(hold).toMatchObject({ start: wed.at('13:30'), end: wed.at('14:00') });
    const released = await call('DELETE', `/v1/holds/${hold.id}`, { key: low.key });
    expect(released.status, released.text).toBe(200);
    expect(released.body.status).toBe('released');
  });

  it('places nothing when no slot is acceptable, and the event says so (null)', async () => {
    const narrow = await setupOwner(admin, { workingHours: { thu: [{ start: '10:00', end: '11:00' }] } });
    const thu = nextWeekday('thu', 'UTC');
    const bumped = await book(low, 'rebook', thu.at('10:00'), thu.at('11:00'), narrow);
    await book(admin, 'external', thu.at('10:00'), thu.at('11:00'), narrow);
    const note = await preemptedNote(bumped.booking_id);
    expect(note.data.replacement_hold).toBeNull();
    const [row] = await (await getDb()).select().from(claims).where(eq(claims.id, bumped.booking_id));
    expect(await holdsOf(low.agentId, row.ownerId)).toEqual([]);
  });
});

describe('the class setting over REST', () => {
  it('is read by name, changed by PATCH and audited with the value before', async () => {
    const name = `cls-${crypto.randomUUID().slice(0, 8)}`;
    expect((await call('POST', '/v1/meeting-classes', { key: admin.key, body: { name, priority: 5 } })).body.on_preempted).toBeNull();
    const patched = await call('PATCH', `/v1/meeting-classes/${name}`, { key: admin.key, headers: key(), body: { on_preempted: 'hold_nearest' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name, priority: 5, on_preempted: 'hold_nearest' });
    const read = await call('GET', `/v1/meeting-classes/${name}`, { key: admin.key });
    expect(read.body.on_preempted).toBe('hold_nearest');
    const audit = await call('GET', '/v1/audit-log?action=meeting_class.update&limit=5', { key: admin.key });
    expect(audit.body.entries[0]).toMatchObject({ action: 'meeting_class.update', meeting_class: name, details: { on_preempted: 'hold_nearest', before: { on_preempted: null } } });
    // The same value again changes nothing and writes no second row.
    expect((await call('PATCH', `/v1/meeting-classes/${name}`, { key: admin.key, headers: key(), body: { on_preempted: 'hold_nearest' } })).status).toBe(200);
    const again = await call('GET', '/v1/audit-log?action=meeting_class.update&limit=50', { key: admin.key });
    expect(again.body.entries.filter((e: { meeting_class: string }) => e.meeting_class === name)).toHaveLength(1);
    const missing = await call('GET', '/v1/meeting-classes/nope-none', { key: admin.key });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('MEETING_CLASS_NOT_FOUND');
    const bad = await call('PATCH', `/v1/meeting-classes/${name}`, { key: admin.key, headers: key(), body: { on_preempted: 'hold_somewhere' } });
    expect(bad.status).toBe(400);
  });
});
