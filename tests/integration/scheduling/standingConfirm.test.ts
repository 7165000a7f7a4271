import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { auditLog, calendarEvents, calendars, claims, meetingClasses, owners } from '@/db/schema';
import type { AgentActor } from '@/server/domain/access';
import { confirmHold } from '@/server/domain/claims/holdConfirm';
import { createHold } from '@/server/domain/claims/holdService';
import { DomainError } from '@/server/domain/errors';
import { newId } from '@/server/domain/ids';
import { metrics } from '@/server/observability/metrics';
import { newAgent, newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { ALL_PERMISSIONS, call, nextWeekday, ownerIdOf, patchClaim, setupOwner } from './fixtures';

/**
 * docs/arbitration.md "Confirm: when the hold's decision stands". Every scenario runs on two
 * twin owners: on one the hold keeps the stamp of what its decision was taken on; on the
 * other the stamp is cleared, so its confirm arbitrates in full as every confirm did before
 * (today's answer). Both must answer the same; the decision counter
 * (scheduler_arbitrations_total) shows which confirms arbitrated.
 */
let admin: TestCustomer;
const TZ = 'UTC';
const mon = nextWeekday('mon', TZ);
const slot = { start: mon.at('09:00'), end: mon.at('10:00') };

beforeAll(async () => {
  admin = await newCustomer();
  await setupOwner(admin, { timeZone: TZ }); // the standard classes
});

async function confirmArbitrations(): Promise<number> {
  const { values } = await metrics().arbitrations.get();
  return values.filter((v) => v.labels.action === 'booking.confirm').reduce((n, v) => n + v.value, 0);
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** An answer without what differs between twins (ids, the owner's address). */
function normalized(res: { status: number; body: unknown }, owner: string) {
  const when = new Set(['created_at', 'updated_at', 'expires_at', 'createdAt', 'updatedAt', 'at', 'seq']); // times, and the agent's notification sequence
  const text = JSON.stringify(res.body).replace(UUID, '<id>').split(owner).join('<owner>');
  return { status: res.status, body: JSON.parse(text, (k, v: unknown) => (when.has(k) ? '<when>' : v)) };
}

const hold = (owner: string, body: Record<string, unknown> = { hold_scope: 'candidate', candidate: slot }, meetingClass = 'internal') =>
  call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: meetingClass, ttl_seconds: 3600, ...body } });
const confirm = (holdId: string, body: Record<string, unknown> = slot, key = admin.key) => call('POST', `/v1/bookings/${holdId}/confirm`, { key, body });

type Twin = { owner: string; ownerId: string; holdId: string };
/**
 * Make the two twins (same rules), a hold on each, `change` applied to both, and confirm
 * both; returns the two answers (stamped first) and the arbitrations each confirm ran.
 */
async function twins(opts: {
  setup?: Parameters<typeof setupOwner>[1];
  before?: (t: Omit<Twin, 'holdId'>) => Promise<void>;
  holdBody?: Record<string, unknown>;
  change?: (t: Twin) => Promise<void>;
  confirmBody?: Record<string, unknown>;
  confirmKey?: string;
}) {
  const out: { res: ApiResponse; arbitrations: number; owner: string }[] = [];
  for (const stamped of [true, false]) {
    const owner = await setupOwner(admin, { timeZone: TZ, ...opts.setup });
    const ownerId = await ownerIdOf(admin, owner);
    await opts.before?.({ owner, ownerId });
    const h = await hold(owner, opts.holdBody);
    expect(h.status, h.text).toBe(200);
    if (!stamped) await patchClaim(h.body.hold_id, { decidedRulesVersion: null, decidedClassVersion: null, decidedMirrorVersion: null });
    await opts.change?.({ owner, ownerId, holdId: h.body.hold_id });
    const before = await confirmArbitrations();
    const res = await confirm(h.body.hold_id, opts.confirmBody ?? slot, opts.confirmKey);
    out.push({ res, arbitrations: (await confirmArbitrations()) - before, owner });
  }
  const [a, b] = out;
  expect(normalized(a.res, a.owner)).toEqual(normalized(b.res, b.owner));
  expect(b.arbitrations).toBe(b.res.status === 200 || b.res.body?.error?.code === 'ARBITRATION_REJECTED' ? 1 : 0);
  return { stamped: a, today: b };
}

