import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { auditLog, claims } from '@/db/schema';
import { newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, everyDay, patchClaim, setupOwner } from './fixtures';

/**
 * Group holds and bookings (docs/groups.md, "Group holds and bookings"): owner_emails on
 * POST /v1/holds and /v1/bookings, all or none; confirm, cancel and release act on the whole
 * group; read-back, audit and notifications show the group. Runs on PGlite and PostgreSQL.
 */
let admin: TestCustomer;
let a: string;
let b: string;
let c: string;
const DAY = '2027-03-0'; // March 1-5 2027: Monday to Friday
const at = (d: number, hhmm: string) => `${DAY}${d}T${hhmm}:00.000Z`;
const idem = () => ({ 'Idempotency-Key': crypto.randomUUID() });

beforeAll(async () => {
  admin = await newCustomer();
  a = await setupOwner(admin, { workingHours: everyDay() });
  b = await setupOwner(admin, { workingHours: everyDay() });
  c = await setupOwner(admin, { workingHours: everyDay(), maxDailyMeetingHours: 1 });
});

const candidateHold = (owners: string[], start: string, end: string, cls = 'internal') =>
  call('POST', '/v1/holds', { key: admin.key, headers: idem(), body: { owner_emails: owners, meeting_class: cls, hold_scope: 'candidate', candidate: { start, end } } });
