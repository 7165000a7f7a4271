import { beforeAll, describe, expect, it } from 'vitest';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, directAgents, nextWeekday, patchClaim, setupOwner } from './fixtures';

/**
 * Window holds with coverage all_free (docs/api.md "Holding a window whole"): every free stretch
 * of the window that fits the duration is held (one claim range each, under the exclusion
 * constraint), confirm picks a slot in any of them and releases the rest in the same transaction.
 */
let admin: TestCustomer;
let holder: string;
let other: string;
const TZ = 'Europe/Berlin';
beforeAll(async () => {
  admin = await newCustomer();
  const perms = ['read_availability', 'create_holds', 'create_bookings'] as const;
  [{ key: holder }, { key: other }] = await directAgents(admin, 2, [...perms]);
});

const active = (rows: Awaited<ReturnType<typeof claimsOf>>) => rows.filter((c) => c.status === 'active' || c.status === 'confirmed');

async function afternoon(day: ReturnType<typeof nextWeekday>, opts: { maxDailyMeetingHours?: number } = {}) {
  const owner = await setupOwner(admin, { timeZone: TZ, ...opts });
  const taken = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('14:00'), end: day.at('14:30') } });
  expect(taken.status, taken.text).toBe(201);
  const hold = await call('POST', '/v1/holds', {
    key: holder,
    body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', coverage: 'all_free', duration_minutes: 30, window: { start: day.at('13:00'), end: day.at('17:00') } },
  });
  expect(hold.status, hold.text).toBe(200);
  return { owner, hold: hold.body, taken: taken.body };
}

const book = (key: string, owner: string, start: string, end: string, meetingClass = 'internal') =>
  call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class: meetingClass, start, end } });