describe('nothing changed since the hold: the decision stands', () => {
  it('a candidate hold is promoted without arbitrating again, with the same answer, audit row and webhook event as a full decision', async () => {
    const { stamped, today } = await twins({ confirmBody: { ...slot, title: 'Kick-off', attendees: [{ email: 'guest@example.com' }] } });
    expect(stamped.res.status, stamped.res.text).toBe(200);
    expect(stamped.arbitrations).toBe(0);
    expect(today.arbitrations).toBe(1);
    const db = await getDb();
    const audits = await Promise.all(
      [stamped, today].map(async (t) => {
        const [row] = await db.select().from(auditLog).where(and(eq(auditLog.bookingId, t.res.body.booking_id), eq(auditLog.action, 'booking.confirm')));
        return normalized({ status: 0, body: { ...row, id: null, at: null } }, t.owner);
      }),
    );
    expect(audits[0]).toEqual(audits[1]);
    expect(audits[0].body).toMatchObject({ outcome: 'accept', preemptedBookingIds: [] });
    // The hold is promoted, naming its booking, in both.
    for (const t of [stamped, today]) {
      const [h] = await db.select().from(claims).where(eq(claims.id, t.res.body.hold_id));
      expect(h).toMatchObject({ status: 'promoted', promotedBookingId: t.res.body.booking_id });
    }
  });

  it('a window hold whose held window is its duration stands; the stamp is on the hold', async () => {
    const { stamped } = await twins({ holdBody: { hold_scope: 'window', window: slot, duration_minutes: 60 } });
    expect(stamped.res.status, stamped.res.text).toBe(200);
    expect(stamped.arbitrations).toBe(0);
  });

  it('an owner change that is not a rule (the name) and extending the hold change nothing', async () => {
    const { stamped } = await twins({
      change: async (t) => {
        await (await getDb()).update(owners).set({ name: 'Renamed' }).where(eq(owners.id, t.ownerId));
        expect((await call('POST', `/v1/holds/${t.holdId}/extend`, { key: admin.key, body: { ttl_seconds: 1200 } })).status).toBe(200);
      },
    });
    expect(stamped.res.status, stamped.res.text).toBe(200);
    expect(stamped.arbitrations).toBe(0);
  });
});

