import { beforeAll, describe, expect, it } from 'vitest';
import { and, asc, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import { getDb, type Executor } from '@/server/db';
import { insertAudit, insertAuditRows } from '@/db/hot/audit';
import { claimFactsAround, claimIdMadeWithKey, searchFactsOfOwners, claimRow, expireHolds, insertClaim, promoteHold, releaseHoldParts, type NewClaim } from '@/db/hot/claims';
import { completeKeyRecord, IDEMPOTENCY_RETENTION_MS, insertKeyRecord } from '@/db/hot/idempotency';
import { providerBusyFacts } from '@/db/hot/mirror';
import { loadTargetRow, pickCalendar } from '@/db/hot/target';
import { apiKeyByHash, drainNotificationRows, providerCalendarRows } from '@/db/hot/access';
import { lockHoldsForConfirm } from '@/db/hot/holds';
import { agents, apiKeys, auditLog, calendarEvents, calendars, claims, idempotencyRecords, meetingClasses, notifications, owners } from '@/db/schema';
import { hashSecret, newId } from '@/server/domain/ids';
import { createOwner } from '@/server/domain/ownerService';
import { uniqueEmail, type TestCustomer } from '../../helpers/app';
import { bookingRow, hotWorld } from './hotWorld';

/**
 * Every hand-written statement under db/hot answers what the Drizzle query builder answers
 * for the same question (docs/architecture.md, "Where SQL lives"): rows read back through
 * Drizzle equal the rows the hot statements wrote or returned, and the hot look-ups return
 * what the equivalent Drizzle queries return.
 */
let admin: TestCustomer;
let owner: { id: string; email: string };
let classId: string;
const CLASS = `hot-${newId().slice(-6)}`;
const T = (h: number, m = 0) => new Date(Date.UTC(2032, 2, 4, h, m));

beforeAll(async () => {
  ({ admin, owner, classId } = await hotWorld(CLASS, { sacredMeetingAgeHours: 12 }));
});

const claim = (over: Partial<NewClaim> & { startAt: Date; endAt: Date }): NewClaim => bookingRow({ admin, owner, classId }, over);

async function drizzleClaim(db: Executor, id: string) {
  const [row] = await db.select().from(claims).where(eq(claims.id, id));
  return row;
}

/** The calendar choice as a Drizzle query: the reference for db/hot/target.ts's calendarPick. */
async function drizzleCalendar(db: Executor, ownerId: string, type: string | undefined) {
  const [row] = await db
    .select()
    .from(calendars)
    .where(and(eq(calendars.ownerId, ownerId), ne(calendars.status, 'disconnected'), type ? eq(calendars.type, type) : eq(calendars.isPrimary, true)))
    .orderBy(sql`${calendars.isPrimary} desc`, sql`(${calendars.status} = 'active') desc`, asc(calendars.createdAt))
    .limit(1);
  if (!row) return undefined;
  const { credentials: _omitted, ...rest } = row;
  return rest;
}

describe('hand-written statements equal their Drizzle equivalents', () => {
  it('INSERT_CLAIM: a full hold and a minimal booking read back as claimRow says (schema defaults included)', async () => {
    const db = await getDb();
    const hold = claim({
      kind: 'hold',
      status: 'active',
      startAt: T(8),
      endAt: T(10),
      holdScope: 'window',
      durationMinutes: 30,
      expiresAt: T(7),
      calendarId: null,
      meetingClassId: classId,
      title: 't',
      description: 'd',
      attendees: [{ email: 'a@example.com', name: 'A', response: 'accepted' }],
      externalAccepted: true,
      idempotencyKey: 'k1',
      statusReason: 'why',
    });
    const minimal = claim({ startAt: T(11), endAt: T(12) });
    await insertClaim(db, hold);
    await insertClaim(db, minimal);
    expect(await drizzleClaim(db, hold.id)).toEqual(claimRow(hold));
    expect(await drizzleClaim(db, minimal.id)).toEqual(claimRow(minimal));
    expect(claimRow(minimal)).toMatchObject({ source: 'agent', attendees: [], externalAccepted: false, holdScope: null });
  });

  it('AROUND and AROUND_BY_EMAIL: the active claims overlapping a range, as Drizzle selects them', async () => {
    const db = await getDb();
    const inRange = claim({ startAt: T(13), endAt: T(14), meetingClassId: classId, bufferBeforeMinutes: 10, bufferAfterMinutes: 25 });
    const cancelled = claim({ startAt: T(13, 30), endAt: T(14, 30), status: 'cancelled' });
    const touching = claim({ startAt: T(15), endAt: T(16) }); // [15, 16) does not overlap [13, 15)
    for (const c of [inRange, cancelled, touching]) await insertClaim(db, c);
    const from = T(13);
    const to = T(15);
    const expected = (
      await db
        .select({ c: claims, priority: meetingClasses.priority, sacredAge: meetingClasses.sacredMeetingAgeHours, className: meetingClasses.name, onPreempted: meetingClasses.onPreempted })
        .from(claims)
        .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
        .where(and(eq(claims.ownerId, owner.id), inArray(claims.status, ['active', 'confirmed']), sql`tstzrange(${claims.startAt}, ${claims.endAt}, '[)') && tstzrange(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz, '[)')`))
    ).map(({ c, priority, sacredAge, className, onPreempted }) => ({
      id: c.id,
      kind: c.kind,
      agent_id: c.agentId,
      start_ms: c.startAt.getTime(),
      end_ms: c.endAt.getTime(),
      hold_scope: c.holdScope,
      duration_minutes: c.durationMinutes,
      expires_ms: c.expiresAt?.getTime() ?? null,
      created_ms: c.createdAt.getTime(),
      external_accepted: c.externalAccepted,
      source: c.source,
      priority,
      sacred_age: sacredAge,
      meeting_class: className,
      coverage: c.coverage,
      part_of_hold_id: c.partOfHoldId,
      group_id: c.groupId,
      buffer_before: c.bufferBeforeMinutes,
      buffer_after: c.bufferAfterMinutes,
      on_preempted: onPreempted,
    }));
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(expected.map((c) => c.id)).toContain(inRange.id);
    expect((await claimFactsAround(db, owner.id, from, to)).sort(byId)).toEqual(expected.sort(byId));
    expect((await claimFactsAround(db, { customerId: admin.customerId, email: owner.email }, from, to)).sort(byId)).toEqual(expected);
    // AROUND_BY_HOLD: the owner named by one of its holds (a confirm's pipeline); another customer's hold names no one.
    const held = claim({ kind: 'hold', status: 'active', startAt: T(22), endAt: T(22, 30), holdScope: 'candidate', expiresAt: T(23) });
    await insertClaim(db, held);
    expect((await claimFactsAround(db, { customerId: admin.customerId, holdId: held.id }, from, to)).sort(byId)).toEqual(expected);
    expect(await claimFactsAround(db, { customerId: newId(), holdId: held.id }, from, to)).toEqual([]);
  });

  it('SEARCH_FACTS_OF_OWNERS: per owner, what AROUND reads less the agent, class name, group and on_preempted', async () => {
    const db = await getDb();
    const D = (h: number, m = 0) => new Date(Date.UTC(2032, 5, 9, h, m));
    const other = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
    const empty = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
    const window = claim({ kind: 'hold', status: 'active', startAt: D(9), endAt: D(12), holdScope: 'window', durationMinutes: 45, expiresAt: D(8), meetingClassId: classId, agentId: admin.agentId });
    const allFree = claim({ kind: 'hold', status: 'active', startAt: D(12), endAt: D(12, 30), holdScope: 'window', coverage: 'all_free', durationMinutes: 90, expiresAt: D(20), meetingClassId: classId, groupId: newId() });
    const part = claim({ kind: 'hold', status: 'active', startAt: D(13), endAt: D(14), holdScope: 'window', durationMinutes: 90, coverage: 'all_free', partOfHoldId: allFree.id, meetingClassId: classId, expiresAt: D(20) });
    const accepted = claim({ startAt: D(14), endAt: D(15), externalAccepted: true, meetingClassId: classId, bufferBeforeMinutes: 5, bufferAfterMinutes: 15 });
    const imported = claim({ startAt: D(15), endAt: D(16), source: 'provider' });
    const ofOther = { ...claim({ startAt: D(10), endAt: D(11), meetingClassId: classId, source: 'public' }), ownerId: other.id };
    const outside = claim({ startAt: D(20), endAt: D(21) });
    for (const c of [window, allFree, part, accepted, imported, ofOther, outside]) await insertClaim(db, c);
    // Instants with microseconds read as the same doubles both ways.
    await db.update(claims).set({ createdAt: sql`${claims.createdAt} + interval '123457 microseconds'` }).where(eq(claims.id, accepted.id));
    const from = D(8);
    const to = D(18);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    const searchOf = async (id: string) => (await claimFactsAround(db, id, from, to)).map(({ agent_id: _a, meeting_class: _m, group_id: _g, on_preempted: _p, ...rest }) => rest).sort(byId);
    const got = await searchFactsOfOwners(db, [owner.id, other.id, empty.id], from, to);
    expect([...got.keys()]).toEqual([owner.id, other.id, empty.id]);
    const mine = got.get(owner.id)!.sort(byId);
    expect(mine.map((c) => c.id).sort()).toEqual([window.id, allFree.id, part.id, accepted.id, imported.id].sort());
    // Each row as AROUND reads it (toMatchObject: the row also names its owner).
    expect(mine).toMatchObject(await searchOf(owner.id));
    expect(got.get(other.id)).toMatchObject(await searchOf(other.id));
    expect(got.get(empty.id)).toEqual([]);
    expect(mine.find((c) => c.id === accepted.id)!.created_ms % 1).not.toBe(0);
  });

  it('EXPIRE_BY_ID, EXPIRE_BY_EMAIL and EXPIRE_SWEEP: due active holds expired, returned as Drizzle reads them afterwards', async () => {
    const db = await getDb();
    const now = T(6);
    const hold = (h: number, expiresAt: Date) => claim({ kind: 'hold', status: 'active', startAt: T(h), endAt: T(h, 30), holdScope: 'candidate', expiresAt });
    const byId = hold(17, T(5));
    const notDue = hold(18, T(6, 1));
    await insertClaim(db, byId);
    await insertClaim(db, notDue);
    const pick = async (id: string) => {
      const r = await drizzleClaim(db, id);
      return { id: r.id, customerId: r.customerId, ownerId: r.ownerId, agentId: r.agentId, startAt: r.startAt, endAt: r.endAt, expiresAt: r.expiresAt, partOfHoldId: r.partOfHoldId };
    };
    expect(await db.transaction((tx) => expireHolds(tx, owner.id, now))).toEqual([await pick(byId.id)]);
    expect(await drizzleClaim(db, byId.id)).toMatchObject({ status: 'expired', statusReason: 'ttl_elapsed', updatedAt: now });
    expect((await drizzleClaim(db, notDue.id)).status).toBe('active');

    const byEmail = hold(19, T(5));
    await insertClaim(db, byEmail);
    expect(await db.transaction((tx) => expireHolds(tx, { customerId: admin.customerId, email: owner.email }, now))).toEqual([await pick(byEmail.id)]);

    const byHold = hold(21, T(5));
    await insertClaim(db, byHold);
    expect(await db.transaction((tx) => expireHolds(tx, { customerId: admin.customerId, holdId: notDue.id }, now))).toEqual([await pick(byHold.id)]);

    const swept = hold(20, T(5));
    await insertClaim(db, swept);
    const returned = await db.transaction((tx) => expireHolds(tx, null, now));
    expect(returned).toContainEqual(await pick(swept.id));
    expect(returned.map((r) => r.id)).not.toContain(notDue.id);
  });

  it('PROMOTE_HOLD: the hold reads back promoted to its booking', async () => {
    const db = await getDb();
    const hold = claim({ kind: 'hold', status: 'active', startAt: T(23), endAt: T(23, 30), holdScope: 'candidate', expiresAt: T(22) });
    await insertClaim(db, hold);
    // The booking the hold is promoted to (claims_promoted_booking_fk: it must exist).
    const booking = claim({ startAt: T(23, 30), endAt: T(23, 45), holdId: hold.id });
    await insertClaim(db, booking);
    const bookingId = booking.id;
    await promoteHold(db, hold.id, bookingId, T(0, 5));
    expect(await drizzleClaim(db, hold.id)).toEqual({ ...claimRow(hold), status: 'promoted', promotedBookingId: bookingId, updatedAt: T(0, 5) });
  });

  it('RELEASE_HOLD_PARTS: the active further ranges of an all_free hold, and nothing else, change status', async () => {
    const db = await getDb();
    const range = (m: number, over: Partial<NewClaim> = {}) =>
      claim({ kind: 'hold', status: 'active', startAt: T(2, m), endAt: T(2, m + 10), holdScope: 'window', durationMinutes: 10, coverage: 'all_free', expiresAt: T(22), ...over });
    const hold = range(0);
    const part = range(20, { partOfHoldId: hold.id });
    const other = range(40);
    for (const c of [hold, part, other]) await insertClaim(db, c);
    await releaseHoldParts(db, hold.id, 'released', 'released on confirm', T(0, 7));
    expect(await drizzleClaim(db, part.id)).toEqual({ ...claimRow(part), status: 'released', statusReason: 'released on confirm', updatedAt: T(0, 7) });
    expect((await drizzleClaim(db, hold.id)).status).toBe('active');
    expect((await drizzleClaim(db, other.id)).status).toBe('active');
  });

  it('MADE_WITH_KEY: the claim an agent made with a key while the key is retained', async () => {
    const db = await getDb();
    const now = new Date();
    const made = claim({ startAt: T(21), endAt: T(22), agentId: admin.agentId, idempotencyKey: `key-${newId()}`, createdAt: now });
    await insertClaim(db, made);
    const [expected] = await db
      .select({ id: claims.id })
      .from(claims)
      .where(and(eq(claims.agentId, admin.agentId), eq(claims.idempotencyKey, made.idempotencyKey!), eq(claims.kind, 'booking'), gt(claims.createdAt, new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS))));
    expect(await claimIdMadeWithKey(db, admin.agentId, made.idempotencyKey!, 'booking', now)).toBe(expected.id);
    expect(await claimIdMadeWithKey(db, admin.agentId, made.idempotencyKey!, 'hold', now)).toBeUndefined();
    expect(await claimIdMadeWithKey(db, admin.agentId, made.idempotencyKey!, 'booking', new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS))).toBeUndefined();
  });

  it('the target statement and pickCalendar: owner, calendar (the same choice as the Drizzle query) and meeting class', async () => {
    const db = await getDb();
    const o = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'Europe/Berlin' });
    const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));
    const cal = (type: string, status: 'active' | 'disconnected' | 'reauth_required', s: number) =>
      ({ id: newId(), customerId: admin.customerId, ownerId: o.id, type, status, credentials: { token: 'secret' }, createdAt: at(s), updatedAt: at(s) });
    await db.insert(calendars).values([cal('google', 'reauth_required', 1), cal('google', 'active', 2), cal('google', 'active', 3), cal('microsoft', 'disconnected', 4)]);
    const [ownerRow] = await db.select().from(owners).where(eq(owners.id, o.id));
    const { passwordHash: _omitted, ...expectedOwner } = ownerRow;
    const [expectedClass] = await db.select().from(meetingClasses).where(eq(meetingClasses.id, classId));

    for (const type of [undefined, 'google', 'microsoft', 'caldav']) {
      const expectedCalendar = await drizzleCalendar(db, o.id, type);
      expect(await pickCalendar(db, o.id, type)).toEqual(expectedCalendar);
      for (const lock of [false, true]) {
        const row = await db.transaction((tx) => loadTargetRow(tx, admin.customerId, { email: o.email, meetingClass: CLASS, calendarType: type }, lock));
        expect(row).toEqual({ owner: expectedOwner, calendar: expectedCalendar ?? null, meetingClass: expectedClass });
      }
    }
    expect(await loadTargetRow(db, admin.customerId, { email: o.email, meetingClass: 'no-such-class' }, false)).toMatchObject({ meetingClass: null });
    expect(await loadTargetRow(db, admin.customerId, { email: uniqueEmail(), meetingClass: CLASS }, false)).toBeUndefined();
  });

  it('INSERT_AUDIT: the audit row reads back as written', async () => {
    const db = await getDb();
    const row = {
      id: newId(),
      customerId: admin.customerId,
      at: T(1),
      agentId: admin.agentId,
      actorOwnerId: null,
      actorOwnerEmail: null,
      actorKind: 'agent' as const,
      actorRequesterEmail: null,
      ownerId: owner.id,
      ownerEmail: owner.email,
      action: 'booking.create',
      outcome: 'accept' as const,
      reason: null,
      meetingClass: CLASS,
      startAt: T(2),
      endAt: T(3),
      holdId: null,
      bookingId: newId(),
      preemptedBookingIds: [newId(), newId()],
      idempotencyKey: 'k',
      details: { nested: { a: [1, 'two'] } },
    };
    await insertAudit(db, row);
    const minimal = { id: newId(), customerId: admin.customerId, at: T(4), action: 'hold.create', outcome: 'reject' as const, actorKind: 'system' as const };
    await insertAudit(db, minimal);
    const read = async (id: string) => (await db.select().from(auditLog).where(eq(auditLog.id, id)))[0];
    expect(await read(row.id)).toEqual(row);
    expect(await read(minimal.id)).toEqual({
      ...minimal,
      agentId: null,
      actorOwnerId: null,
      actorOwnerEmail: null,
      actorRequesterEmail: null,
      ownerId: null,
      ownerEmail: null,
      reason: null,
      meetingClass: null,
      startAt: null,
      endAt: null,
      holdId: null,
      bookingId: null,
      preemptedBookingIds: [],
      idempotencyKey: null,
      details: null,
    });
  });

  it('CLAIM_KEY and COMPLETE_KEY: the idempotency record as Drizzle reads it', async () => {
    const db = await getDb();
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const claimKey = { id: newId(), agentId: admin.agentId, method: 'POST', path: '/v1/bookings', key: `hot-${newId()}`, fingerprint: 'fp', lockedUntil: new Date(now.getTime() + 30_000), now };
    expect(await insertKeyRecord(db, claimKey)).toBe(claimKey.id);
    expect(await insertKeyRecord(db, { ...claimKey, id: newId() }), 'the same key again').toBeUndefined();
    const read = async () => (await db.select().from(idempotencyRecords).where(eq(idempotencyRecords.id, claimKey.id)))[0];
    expect(await read()).toEqual({
      id: claimKey.id,
      agentId: claimKey.agentId,
      method: 'POST',
      path: '/v1/bookings',
      key: claimKey.key,
      fingerprint: 'fp',
      state: 'in_flight',
      lockedUntil: claimKey.lockedUntil,
      responseStatus: null,
      responseBody: null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    });
    await completeKeyRecord(db, claimKey.id, 201, '{"ok":true}');
    expect(await read()).toMatchObject({ state: 'done', lockedUntil: null, responseStatus: 201, responseBody: '{"ok":true}' });
  });

  it('PROVIDER_BUSY and PROVIDER_BUSY_BY_EMAIL: the provider calendars and the checked ones\' mirrored events in range, as Drizzle selects them', async () => {
    const db = await getDb();
    const o = await createOwner(db, admin.customerId, { email: uniqueEmail(), time_zone: 'UTC' });
    const cal = (type: string, status: 'active' | 'reauth_required' | 'disconnected', checkConflicts: boolean) => ({
      id: newId(),
      customerId: admin.customerId,
      ownerId: o.id,
      type,
      displayName: `${type} ${status}`,
      status,
      checkConflicts,
      lastSyncedAt: status === 'active' ? T(1) : null,
    });
    const checked = cal('caldav', 'active', true);
    const unchecked = cal('google', 'active', false);
    const reauth = cal('microsoft', 'reauth_required', true);
    const gone = cal('caldav', 'disconnected', true);
    await db.insert(calendars).values([checked, unchecked, reauth, gone]);
    const ev = (calendarId: string, s: number, e: number) => ({ id: newId(), calendarId, ownerId: o.id, resource: `r-${newId()}`, uid: `u-${newId()}`, startAt: T(s), endAt: T(e) });
    await db.insert(calendarEvents).values([ev(checked.id, 9, 10), ev(checked.id, 11, 13), ev(checked.id, 20, 21), ev(checked.id, 5, 8), ev(unchecked.id, 9, 10), ev(reauth.id, 10, 11), ev(gone.id, 9, 10)]);
    const from = T(8);
    const to = T(12);

    const expectedCalendars = await db
      .select({ id: calendars.id, type: calendars.type, displayName: calendars.displayName, status: calendars.status, checkConflicts: calendars.checkConflicts, lastSyncedAt: calendars.lastSyncedAt, ownerEmail: owners.email })
      .from(calendars)
      .innerJoin(owners, eq(owners.id, calendars.ownerId))
      .where(and(eq(owners.id, o.id), ne(calendars.type, 'internal'), ne(calendars.status, 'disconnected')));
    const checkedIds = expectedCalendars.filter((c) => c.checkConflicts).map((c) => c.id);
    const expectedEvents = (
      await db
        .select({ start: calendarEvents.startAt, end: calendarEvents.endAt })
        .from(calendarEvents)
        .where(and(inArray(calendarEvents.calendarId, checkedIds), lt(calendarEvents.startAt, to), gt(calendarEvents.endAt, from)))
    ).map((r) => ({ start: r.start.getTime(), end: r.end.getTime() }));
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    const byStart = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start - b.start || a.end - b.end;
    expect(expectedCalendars).toHaveLength(3);
    expect(expectedEvents.sort(byStart)).toEqual([
      { start: T(9).getTime(), end: T(10).getTime() },
      { start: T(10).getTime(), end: T(11).getTime() },
      { start: T(11).getTime(), end: T(13).getTime() },
    ]);
    const held = { id: newId(), customerId: admin.customerId, ownerId: o.id, kind: 'hold' as const, status: 'active' as const, startAt: T(30), endAt: T(30, 30), holdScope: 'candidate' as const, expiresAt: T(31), createdAt: T(0), updatedAt: T(0) };
    await insertClaim(db, held);
    for (const ref of [o.id, { customerId: admin.customerId, email: o.email }, { customerId: admin.customerId, holdId: held.id }]) {
      const facts = await providerBusyFacts(db, ref, from, to);
      expect(facts.calendars.sort(byId)).toEqual(expectedCalendars.sort(byId));
      expect(facts.events.sort(byStart)).toEqual(expectedEvents);
    }
    // An owner with only the internal calendar: nothing.
    expect(await providerBusyFacts(db, owner.id, from, to)).toEqual({ calendars: [], events: [] });
  });

  it('API_KEY_BY_HASH: the key and its agent as the Drizzle join reads them', async () => {
    const db = await getDb();
    const [ref] = await db
      .select({ keyId: apiKeys.id, revokedAt: apiKeys.revokedAt, lastUsedAt: apiKeys.lastUsedAt, agentId: agents.id, customerId: agents.customerId, ownerScope: agents.ownerScope, permissions: agents.permissions, disabled: agents.disabled })
      .from(apiKeys)
      .innerJoin(agents, eq(agents.id, apiKeys.agentId))
      .where(eq(apiKeys.keyHash, hashSecret(admin.key)));
    expect(ref).toBeDefined();
    // display_time_zone: the key's, else its agent's (docs/api.md "The caller's time zone").
    const read = (r: typeof ref, keyZone: string | null, agentZone: string | null) => ({ ...r, displayTimeZone: keyZone ?? agentZone });
    expect(await apiKeyByHash(db, hashSecret(admin.key))).toEqual(read(ref, null, null));
    await db.update(apiKeys).set({ revokedAt: T(1), lastUsedAt: T(2) }).where(eq(apiKeys.id, ref.keyId));
    await db.update(agents).set({ displayTimeZone: 'America/New_York' }).where(eq(agents.id, ref.agentId));
    expect(await apiKeyByHash(db, hashSecret(admin.key))).toEqual(read({ ...ref, revokedAt: T(1), lastUsedAt: T(2) }, null, 'America/New_York'));
    await db.update(apiKeys).set({ displayTimeZone: 'Asia/Tokyo' }).where(eq(apiKeys.id, ref.keyId));
    expect(await apiKeyByHash(db, hashSecret(admin.key))).toEqual(read({ ...ref, revokedAt: T(1), lastUsedAt: T(2) }, 'Asia/Tokyo', 'America/New_York'));
    await db.update(apiKeys).set({ revokedAt: null, lastUsedAt: ref.lastUsedAt, displayTimeZone: null }).where(eq(apiKeys.id, ref.keyId));
    await db.update(agents).set({ displayTimeZone: null }).where(eq(agents.id, ref.agentId));
    expect(await apiKeyByHash(db, hashSecret('ak_nothing'))).toBeUndefined();
  });

  it('PROVIDER_CALENDARS_BY_ID / _BY_EMAIL: the owner\'s connected calendars other than the internal one', async () => {
    const db = await getDb();
    const now = new Date();
    const id = newId();
    await db.insert(calendars).values({ id, customerId: admin.customerId, ownerId: owner.id, type: 'caldav', displayName: 'Work', status: 'active', checkConflicts: true, isPrimary: false, lastSyncedAt: T(3), createdAt: now, updatedAt: now } as typeof calendars.$inferInsert);
    const expected = [{ id, type: 'caldav', displayName: 'Work', status: 'active', checkConflicts: true, lastSyncedAt: T(3), ownerEmail: owner.email }];
    expect(await providerCalendarRows(db, owner.id)).toEqual(expected);
    expect(await providerCalendarRows(db, { customerId: admin.customerId, email: owner.email })).toEqual(expected);
    await db.update(calendars).set({ status: 'disconnected' }).where(eq(calendars.id, id));
    expect(await providerCalendarRows(db, owner.id)).toEqual([]);
  });

  it('DRAIN_NOTIFICATIONS: pending items delivered, as Drizzle reads them afterwards', async () => {
    const db = await getDb();
    const base = Date.now() - 60_000;
    const ids = [newId(), newId()];
    for (const [i, id] of ids.entries()) await db.insert(notifications).values({ id, customerId: admin.customerId, agentId: admin.agentId, kind: 'hold.expired', data: { hold_id: id, n: i }, createdAt: new Date(base + i) });
    const at = new Date();
    // UPDATE ... RETURNING has no order (drainNotifications sorts them).
    const drained = (await drainNotificationRows(db, admin.agentId, at, 50)).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    expect(drained.map((r) => r.id)).toEqual(ids);
    const after = await db.select().from(notifications).where(inArray(notifications.id, ids)).orderBy(asc(notifications.createdAt));
    expect(drained).toEqual(after);
    expect(after.every((r) => r.deliveredAt?.getTime() === at.getTime())).toBe(true);
    expect(await drainNotificationRows(db, admin.agentId, at, 50)).toEqual([]);
  });

  it('LOCK_HOLD_OWNERS and LOCK_HOLDS: a confirm reads the holds an id names, their owner, calendar and classes as Drizzle does', async () => {
    const db = await getDb();
    const target = await loadTargetRow(db, admin.customerId, { email: owner.email, meetingClass: CLASS }, false);
    const hold = claim({ kind: 'hold', status: 'active', startAt: T(20), endAt: T(21), holdScope: 'candidate', expiresAt: T(23), calendarId: target!.calendar!.id, meetingClassId: classId });
    await insertClaim(db, hold);
    const locked = await db.transaction((tx) => lockHoldsForConfirm(tx, hold.id, admin.customerId, undefined));
    expect(locked).toEqual([{ owner: target!.owner, hold: await drizzleClaim(db, hold.id), calendar: target!.calendar, holdClassName: CLASS, meetingClass: target!.meetingClass }]);
    const named = await db.transaction((tx) => lockHoldsForConfirm(tx, hold.id, admin.customerId, 'no-such-class'));
    expect(named.map((l) => l.meetingClass)).toEqual([null]);
    expect(await db.transaction((tx) => lockHoldsForConfirm(tx, newId(), admin.customerId, undefined))).toEqual([]);
    // A group hold: named by its group_id (no claim row has it) or by a member's id, every member; a further range only by its own id.
    const groupId = newId();
    const members = [T(30), T(32)].map((at, i) => claim({ kind: 'hold', status: 'active', startAt: at, endAt: T(31 + 2 * i), holdScope: 'candidate', expiresAt: T(40), calendarId: target!.calendar!.id, meetingClassId: classId, groupId }));
    for (const m of members) await insertClaim(db, m);
    const part = claim({ kind: 'hold', status: 'active', startAt: T(34), endAt: T(35), holdScope: 'window', expiresAt: T(40), calendarId: target!.calendar!.id, meetingClassId: classId, groupId, partOfHoldId: members[0].id });
    await insertClaim(db, part);
    const ids = (l: { hold: { id: string } }[]) => l.map((x) => x.hold.id).sort();
    expect(ids(await db.transaction((tx) => lockHoldsForConfirm(tx, groupId, admin.customerId, undefined)))).toEqual(members.map((m) => m.id).sort());
    expect(ids(await db.transaction((tx) => lockHoldsForConfirm(tx, members[1].id, admin.customerId, undefined)))).toEqual(members.map((m) => m.id).sort());
    expect(ids(await db.transaction((tx) => lockHoldsForConfirm(tx, part.id, admin.customerId, undefined)))).toEqual([part.id]);
  });

  it('insertAuditRows: several rows in one statement read back as written', async () => {
    const db = await getDb();
    const rows = [0, 1, 2].map((i) => ({ id: newId(), customerId: admin.customerId, at: T(5, i), agentId: admin.agentId, actorKind: 'agent' as const, ownerId: owner.id, ownerEmail: owner.email, action: 'booking.create', outcome: 'reject' as const, reason: 'NO_CAPACITY', details: { i } }));
    await insertAuditRows(db, rows);
    const back = await db.select().from(auditLog).where(inArray(auditLog.id, rows.map((r) => r.id))).orderBy(asc(auditLog.at));
    expect(back.map((r) => [r.id, r.at, r.details, r.preemptedBookingIds])).toEqual(rows.map((r) => [r.id, r.at, r.details, []]));
  });
});