describe('coverage: all_free', () => {
  it('holds every free stretch (13:00-14:00 and 14:30-17:00 around a 14:00 booking) and blocks each against another agent', async () => {
    const day = nextWeekday('mon', TZ);
    const { owner, hold } = await afternoon(day);
    expect(hold).toMatchObject({
      hold_scope: 'window',
      coverage: 'all_free',
      duration_minutes: 30,
      held_window: { start: day.at('13:00'), end: day.at('14:00') },
      held_windows: [
        { start: day.at('13:00'), end: day.at('14:00'), start_local: `${day.date}T13:00:00+01:00`, end_local: `${day.date}T14:00:00+01:00` },
        { start: day.at('14:30'), end: day.at('17:00'), start_local: `${day.date}T14:30:00+01:00`, end_local: `${day.date}T17:00:00+01:00` },
      ],
    });
    // another agent: refused in each stretch, by booking, candidate hold and window hold alike
    for (const [s, e] of [['13:00', '13:30'], ['14:30', '15:00'], ['16:30', '17:00']]) {
      const r = await book(other, owner, day.at(s), day.at(e));
      expect(r.status, r.text).toBe(409);
      expect(r.body.conflicts).toEqual([{ kind: 'hold' }]);
    }
    const candidate = await call('POST', '/v1/holds', { key: other, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('15:00'), end: day.at('15:30') } } });
    expect(candidate.status, candidate.text).toBe(409);
    const window = await call('POST', '/v1/holds', { key: other, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('13:00'), end: day.at('17:00') } } });
    expect(window.status, window.text).toBe(409);
    expect(window.body.error.code).toBe('NO_SLOTS_AVAILABLE');

    // read back: GET by id and the list show the hold once, with its held windows
    const read = await call('GET', `/v1/holds/${hold.hold_id}`, { key: holder });
    expect(read.status, read.text).toBe(200);
    expect(read.body.held_windows).toEqual(hold.held_windows);
    const list = await call('GET', `/v1/holds?agent=me&owner_email=${encodeURIComponent(owner)}`, { key: holder });
    expect(list.status, list.text).toBe(200);
    expect(list.body.holds.map((h: { hold_id: string }) => h.hold_id)).toEqual([hold.hold_id]);
    expect(list.body.holds[0].held_windows).toEqual(hold.held_windows);
    // a further range's own id is no hold of its own
    const part = (await claimsOf(admin, owner)).find((c) => c.partOfHoldId === hold.hold_id)!;
    expect((await call('GET', `/v1/holds/${part.id}`, { key: holder })).status).toBe(404);
  });

  it('confirm at 15:00 succeeds and releases the other stretches in the same transaction; then 13:00 is bookable', async () => {
    const day = nextWeekday('tue', TZ);
    const { owner, hold } = await afternoon(day);
    const outside = await call('POST', `/v1/bookings/${hold.hold_id}/confirm`, { key: holder, body: { start: day.at('14:00'), end: day.at('14:30') } });
    expect(outside.status, outside.text).toBe(422);
    expect(outside.body).toMatchObject({ error: { code: 'SLOT_OUTSIDE_HOLD' }, held_windows: hold.held_windows });
    const confirmed = await call('POST', `/v1/bookings/${hold.hold_id}/confirm`, { key: holder, body: { start: day.at('15:00'), end: day.at('15:30') } });
    expect(confirmed.status, confirmed.text).toBe(200);
    const rows = await claimsOf(admin, owner);
    const parent = rows.find((c) => c.id === hold.hold_id)!;
    const parts = rows.filter((c) => c.partOfHoldId === hold.hold_id);
    expect(parent.status).toBe('promoted');
    expect(parts.map((p) => p.status)).toEqual(['released']);
    // the promotion and the release are one transaction: same instant on both rows
    expect(parts[0].updatedAt.getTime()).toBe(parent.updatedAt.getTime());
    expect(active(rows).map((c) => [c.kind, c.startAt.toISOString()]).sort()).toEqual(
      [
        ['booking', day.at('14:00')],
        ['booking', day.at('15:00')],
      ].sort(),
    );
    expect((await book(other, owner, day.at('13:00'), day.at('13:30'))).status).toBe(201);
    expect((await book(other, owner, day.at('16:00'), day.at('16:30'))).status).toBe(201);
    const read = await call('GET', `/v1/holds/${hold.hold_id}`, { key: holder });
    // read back, a promoted hold shows the booking it became: the rest of the window was released
    const booked = { start: confirmed.body.start, end: confirmed.body.end, start_local: confirmed.body.start_local, end_local: confirmed.body.end_local };
    expect(read.body).toMatchObject({ status: 'promoted', booking_id: confirmed.body.booking_id, held_window: booked, held_windows: [booked], start_local: booked.start_local, end_local: booked.end_local });
    const listed = await call('GET', `/v1/holds?owner_email=${encodeURIComponent(owner)}&status=promoted`, { key: holder });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.holds.find((h: { hold_id: string }) => h.hold_id === hold.hold_id)).toMatchObject({ held_windows: [booked], start_local: booked.start_local });
  });

  it("daily minutes count the hold's duration once, not per stretch", async () => {
    const day = nextWeekday('wed', TZ);
    // 1.5 h a day: the 14:00 booking (30) + the hold (30, once) leave exactly 30 minutes
    const { owner } = await afternoon(day, { maxDailyMeetingHours: 1.5 });
    const fits = await book(other, owner, day.at('09:00'), day.at('09:30'));
    expect(fits.status, fits.text).toBe(201);
    const over = await book(other, owner, day.at('10:00'), day.at('10:30'));
    expect(over.status, over.text).toBe(409);
    expect(['MAX_DAILY_HOURS', 'COUNTER_PROPOSED']).toContain(over.body.error.reason);
    expect(over.body.alternatives.map((a: { reason_code: string }) => a.reason_code)).toEqual(over.body.alternatives.map(() => 'daily_hours_limit'));
    // nothing left that day: every alternative lies on another day
    for (const a of over.body.alternatives) expect(a.start_local.slice(0, 10)).not.toBe(day.date.toString());
    expect(over.body.conflicts).toEqual([]);
  });

  it('release and expiry free every range; one hold.expired tells the holder', async () => {
    const day = nextWeekday('thu', TZ);
    const { owner, hold } = await afternoon(day);
    const released = await call('DELETE', `/v1/holds/${hold.hold_id}`, { key: holder });
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ status: 'released', held_windows: hold.held_windows });
    expect(active(await claimsOf(admin, owner))).toHaveLength(1);
    expect((await book(other, owner, day.at('16:00'), day.at('16:30'))).status).toBe(201);

    const day2 = nextWeekday('fri', TZ);
    const second = await afternoon(day2);
    await call('GET', '/v1/notifications', { key: holder }); // drain
    const past = new Date(Date.now() - 1000);
    for (const c of (await claimsOf(admin, second.owner)).filter((r) => r.id === second.hold.hold_id || r.partOfHoldId === second.hold.hold_id)) await patchClaim(c.id, { expiresAt: past });
    expect((await book(other, second.owner, day2.at('16:00'), day2.at('16:30'))).status).toBe(201);
    expect((await book(other, second.owner, day2.at('13:00'), day2.at('13:30'))).status).toBe(201);
    const rows = (await claimsOf(admin, second.owner)).filter((r) => r.kind === 'hold');
    expect(rows.map((r) => r.status)).toEqual(['expired', 'expired']);
    const notes = (await call('GET', '/v1/notifications', { key: holder })).body.notifications.filter((n: { kind: string }) => n.kind === 'hold.expired');
    expect(notes.map((n: { data: { hold_id: string } }) => n.data.hold_id)).toEqual([second.hold.hold_id]);
    const read = await call('GET', `/v1/holds/${second.hold.hold_id}`, { key: holder });
    expect(read.body.status).toBe('expired');
  });

  it('a higher-priority booking over one stretch preempts the whole hold, named once', async () => {
    const day = nextWeekday('mon', TZ, 2);
    const { owner, hold } = await afternoon(day);
    const high = await book(admin.key, owner, day.at('16:00'), day.at('16:30'), 'external');
    expect(high.status, high.text).toBe(201);
    expect(high.body.preempted_claims).toEqual([{ id: hold.hold_id, kind: 'hold' }]);
    const holdRows = (await claimsOf(admin, owner)).filter((r) => r.kind === 'hold');
    expect(holdRows.map((r) => r.status)).toEqual(['preempted', 'preempted']);
    expect((await book(other, owner, day.at('13:00'), day.at('13:30'))).status).toBe(201);
    const confirm = await call('POST', `/v1/bookings/${hold.hold_id}/confirm`, { key: holder, body: { start: day.at('15:00'), end: day.at('15:30') } });
    expect(confirm.status).toBe(409);
    expect(confirm.body.error.code).toBe('HOLD_NOT_ACTIVE');
  });

  it('first_fit stays the default; coverage is refused on candidate holds', async () => {
    const day = nextWeekday('tue', TZ, 2);
    const owner = await setupOwner(admin, { timeZone: TZ });
    expect((await book(admin.key, owner, day.at('14:00'), day.at('14:30'))).status).toBe(201);
    const first = await call('POST', '/v1/holds', { key: holder, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('13:00'), end: day.at('17:00') } } });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ coverage: 'first_fit', held_window: { start: day.at('13:00'), end: day.at('14:00') }, held_windows: [{ start: day.at('13:00'), end: day.at('14:00') }] });
    expect((await book(other, owner, day.at('15:00'), day.at('15:30'))).status).toBe(201);
    const bad = await call('POST', '/v1/holds', { key: holder, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', coverage: 'all_free', candidate: { start: day.at('16:00'), end: day.at('16:30') } } });
    expect(bad.status).toBe(400);
  });
});

describe('window hold next_available (free time only)', () => {
  it('names a slot the same window hold accepts, not one a lower-priority booking sits on', async () => {
    const day = nextWeekday('wed', TZ, 2);
    const owner = await setupOwner(admin, { timeZone: TZ });
    // a lower-priority booking fills 09:00-10:00; the window 09:00-10:00 has no free stretch
    expect((await book(admin.key, owner, day.at('09:00'), day.at('10:00'), 'focus')).status).toBe(201);
    const refused = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('10:00') } } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'NO_SLOTS_AVAILABLE' }, reason_code: 'NO_FREE_SLOTS', next_available: { start: day.at('10:00'), end: day.at('10:30') } });
    // and that slot is one the same hold takes
    const next = refused.body.next_available;
    const taken = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'external', hold_scope: 'window', duration_minutes: 30, window: { start: next.start, end: next.end } } });
    expect(taken.status, taken.text).toBe(200);
  });
});