describe('an input changed since the hold: full arbitration, the same answer as before', () => {
  it('the owner’s daily limit lowered: MAX_DAILY_HOURS', async () => {
    const { stamped } = await twins({
      setup: { workingHours: { mon: [{ start: '09:00', end: '12:00' }] }, maxDailyMeetingHours: 2 },
      change: async (t) => {
        const r = await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: t.owner, working_hours: { mon: [{ start: '09:00', end: '12:00' }] }, max_daily_meeting_hours: 0.5 } });
        expect(r.status, r.text).toBe(200);
      },
    });
    expect(stamped.res.status).toBe(409);
    expect(stamped.res.body.error.reason).toBe('MAX_DAILY_HOURS');
    expect(stamped.arbitrations).toBe(1);
  });

  it('working hours moved away from the held time: refused with the same alternatives', async () => {
    const { stamped } = await twins({
      change: async (t) => {
        const afternoons = [{ start: '13:00', end: '17:00' }];
        const r = await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: t.owner, working_hours: { mon: afternoons, tue: afternoons }, max_daily_meeting_hours: null } });
        expect(r.status, r.text).toBe(200);
      },
    });
    expect(stamped.res.status).toBe(409);
    expect(stamped.arbitrations).toBe(1);
  });

  it('a hard block written straight into the owner row (a writer outside the service): refused', async () => {
    const { stamped } = await twins({
      change: async (t) => {
        await (await getDb()).update(owners).set({ hardBlocks: [{ days: ['mon'], start: '08:00', end: '11:00', label: 'x' }] }).where(eq(owners.id, t.ownerId));
      },
    });
    expect(stamped.res.status).toBe(409);
    expect(stamped.res.body.error.reason).toMatch(/NO_CAPACITY|COUNTER_PROPOSED/);
    expect(stamped.arbitrations).toBe(1);
  });

  it('the meeting class’s priority changed: arbitrated again (and accepted, as a full decision is)', async () => {
    const db = await getDb();
    const name = `cls-${newId().slice(-8)}`;
    expect((await call('POST', '/v1/meeting-classes', { key: admin.key, body: { name, priority: 20 } })).status).toBe(201);
    let priority = 20;
    const out: Awaited<ReturnType<typeof twins>>[] = [];
    const owners2: string[] = [];
    for (const stamped of [true, false]) {
      const owner = await setupOwner(admin, { timeZone: TZ });
      owners2.push(owner);
      const h = await hold(owner, undefined, name);
      expect(h.status, h.text).toBe(200);
      if (!stamped) await patchClaim(h.body.hold_id, { decidedRulesVersion: null, decidedClassVersion: null, decidedMirrorVersion: null });
      await db.update(meetingClasses).set({ priority: ++priority }).where(and(eq(meetingClasses.customerId, admin.customerId), eq(meetingClasses.name, name)));
      const before = await confirmArbitrations();
      const res = await confirm(h.body.hold_id);
      out.push({ stamped: { res, arbitrations: (await confirmArbitrations()) - before, owner }, today: undefined as never });
    }
    expect(normalized(out[0].stamped.res, owners2[0])).toEqual(normalized(out[1].stamped.res, owners2[1]));
    expect(out[0].stamped.res.status).toBe(200);
    expect(out[0].stamped.arbitrations).toBe(1);
  });

  it('the confirm names another meeting class: arbitrated again', async () => {
    const { stamped } = await twins({ confirmBody: { ...slot, meeting_class: 'external' } });
    expect(stamped.res.status, stamped.res.text).toBe(200);
    expect(stamped.arbitrations).toBe(1);
  });

  it('a provider event mirrored in over the held time: SACRED_MEETING', async () => {
    const db = await getDb();
    const calendarOf = new Map<string, string>();
    const { stamped } = await twins({
      before: async (t) => {
        const id = newId();
        calendarOf.set(t.ownerId, id);
        await db.insert(calendars).values({ id, customerId: admin.customerId, ownerId: t.ownerId, type: 'fake', displayName: 'Fake', status: 'active', lastSyncedAt: new Date() });
      },
      change: async (t) => {
        const [before] = await db.select({ v: owners.mirrorVersion }).from(owners).where(eq(owners.id, t.ownerId));
        await db.insert(calendarEvents).values({ id: newId(), calendarId: calendarOf.get(t.ownerId)!, ownerId: t.ownerId, resource: 'r1', uid: 'busy-1', startAt: new Date(mon.at('09:30')), endAt: new Date(mon.at('10:30')) });
        const [after] = await db.select({ v: owners.mirrorVersion }).from(owners).where(eq(owners.id, t.ownerId));
        expect(after.v).toBeGreaterThan(before.v);
      },
    });
    expect(stamped.res.status).toBe(409);
    expect(stamped.res.body.error.reason).toBe('SACRED_MEETING');
    expect(stamped.arbitrations).toBe(1);
  });

  it('a provider calendar connected since the hold: arbitrated again', async () => {
    const db = await getDb();
    const { stamped } = await twins({
      change: async (t) => {
        await db.insert(calendars).values({ id: newId(), customerId: admin.customerId, ownerId: t.ownerId, type: 'fake', displayName: 'Fake', status: 'active', lastSyncedAt: new Date() });
      },
    });
    expect(stamped.res.status, stamped.res.text).toBe(200);
    expect(stamped.arbitrations).toBe(1);
  });

  it('the hold was preempted: HOLD_NOT_ACTIVE, no decision at all', async () => {
    const { stamped } = await twins({
      change: async (t) => {
        const b = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: t.owner, meeting_class: 'external', ...slot } });
        expect(b.status, b.text).toBe(201);
      },
    });
    expect(stamped.res.status).toBe(409);
    expect(stamped.res.body.error.code).toBe('HOLD_NOT_ACTIVE');
    expect(stamped.arbitrations).toBe(0);
  });

  it('a window hold confirmed at a slot inside a longer held window: arbitrated again', async () => {
    const { stamped } = await twins({
      holdBody: { hold_scope: 'window', window: { start: mon.at('09:00'), end: mon.at('11:00') }, duration_minutes: 60 },
      confirmBody: { start: mon.at('09:30'), end: mon.at('10:30') },
    });
    expect(stamped.res.status, stamped.res.text).toBe(200);
    expect(stamped.arbitrations).toBe(1);
  });

  it('another agent of the customer confirms: arbitrated again', async () => {
    const other = await newAgent(admin, ['create_holds', 'create_bookings', 'read_availability']);
    const { stamped } = await twins({ confirmKey: other.key });
    expect(stamped.res.status, stamped.res.text).toBe(200);
    expect(stamped.arbitrations).toBe(1);
  });
});

