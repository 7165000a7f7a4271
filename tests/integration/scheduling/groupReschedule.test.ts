import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { auditLog } from '@/db/schema';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, everyDay, setupOwner } from './fixtures';

/**
 * Reschedule of a group booking (docs/groups.md "Reschedule", docs/api.md "Reschedule"):
 * rescheduling any member moves every member of the group in one transaction or none, each
 * owner arbitrated with its own rules; a refusal names each refusing owner and leaves every
 * member unchanged. Runs on PGlite and PostgreSQL.
 */
let admin: TestCustomer;
let a: string;
let b: string;
let c: string;
const DAY = '2027-03-0'; // March 1-5 2027: Monday to Friday
const at = (d: number, hhmm: string) => `${DAY}${d}T${hhmm}:00.000Z`;
const iso = (s: string) => new Date(s).toISOString();
const idem = () => ({ 'Idempotency-Key': crypto.randomUUID() });

beforeAll(async () => {
  admin = await newCustomer();
  a = await setupOwner(admin, { workingHours: everyDay() });
  b = await setupOwner(admin, { workingHours: everyDay() });
  // c: at most one hour of meetings a day (its own rule).
  c = await setupOwner(admin, { workingHours: everyDay(), maxDailyMeetingHours: 1 });
});

const book = (body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/bookings', { key, headers: idem(), body });
const move = (id: string, start: string, end: string, opts: { key?: string; headers?: Record<string, string> } = {}) =>
  call('POST', `/v1/bookings/${id}/reschedule`, { key: opts.key ?? admin.key, headers: opts.headers ?? idem(), body: { start, end, reason: 'group move' } });
const groupOf = async (owners: string[], start: string, end: string) => {
  const res = await book({ owner_emails: owners, meeting_class: 'internal', start, end, title: 'Group' });
  expect(res.status, res.text).toBe(201);
  return { groupId: res.body.group_id as string, ids: Object.fromEntries(res.body.members.map((m: { owner_email: string; booking_id: string }) => [m.owner_email, m.booking_id])) as Record<string, string> };
};
/** Each member's [start, end) in the database, by owner. */
const timesOf = async (ids: Record<string, string>) => {
  const out: Record<string, [string, string, string]> = {};
  for (const [owner, id] of Object.entries(ids)) {
    const row = (await claimsOf(admin, owner)).find((r) => r.id === id)!;
    out[owner] = [row.startAt.toISOString(), row.endAt.toISOString(), row.status];
  }
  return out;
};
const auditOf = async (groupId: string, outcome: 'accept' | 'reject') =>
  (await getDb()).select().from(auditLog).where(sql`${auditLog.details}->>'group_id' = ${groupId} and ${auditLog.action} = 'booking.reschedule' and ${auditLog.outcome} = ${outcome}`);

describe('group reschedule', () => {
  it('moving one member moves every member in place: same ids, one audit row per owner, the old time free again', async () => {
    const g = await groupOf([a, b, c], at(1, '10:00'), at(1, '10:30'));
    const res = await move(g.ids[b], at(1, '14:00'), at(1, '14:30'));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ booking_id: g.ids[b], owner_email: b, group_id: g.groupId, start: iso(at(1, '14:00')), status: 'confirmed' });
    expect(res.body.members).toHaveLength(3);
    for (const m of res.body.members) expect(m).toMatchObject({ booking_id: g.ids[m.owner_email], status: 'confirmed' });
    const times = await timesOf(g.ids);
    for (const o of [a, b, c]) expect(times[o]).toEqual([iso(at(1, '14:00')), iso(at(1, '14:30')), 'confirmed']);
    // Read back through another member: the group at its new time.
    const got = await call('GET', `/v1/bookings/${g.ids[c]}`, { key: admin.key });
    expect(got.body).toMatchObject({ start: iso(at(1, '14:00')), group_id: g.groupId });
    const audit = await auditOf(g.groupId, 'accept');
    expect(audit.map((r) => r.ownerEmail).sort()).toEqual([a, b, c].sort());
    for (const r of audit) expect(r.details).toMatchObject({ from: { start: iso(at(1, '10:00')) }, to: { start: iso(at(1, '14:00')) } });
    // The old time is free at every owner.
    expect((await book({ owner_emails: [a, b, c], meeting_class: 'internal', start: at(1, '10:00'), end: at(1, '10:30') })).status).toBe(201);
  });

  it('refused when some owners refuse: the refusal names each of them, and no member moves', async () => {
    const g = await groupOf([a, b, c], at(2, '09:00'), at(2, '09:30'));
    // Higher-priority meetings in the way at b and c (30 min: c's daily hour still holds the move).
    for (const o of [b, c]) expect((await book({ owner_email: o, meeting_class: 'external', start: at(2, '11:00'), end: at(2, '11:30') })).status).toBe(201);
    const res = await move(g.ids[a], at(2, '11:00'), at(2, '11:30'));
    const err = expectEnvelope(res, 409, 'ARBITRATION_REJECTED');
    expect(err.message).toContain(b);
    expect(err.message).toContain(c);
    expect(res.body.owners.map((o: { owner_email: string }) => o.owner_email).sort()).toEqual([b, c].sort());
    for (const o of res.body.owners) expect(o.reason).toBe('NO_CAPACITY');
    const times = await timesOf(g.ids);
    for (const o of [a, b, c]) expect(times[o]).toEqual([iso(at(2, '09:00')), iso(at(2, '09:30')), 'confirmed']);
    // One rejected audit row per owner, naming the refusing owners.
    const audit = await auditOf(g.groupId, 'reject');
    expect(audit.map((r) => r.ownerEmail).sort()).toEqual([a, b, c].sort());
    for (const r of audit) expect(((r.details as { refused_by: string[] }).refused_by ?? []).sort()).toEqual([b, c].sort());
    expect(await auditOf(g.groupId, 'accept')).toHaveLength(0);
  });

  it("each owner with its own rules: one owner's daily limit refuses the group; its own minutes leave the old day", async () => {
    // Thursday: c has 30 min booked; the group's 30 min moving onto Thursday make 1 h: allowed.
    const g = await groupOf([a, c], at(3, '09:00'), at(3, '09:30'));
    expect((await book({ owner_email: c, meeting_class: 'internal', start: at(4, '09:00'), end: at(4, '09:30') })).status).toBe(201);
    const ok = await move(g.ids[a], at(4, '13:00'), at(4, '13:30'));
    expect(ok.status, ok.text).toBe(200);
    // Friday: c has 45 min; 30 more would exceed 1 h. Only c refuses; nothing moves.
    expect((await book({ owner_email: c, meeting_class: 'internal', start: at(5, '09:00'), end: at(5, '09:45') })).status).toBe(201);
    const res = await move(g.ids[c], at(5, '13:00'), at(5, '13:30'));
    expect(res.status, res.text).toBe(409);
    expect(res.body.owners).toEqual([expect.objectContaining({ owner_email: c, reason: 'MAX_DAILY_HOURS' })]);
    const times = await timesOf(g.ids);
    for (const o of [a, c]) expect(times[o].slice(0, 2)).toEqual([iso(at(4, '13:00')), iso(at(4, '13:30'))]);
  });

  it("the group's id moves the group too (as for cancel)", async () => {
    const g = await groupOf([a, b], at(2, '15:00'), at(2, '15:30'));
    const res = await move(g.groupId, at(2, '16:00'), at(2, '16:30'));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ group_id: g.groupId, start: iso(at(2, '16:00')) });
    expect(Object.values(g.ids)).toContain(res.body.booking_id);
    for (const t of Object.values(await timesOf(g.ids))) expect(t.slice(0, 2)).toEqual([iso(at(2, '16:00')), iso(at(2, '16:30'))]);
  });

  it('never conflicts with itself: a move overlapping its own old time is accepted at every owner', async () => {
    const g = await groupOf([a, b], at(3, '14:00'), at(3, '15:00'));
    const res = await move(g.ids[a], at(3, '14:30'), at(3, '15:30'));
    expect(res.status, res.text).toBe(200);
    const times = await timesOf(g.ids);
    for (const o of [a, b]) expect(times[o].slice(0, 2)).toEqual([iso(at(3, '14:30')), iso(at(3, '15:30'))]);
  });

  it('preempts lower-priority claims at every owner in the same transaction, announced once each', async () => {
    const g = await groupOf([a, b], at(4, '15:00'), at(4, '15:30'));
    const low = await Promise.all([a, b].map(async (o) => (await book({ owner_email: o, meeting_class: 'focus', start: at(4, '16:00'), end: at(4, '16:30') })).body.booking_id as string));
    const res = await move(g.ids[b], at(4, '16:00'), at(4, '16:30'));
    expect(res.status, res.text).toBe(200);
    expect([...res.body.preempted_booking_ids].sort()).toEqual([...low].sort());
    for (const [o, id] of [[a, low[0]], [b, low[1]]] as const) expect((await claimsOf(admin, o)).find((r) => r.id === id)?.status).toBe('preempted');
  });

  it('two groups sharing an owner moved into one slot at once: exactly one moves, whole; the other stays, whole', async () => {
    const g1 = await groupOf([a, b], at(5, '09:00'), at(5, '09:30'));
    const d = await setupOwner(admin, { workingHours: everyDay() });
    const g2 = await groupOf([b, d], at(5, '10:00'), at(5, '10:30'));
    const [r1, r2] = await Promise.all([move(g1.ids[a], at(5, '14:00'), at(5, '14:30')), move(g2.ids[d], at(5, '14:00'), at(5, '14:30'))]);
    expect([r1.status, r2.status].sort()).toEqual([200, 409]);
    const [won, lost] = r1.status === 200 ? [g1, g2] : [g2, g1];
    const loser = r1.status === 200 ? r2 : r1;
    expect(loser.body.owners.map((o: { owner_email: string }) => o.owner_email)).toEqual([b]);
    for (const t of Object.values(await timesOf(won.ids))) expect(t.slice(0, 2)).toEqual([iso(at(5, '14:00')), iso(at(5, '14:30'))]);
    const stayed = lost === g1 ? [iso(at(5, '09:00')), iso(at(5, '09:30'))] : [iso(at(5, '10:00')), iso(at(5, '10:30'))];
    for (const t of Object.values(await timesOf(lost.ids))) expect(t.slice(0, 2)).toEqual(stayed);
  });

  it("each member's booking.rescheduled names its group (group_id), as booking.created and booking.cancelled do", async () => {
    const agent = await newAgent(admin, ['read_availability', 'create_bookings']);
    const res = await book({ owner_emails: [a, b], meeting_class: 'internal', start: at(4, '11:00'), end: at(4, '11:30'), title: 'Group' }, agent.key);
    expect(res.status, res.text).toBe(201);
    const groupId = res.body.group_id as string;
    await call('GET', '/v1/notifications', { key: agent.key });
    expect((await move(res.body.members[0].booking_id, at(4, '11:30'), at(4, '12:00'))).status).toBe(200);
    const heard = ((await call('GET', '/v1/notifications', { key: agent.key })).body.notifications as { kind: string; data: Record<string, unknown> }[]).filter((n) => n.kind === 'booking.rescheduled');
    expect(heard.map((n) => n.data.owner_email).sort()).toEqual([a, b].sort());
    for (const n of heard) expect(n.data).toMatchObject({ group_id: groupId, reason: 'group move', to: { start: iso(at(4, '11:30')) } });
  });

  it('the same Idempotency-Key answers what committed; a cancelled group answers BOOKING_NOT_ACTIVE; another agent needs manage_customer', async () => {
    const g = await groupOf([a, b], at(1, '15:00'), at(1, '15:30'));
    const headers = idem();
    const first = await move(g.ids[a], at(1, '16:00'), at(1, '16:30'), { headers });
    const again = await move(g.ids[a], at(1, '16:00'), at(1, '16:30'), { headers });
    expect(first.status, first.text).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await auditOf(g.groupId, 'accept')).toHaveLength(2);
    const stranger = await newAgent(admin, ['create_bookings']);
    expectEnvelope(await move(g.ids[b], at(1, '09:00'), at(1, '09:30'), { key: stranger.key }), 403, 'permission_denied:manage_customer');
    expect((await call('POST', `/v1/bookings/${g.groupId}/cancel`, { key: admin.key, headers: idem(), body: {} })).status).toBe(200);
    expectEnvelope(await move(g.ids[b], at(1, '09:00'), at(1, '09:30')), 409, 'BOOKING_NOT_ACTIVE');
  });
});