const book = (body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/bookings', { key, headers: idem(), body });
const active = async (owner: string) => (await claimsOf(admin, owner)).filter((x) => x.status === 'active' || x.status === 'confirmed');

describe('group holds', () => {
  it('a candidate hold for three owners: one hold each sharing group_id, read back with its members', async () => {
    const res = await candidateHold([a, b, c], at(1, '10:00'), at(1, '10:30'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.owner_email).toBe(a);
    expect(res.body.group_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.members.map((m: { owner_email: string }) => m.owner_email)).toEqual([a, b, c]);
    for (const m of res.body.members) expect(m).toMatchObject({ status: 'active', hold_id: expect.any(String) });
    const other = res.body.members[2].hold_id;
    const got = await call('GET', `/v1/holds/${other}`, { key: admin.key });
    expect(got.body).toMatchObject({ hold_id: other, owner_email: c, group_id: res.body.group_id });
    expect(got.body.members).toHaveLength(3);
    const list = await call('GET', `/v1/holds?owner_email=${encodeURIComponent(b)}`, { key: admin.key });
    expect(list.body.holds.find((h: { group_id?: string }) => h.group_id === res.body.group_id)?.members).toHaveLength(3);
    const rows = (await getDb()).select().from(claims).where(eq(claims.groupId, res.body.group_id));
    expect(await rows).toHaveLength(3);
    // Audit: one accepted hold.create row per owner, all naming the group.
    const audit = await (await getDb()).select().from(auditLog).where(sql`${auditLog.details}->>'group_id' = ${res.body.group_id}`);
    expect(audit.map((r) => r.ownerEmail).sort()).toEqual([a, b, c].sort());
    expect(new Set(audit.map((r) => r.outcome))).toEqual(new Set(['accept']));
  });

  it('refused when one owner refuses: no member is held, the refusal names that owner and offers slots every owner accepts', async () => {
    const blocker = await book({ owner_email: b, meeting_class: 'external', start: at(2, '10:00'), end: at(2, '11:00') });
    expect(blocker.status, blocker.text).toBe(201);
    const beforeA = (await active(a)).length;
    const res = await candidateHold([a, b], at(2, '10:00'), at(2, '10:30'));
    expect(res.status, res.text).toBe(409);
    expect(res.body.error.code).toBe('ARBITRATION_REJECTED');
    expect(res.body.owners).toEqual([{ owner_email: b, reason: 'NO_CAPACITY', conflicts: [expect.objectContaining({ kind: 'booking' })] }]);
    expect(res.body.alternatives.length).toBeGreaterThan(0);
    for (const alt of res.body.alternatives) {
      // Each alternative is accepted by both: a group hold on it succeeds (then released).
      const ok = await candidateHold([a, b], alt.start, alt.end);
      expect(ok.status, ok.text).toBe(200);
      const released = await call('DELETE', `/v1/holds/${ok.body.group_id}`, { key: admin.key });
      expect(released.status, released.text).toBe(200);
      expect(released.body.members.map((m: { status: string }) => m.status)).toEqual(['released', 'released']);
      break;
    }
    expect((await active(a)).length).toBe(beforeA);
  });

  it('a window hold takes the earliest stretch free for every owner; all_free holds every common stretch', async () => {
    expect((await book({ owner_email: a, meeting_class: 'internal', start: at(3, '09:00'), end: at(3, '10:00') })).status).toBe(201);
    expect((await book({ owner_email: b, meeting_class: 'internal', start: at(3, '10:00'), end: at(3, '11:00') })).status).toBe(201);
    const window = { start: at(3, '09:00'), end: at(3, '13:00') };
    const first = await call('POST', '/v1/holds', { key: admin.key, headers: idem(), body: { owner_emails: [a, b], meeting_class: 'internal', hold_scope: 'window', window, duration_minutes: 30 } });
    expect(first.status, first.text).toBe(200);
    expect(first.body.held_window).toMatchObject({ start: at(3, '11:00'), end: at(3, '13:00') });
    const rel = await call('DELETE', `/v1/holds/${first.body.members[1].hold_id}`, { key: admin.key });
    expect(rel.status, rel.text).toBe(200);
    const wide = { start: at(3, '09:00'), end: at(3, '17:00') };
    expect((await book({ owner_email: a, meeting_class: 'internal', start: at(3, '14:00'), end: at(3, '15:00') })).status).toBe(201);
    const all = await call('POST', '/v1/holds', { key: admin.key, headers: idem(), body: { owner_emails: [a, b], meeting_class: 'internal', hold_scope: 'window', window: wide, duration_minutes: 30, coverage: 'all_free' } });
    expect(all.status, all.text).toBe(200);
    expect(all.body.held_windows.map((w: { start: string; end: string }) => [w.start, w.end])).toEqual([
      [at(3, '11:00'), at(3, '14:00')],
      [at(3, '15:00'), at(3, '17:00')],
    ]);
    // Confirming the group inside one of the ranges books both owners and lets every range go.
    const confirmed = await call('POST', `/v1/bookings/${all.body.group_id}/confirm`, { key: admin.key, headers: idem(), body: { start: at(3, '15:00'), end: at(3, '15:30') } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.members.map((m: { status: string }) => m.status)).toEqual(['confirmed', 'confirmed']);
    const holdsLeft = (await active(a)).concat(await active(b)).filter((x) => x.kind === 'hold' && x.groupId === all.body.group_id);
    expect(holdsLeft).toEqual([]);
  });

  it('no stretch free for every owner: NO_SLOTS_AVAILABLE naming the owners', async () => {
    expect((await book({ owner_email: a, meeting_class: 'internal', start: at(4, '09:00'), end: at(4, '10:00') })).status).toBe(201);
    const res = await call('POST', '/v1/holds', {
      key: admin.key,
      headers: idem(),
      body: { owner_emails: [a, b], meeting_class: 'internal', hold_scope: 'window', window: { start: at(4, '09:00'), end: at(4, '10:00') }, duration_minutes: 30 },
    });
    expect(res.status, res.text).toBe(409);
    expect(res.body.error.code).toBe('NO_SLOTS_AVAILABLE');
    expect(res.body.owners).toEqual([{ owner_email: a, reason: 'NO_FREE_SLOTS' }]);
    // as a one-owner refusal: the next slot that suits both (no longer null)
    expect(res.body.next_available).toMatchObject({ start: at(4, '10:00'), end: at(4, '10:30') });
  });

  it('a refused window hold offers next_available: the next slot every owner has free, never one that would preempt', async () => {
    const d = await setupOwner(admin, { workingHours: everyDay() });
    const e = await setupOwner(admin, { workingHours: everyDay() });
    // Each has a free half hour in the window, never the same one.
    expect((await book({ owner_email: d, meeting_class: 'internal', start: at(4, '09:00'), end: at(4, '09:30') })).status).toBe(201);
    expect((await book({ owner_email: e, meeting_class: 'internal', start: at(4, '09:30'), end: at(4, '10:00') })).status).toBe(201);
    // A lower-priority claim right after: an external booking could preempt it, a window hold takes free time only.
    expect((await book({ owner_email: d, meeting_class: 'focus', start: at(4, '10:00'), end: at(4, '10:30') })).status).toBe(201);
    const res = await call('POST', '/v1/holds', {
      key: admin.key,
      headers: idem(),
      body: { owner_emails: [d, e], meeting_class: 'external', hold_scope: 'window', window: { start: at(4, '09:00'), end: at(4, '10:00') }, duration_minutes: 30 },
    });
    expect(res.status, res.text).toBe(409);
    expect(res.body.error.code).toBe('NO_SLOTS_AVAILABLE');
    expect(res.body.owners).toEqual([
      { owner_email: d, reason: 'NO_COMMON_FREE_TIME' },
      { owner_email: e, reason: 'NO_COMMON_FREE_TIME' },
    ]);
    expect(res.body.next_available).toMatchObject({ start: at(4, '10:30'), end: at(4, '11:00'), start_local: '2027-03-04T10:30:00+00:00' });
    // The slot offered is one the group can hold.
    const taken = await call('POST', '/v1/holds', { key: admin.key, headers: idem(), body: { owner_emails: [d, e], meeting_class: 'external', hold_scope: 'window', window: { start: res.body.next_available.start, end: res.body.next_available.end }, duration_minutes: 30 } });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.held_window).toMatchObject({ start: at(4, '10:30'), end: at(4, '11:00') });
  });

  it('confirm by a member id promotes every member; a second confirm answers HOLD_ALREADY_PROMOTED', async () => {
    const hold = await candidateHold([a, b], at(5, '09:00'), at(5, '09:30'));
    expect(hold.status, hold.text).toBe(200);
    const slot = { start: at(5, '09:00'), end: at(5, '09:30') };
    const res = await call('POST', `/v1/bookings/${hold.body.members[1].hold_id}/confirm`, { key: admin.key, headers: idem(), body: slot });
    expect(res.status, res.text).toBe(200);
    expect(res.body.group_id).toBe(hold.body.group_id);
    expect(res.body.members.map((m: { owner_email: string }) => m.owner_email).sort()).toEqual([a, b].sort());
    expect(res.body.members.map((m: { status: string }) => m.status)).toEqual(['confirmed', 'confirmed']);
    const again = await call('POST', `/v1/bookings/${hold.body.group_id}/confirm`, { key: admin.key, headers: idem(), body: slot });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.code).toBe('HOLD_ALREADY_PROMOTED');
    const held = await call('GET', `/v1/holds/${hold.body.hold_id}`, { key: admin.key });
    expect(held.body.status).toBe('promoted');
  });
});

describe('group bookings', () => {
  it('book, read back, cancel by group_id: all members cancelled, one audit row per owner', async () => {
    const res = await book({ owner_emails: [a, b], meeting_class: 'internal', start: at(1, '13:00'), end: at(1, '13:30'), title: 'Trio' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.members).toHaveLength(2);
    const other = res.body.members.find((m: { owner_email: string }) => m.owner_email === b).booking_id;
    const got = await call('GET', `/v1/bookings/${other}`, { key: admin.key });
    expect(got.body).toMatchObject({ booking_id: other, group_id: res.body.group_id, title: 'Trio' });
    const cancelled = await call('POST', `/v1/bookings/${res.body.group_id}/cancel`, { key: admin.key, headers: idem(), body: { reason: 'moved' } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.members.map((m: { status: string }) => m.status)).toEqual(['cancelled', 'cancelled']);
    const audit = await (await getDb()).select().from(auditLog).where(sql`${auditLog.details}->>'group_id' = ${res.body.group_id} and ${auditLog.action} = 'booking.cancel'`);
    expect(audit).toHaveLength(2);
    const twice = await call('POST', `/v1/bookings/${other}/cancel`, { key: admin.key, headers: idem(), body: {} });
    expect(twice.body.error?.code).toBe('BOOKING_NOT_ACTIVE');
  });

  it("each owner's own rules: the daily limit of one owner refuses the group", async () => {
    expect((await book({ owner_email: c, meeting_class: 'internal', start: at(2, '14:00'), end: at(2, '15:00') })).status).toBe(201);
    const res = await book({ owner_emails: [a, c], meeting_class: 'internal', start: at(2, '15:00'), end: at(2, '15:30') });
    expect(res.status, res.text).toBe(409);
    expect(res.body.owners).toEqual([expect.objectContaining({ owner_email: c, reason: 'MAX_DAILY_HOURS' })]);
  });

  it('the same Idempotency-Key replays the same group', async () => {
    const headers = idem();
    const body = { owner_emails: [a, b], meeting_class: 'internal', start: at(4, '13:00'), end: at(4, '13:30') };
    const first = await call('POST', '/v1/bookings', { key: admin.key, headers, body });
    const second = await call('POST', '/v1/bookings', { key: admin.key, headers, body });
    expect(first.status, first.text).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.group_id).toBe(first.body.group_id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('preempting one member preempts the whole group; its agent hears once, with every member', async () => {
    const agent = await newAgent(admin, ['create_bookings', 'create_holds', 'read_availability']);
    const low = await book({ owner_emails: [a, b], meeting_class: 'focus', start: at(5, '13:00'), end: at(5, '14:00') }, agent.key);
    expect(low.status, low.text).toBe(201);
    await call('GET', '/v1/notifications', { key: agent.key });
    const high = await book({ owner_email: a, meeting_class: 'external', start: at(5, '13:00'), end: at(5, '13:30') });
    expect(high.status, high.text).toBe(201);
    const bMember = low.body.members.find((m: { owner_email: string }) => m.owner_email === b).booking_id;
    const got = await call('GET', `/v1/bookings/${bMember}`, { key: admin.key });
    expect(got.body.status).toBe('preempted');
    expect(got.body.members.map((m: { status: string }) => m.status)).toEqual(['preempted', 'preempted']);
    const notes = await call('GET', '/v1/notifications', { key: agent.key });
    const preempted = notes.body.notifications.filter((n: { kind: string }) => n.kind === 'booking.preempted');
    expect(preempted).toHaveLength(1);
    expect(preempted[0].data).toMatchObject({ group_id: low.body.group_id, claim_kind: 'booking' });
    expect(preempted[0].data.members.map((m: { owner_email: string }) => m.owner_email).sort()).toEqual([a, b].sort());
  });

  it('a sacred member protects the group at its owner: the higher-priority claim there is refused, the group stays whole', async () => {
    const group = await book({ owner_emails: [a, b], meeting_class: 'focus', start: at(4, '15:00'), end: at(4, '16:00') });
    expect(group.status, group.text).toBe(201);
    const bMember = group.body.members.find((m: { owner_email: string }) => m.owner_email === b).booking_id;
    await patchClaim(bMember, { createdAt: new Date(Date.now() - 48 * 3_600_000) }); // older than the class's 24 h: sacred
    const refused = await book({ owner_email: b, meeting_class: 'external', start: at(4, '15:00'), end: at(4, '15:30') });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.reason === 'SACRED_MEETING' || refused.body.conflicts?.some((x: { sacred?: boolean }) => x.sacred)).toBe(true);
    const got = await call('GET', `/v1/bookings/${bMember}`, { key: admin.key });
    expect(got.body.members.map((m: { status: string }) => m.status)).toEqual(['confirmed', 'confirmed']);
  });

  it('validation and permissions: one owner, both fields, or an owner outside the scope', async () => {
    const one = await book({ owner_emails: [a, a.toUpperCase()], meeting_class: 'internal', start: at(1, '15:00'), end: at(1, '15:30') });
    expect(one.status, one.text).toBe(400);
    const both = await book({ owner_email: a, owner_emails: [a, b], meeting_class: 'internal', start: at(1, '15:00'), end: at(1, '15:30') });
    expect(both.status, both.text).toBe(400);
    const scoped = await newAgent(admin, ['create_bookings'], `user:${a}`);
    const denied = await book({ owner_emails: [a, b], meeting_class: 'internal', start: at(1, '15:00'), end: at(1, '15:30') }, scoped.key);
    expect(denied.status, denied.text).toBe(403);
    expect(denied.body.error.code).toBe('owner_scope_denied');
    expect((await active(a)).filter((x) => x.startAt.toISOString() === at(1, '15:00'))).toEqual([]);
  });
});