describe('the clock', () => {
  const actor = (): AgentActor => ({ kind: 'agent', agentId: admin.agentId, customerId: admin.customerId, keyId: 'test', ownerScope: 'org:*', permissions: ALL_PERMISSIONS });
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => 'accepted',
      (err: unknown) => (err instanceof DomainError ? `${err.code}:${err.reason ?? ''}` : String(err)),
    );

  async function clockTwins(setup: (ownerId: string) => Promise<void>, confirmAt: Date, holdAt: Date): Promise<string[]> {
    const db = await getDb();
    const answers: string[] = [];
    for (const stamped of [true, false]) {
      const owner = await setupOwner(admin, { timeZone: TZ, workingHours: null });
      const ownerId = await ownerIdOf(admin, owner);
      const h = await createHold(db, actor(), { ownerEmail: owner, meetingClass: 'internal', scope: 'candidate', candidate: { start: new Date(slot.start), end: new Date(slot.end) }, ttlSeconds: 3600 }, holdAt, null);
      if (!stamped) await patchClaim(h.hold_id, { decidedRulesVersion: null, decidedClassVersion: null, decidedMirrorVersion: null });
      await setup(ownerId);
      const before = await confirmArbitrations();
      answers.push(await outcome(confirmHold(db, actor(), h.hold_id, { start: new Date(slot.start), end: new Date(slot.end) }, confirmAt, null)));
      answers.push(String((await confirmArbitrations()) - before));
    }
    return answers;
  }

  it('a slot whose start has passed by the confirm: PAST_TIME, as before', async () => {
    const start = new Date(slot.start).getTime();
    const answers = await clockTwins(async () => {}, new Date(start + 60_000), new Date(start - 10 * 60_000));
    expect(answers[0]).toBe(answers[2]);
    expect(answers[0]).toMatch(/PAST_TIME/);
    expect(answers[1]).toBe('1');
  });

  it('a provider mirror grown too old by the confirm fails closed though its version is unchanged: CALENDAR_UNAVAILABLE', async () => {
    const db = await getDb();
    const start = new Date(slot.start).getTime();
    const holdAt = new Date(start - 60 * 60_000);
    const confirmAt = new Date(start - 10 * 60_000);
    const answers = await clockTwins(
      async () => {},
      confirmAt,
      holdAt,
    ).catch((e: unknown) => [String(e)]);
    // No provider calendar: the clock alone (before the start) changes nothing, the decision stands.
    expect(answers).toEqual(['accepted', '0', 'accepted', '1']);
    const stale: string[] = [];
    for (const stamped of [true, false]) {
      const owner = await setupOwner(admin, { timeZone: TZ, workingHours: null });
      const ownerId = await ownerIdOf(admin, owner);
      // Synced when the hold is made; not since (last_synced_at is sync bookkeeping, not a version).
      await db.insert(calendars).values({ id: newId(), customerId: admin.customerId, ownerId, type: 'fake', displayName: 'Fake', status: 'active', lastSyncedAt: holdAt });
      const h = await createHold(db, actor(), { ownerEmail: owner, meetingClass: 'internal', scope: 'candidate', candidate: { start: new Date(slot.start), end: new Date(slot.end) }, ttlSeconds: 7200 }, holdAt, null);
      if (!stamped) await patchClaim(h.hold_id, { decidedRulesVersion: null, decidedClassVersion: null, decidedMirrorVersion: null });
      stale.push(await outcome(confirmHold(db, actor(), h.hold_id, { start: new Date(slot.start), end: new Date(slot.end) }, confirmAt, null)));
    }
    expect(stale[0]).toBe(stale[1]);
    expect(stale[0]).toMatch(/CALENDAR_UNAVAILABLE/);
  });
});

describe('the reads a standing confirm leaves out', () => {
  it('with the stamp current, the claims around and the busy instances are not read; a confirm that arbitrates after all reads them itself', async () => {
    const { loadConfirmAround } = await import('@/server/domain/claims/claimTarget');
    const db = await getDb();
    const owner = await setupOwner(admin, { timeZone: TZ });
    const h = await hold(owner, { hold_scope: 'window', window: { start: mon.at('09:00'), end: mon.at('11:00') }, duration_minutes: 60 });
    expect(h.status, h.text).toBe(200);
    const ref = { customerId: admin.customerId, holdId: h.body.hold_id };
    const read = (at: string) => db.transaction((tx) => loadConfirmAround(tx, ref, new Date(at), new Date(mon.at('10:30')), new Date()));
    expect(await read(mon.at('09:30'))).toEqual({ around: [], read: false });
    // The slot is not the held range: arbitrated, on the claims it read again (the hold is set aside, the rest weighed).
    const other = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: mon.at('11:00'), end: mon.at('11:30') } });
    expect(other.status, other.text).toBe(201);
    const before = await confirmArbitrations();
    const res = await confirm(h.body.hold_id, { start: mon.at('09:30'), end: mon.at('10:30') });
    expect(res.status, res.text).toBe(200);
    expect((await confirmArbitrations()) - before).toBe(1);
    // A stale stamp: everything is read.
    const h2 = await hold(owner, { hold_scope: 'candidate', candidate: { start: mon.at('13:00'), end: mon.at('14:00') } });
    await patchClaim(h2.body.hold_id, { decidedRulesVersion: -1 });
    const full = await db.transaction((tx) => loadConfirmAround(tx, { customerId: admin.customerId, holdId: h2.body.hold_id }, new Date(mon.at('13:00')), new Date(mon.at('14:00')), new Date()));
    expect(full.read).toBe(true);
    expect(full.around.map((c) => c.id)).toEqual(expect.arrayContaining([h2.body.hold_id, res.body.booking_id, other.body.booking_id]));
  });
});
