import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { claims, idempotencyRecords } from '@/db/schema';
import { startSweeper, SWEEP_TASKS } from '@/server/sweeper';
import { newId } from '@/server/domain/ids';
import { requestFingerprint } from '@/server/http/idempotency';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, nextWeekday, patchClaim, setupOwner } from './fixtures';

/**
 * docs/api.md hold errors over HTTP, with GET/DELETE of holds, PAST_TIME on the
 * claiming calls and the Idempotency-Key codes on holds, bookings and confirm.
 */
let admin: TestCustomer;
let owner: string;
const TZ = 'Europe/Berlin';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ });
});

const candidateHold = (slot: { start: string; end: string }, extra: Record<string, unknown> = {}, key = admin.key) =>
  call('POST', '/v1/holds', { key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot, ...extra } });
const confirm = (holdId: string, body: Record<string, unknown>, opts: { key?: string; idempotencyKey?: string } = {}) =>
  call('POST', `/v1/bookings/${holdId}/confirm`, { key: opts.key ?? admin.key, body, idempotencyKey: opts.idempotencyKey });

describe('GET and DELETE /v1/holds/{id}', () => {
  it('reads an active hold, releases it (twice is fine), and the slot is free again', async () => {
    const day = nextWeekday('mon', TZ);
    const slot = { start: day.at('09:00'), end: day.at('09:30') };
    const created = await candidateHold(slot, { ttl_seconds: 120 });
    expect(created.status, created.text).toBe(200);
    expect(created.body.hold_id).toMatch(UUID);
    const got = await call('GET', `/v1/holds/${created.body.hold_id}`, { key: admin.key });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ hold_id: created.body.hold_id, hold_scope: 'candidate', held_window: slot, resolved_calendar_type: 'internal', status: 'active', booking_id: null });
    expect(got.body.expires_in_seconds).toBeGreaterThan(100);
    expect(got.body.expires_in_seconds).toBeLessThanOrEqual(120);
    expect(Date.parse(got.body.expires_at) - Date.now()).toBeLessThanOrEqual(120_000);

    // The held slot is taken while the hold lives.
    expect((await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } })).status).toBe(409);
    const released = await call('DELETE', `/v1/holds/${created.body.hold_id}`, { key: admin.key });
    expect(released.status, released.text).toBe(200);
    expect(released.body).toMatchObject({ status: 'released', expires_in_seconds: 0 });
    expect((await call('DELETE', `/v1/holds/${created.body.hold_id}`, { key: admin.key })).body.status).toBe('released');
    expect((await call('GET', `/v1/holds/${created.body.hold_id}`, { key: admin.key })).body.status).toBe('released');
    expectEnvelope(await confirm(created.body.hold_id, slot), 409, 'HOLD_NOT_ACTIVE');
    expect((await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } })).status).toBe(201);
  });

  it('DELETE of a promoted hold is 409 HOLD_ALREADY_PROMOTED; of an expired one 410 HOLD_EXPIRED', async () => {
    const day = nextWeekday('tue', TZ);
    const a = await candidateHold({ start: day.at('09:00'), end: day.at('09:30') });
    expect((await confirm(a.body.hold_id, { start: day.at('09:00'), end: day.at('09:30') })).status).toBe(200);
    expectEnvelope(await call('DELETE', `/v1/holds/${a.body.hold_id}`, { key: admin.key }), 409, 'HOLD_ALREADY_PROMOTED');
    const b = await candidateHold({ start: day.at('10:00'), end: day.at('10:30') });
    await patchClaim(b.body.hold_id, { expiresAt: new Date(Date.now() - 1000) });
    expectEnvelope(await call('DELETE', `/v1/holds/${b.body.hold_id}`, { key: admin.key }), 410, 'HOLD_EXPIRED');
  });
});

describe('HOLD_NOT_FOUND (404)', () => {
  it('for an unknown id, a malformed id and another customer’s hold, on GET, DELETE and confirm', async () => {
    const other = await newCustomer();
    const otherOwner = await setupOwner(other, { timeZone: TZ });
    const day = nextWeekday('wed', TZ);
    const slot = { start: day.at('09:00'), end: day.at('09:30') };
    const foreign = await call('POST', '/v1/holds', { key: other.key, body: { owner_email: otherOwner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } });
    expect(foreign.status, foreign.text).toBe(200);
    for (const id of [newId(), 'not-a-uuid', foreign.body.hold_id]) {
      expectEnvelope(await call('GET', `/v1/holds/${id}`, { key: admin.key }), 404, 'HOLD_NOT_FOUND');
      expectEnvelope(await call('DELETE', `/v1/holds/${id}`, { key: admin.key }), 404, 'HOLD_NOT_FOUND');
      expectEnvelope(await confirm(id, slot), 404, 'HOLD_NOT_FOUND');
    }
    // The foreign hold is untouched and still confirmable by its own customer.
    expect((await call('POST', `/v1/bookings/${foreign.body.hold_id}/confirm`, { key: other.key, body: slot })).status).toBe(200);
  });
});

describe('HOLD_EXPIRED (410) and the hold.expired notification', () => {
  it('an expired hold cannot be confirmed; once the expiry is noticed its agent is told, in the next error envelope', async () => {
    const agent = await newAgent(admin, ['create_holds', 'create_bookings']);
    const day = nextWeekday('thu', TZ);
    const slot = { start: day.at('09:00'), end: day.at('09:30') };
    const held = await candidateHold(slot, { ttl_seconds: 10 }, agent.key);
    expect(held.status, held.text).toBe(200);
    expect(held.body.expires_in_seconds).toBeLessThanOrEqual(10);
    // Fast-forward: the time to live elapsed.
    await patchClaim(held.body.hold_id, { expiresAt: new Date(Date.now() - 1000) });
    const got = await call('GET', `/v1/holds/${held.body.hold_id}`, { key: agent.key });
    expect(got.body).toMatchObject({ status: 'expired', expires_in_seconds: 0 });
    const expired = await confirm(held.body.hold_id, slot, { key: agent.key });
    expectEnvelope(expired, 410, 'HOLD_EXPIRED');

    // Another claim on the owner notices the expiry (and may take the slot).
    expect((await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } })).status).toBe(201);
    const [row] = (await claimsOf(admin, owner)).filter((c) => c.id === held.body.hold_id);
    expect(row.status).toBe('expired');

    const next = await confirm(held.body.hold_id, slot, { key: agent.key });
    expectEnvelope(next, 410, 'HOLD_EXPIRED');
    expect(next.body.pending_notifications).toHaveLength(1);
    expect(next.body.pending_notifications[0]).toMatchObject({ kind: 'hold.expired', data: { hold_id: held.body.hold_id, start: slot.start, end: slot.end } });
    expect(next.body.pending_notifications[0].id).toEqual(expect.any(String));
    expect(Date.parse(next.body.pending_notifications[0].created_at)).not.toBeNaN();
    // Delivered once: the queue is empty now.
    expect((await call('GET', '/v1/notifications', { key: agent.key })).body).toEqual({ notifications: [] });
  });

  it('GET /v1/notifications drains hold.expired too', async () => {
    const agent = await newAgent(admin, ['create_holds']);
    const day = nextWeekday('thu', TZ);
    const held = await candidateHold({ start: day.at('11:00'), end: day.at('11:30') }, { ttl_seconds: 10 }, agent.key);
    await patchClaim(held.body.hold_id, { expiresAt: new Date(Date.now() - 1000) });
    // A window hold on the owner notices it.
    const win = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('11:00'), end: day.at('11:30') } } });
    expect(win.status, win.text).toBe(200);
    const drained = await call('GET', '/v1/notifications', { key: agent.key });
    expect(drained.status).toBe(200);
    expect(drained.body.notifications.map((n: { kind: string; data: { hold_id: string } }) => [n.kind, n.data.hold_id])).toEqual([['hold.expired', held.body.hold_id]]);
    expect((await call('GET', '/v1/notifications', { key: agent.key })).body.notifications).toEqual([]);
  });
});

describe('the hold sweeper', () => {
  it('flips an expired hold and sends hold.expired without any other claim on the owner', async () => {
    const agent = await newAgent(admin, ['create_holds']);
    const day = nextWeekday('thu', TZ);
    const held = await candidateHold({ start: day.at('14:00'), end: day.at('14:30') }, { ttl_seconds: 10 }, agent.key);
    expect(held.status, held.text).toBe(200);
    await patchClaim(held.body.hold_id, { expiresAt: new Date(Date.now() - 1000) });
    const stop = startSweeper(getDb, SWEEP_TASKS, 25);
    try {
      let notes: { kind: string; data: { hold_id: string } }[] = [];
      for (let i = 0; i < 80 && !notes.some((n) => n.data.hold_id === held.body.hold_id); i++) {
        await new Promise((r) => setTimeout(r, 25));
        notes = [...notes, ...(await call('GET', '/v1/notifications', { key: agent.key })).body.notifications];
      }
      expect(notes.map((n) => [n.kind, n.data.hold_id])).toEqual([['hold.expired', held.body.hold_id]]);
    } finally {
      stop();
    }
    const [row] = (await claimsOf(admin, owner)).filter((c) => c.id === held.body.hold_id);
    expect(row.status).toBe('expired');
  });
});

describe('HOLD_ALREADY_PROMOTED (409) and its idempotent replay', () => {
  it('a repeated confirm with the same Idempotency-Key replays the 200; without it (or with another key) 409', async () => {
    const day = nextWeekday('fri', TZ);
    const slot = { start: day.at('09:00'), end: day.at('09:30') };
    const held = await candidateHold(slot);
    const key = `confirm-${newId()}`;
    const first = await confirm(held.body.hold_id, { ...slot, title: 'Kick-off' }, { idempotencyKey: key });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await confirm(held.body.hold_id, { ...slot, title: 'Kick-off' }, { idempotencyKey: key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);

    const again = await confirm(held.body.hold_id, { ...slot, title: 'Kick-off' });
    expectEnvelope(again, 409, 'HOLD_ALREADY_PROMOTED');
    expect(again.body.booking_id).toBe(first.body.booking_id);
    expectEnvelope(await confirm(held.body.hold_id, slot, { idempotencyKey: `other-${newId()}` }), 409, 'HOLD_ALREADY_PROMOTED');
    expectEnvelope(await confirm(held.body.hold_id, { ...slot, title: 'Changed' }, { idempotencyKey: key }), 422, 'IDEMPOTENCY_CONFLICT');
    const bookings = (await claimsOf(admin, owner)).filter((c) => c.kind === 'booking' && c.holdId === held.body.hold_id);
    expect(bookings).toHaveLength(1);

    // A promoted hold stays promoted after its time to live: still 409 (not 410), and the key still replays.
    await patchClaim(held.body.hold_id, { expiresAt: new Date(Date.now() - 1000) });
    expectEnvelope(await confirm(held.body.hold_id, slot), 409, 'HOLD_ALREADY_PROMOTED');
    const late = await confirm(held.body.hold_id, { ...slot, title: 'Kick-off' }, { idempotencyKey: key });
    expect(late.status).toBe(200);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('SLOT_OUTSIDE_HOLD (422)', () => {
  it('a candidate hold confirms only its exact start and end', async () => {
    const day = nextWeekday('mon', TZ, 2);
    const held = await candidateHold({ start: day.at('10:00'), end: day.at('10:30') });
    for (const body of [
      { start: day.at('10:15'), end: day.at('10:45') },
      { start: day.at('10:00'), end: day.at('10:15') },
      { start: day.at('09:45'), end: day.at('10:30') },
    ]) {
      const res = await confirm(held.body.hold_id, body);
      expectEnvelope(res, 422, 'SLOT_OUTSIDE_HOLD');
      expect(res.body.held_window).toMatchObject({ start: day.at('10:00'), end: day.at('10:30') });
    }
    expect((await confirm(held.body.hold_id, { start: day.at('10:00'), end: day.at('10:30') })).status).toBe(200);
  });

  it('a window hold needs a slot of duration_minutes inside held_window', async () => {
    const day = nextWeekday('tue', TZ, 2);
    const held = await call('POST', '/v1/holds', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('13:00'), end: day.at('14:00') } },
    });
    expect(held.status, held.text).toBe(200);
    expect(held.body).toMatchObject({ hold_scope: 'window', held_window: { start: day.at('13:00'), end: day.at('14:00') }, duration_minutes: 30 });
    for (const body of [
      { start: day.at('13:45'), end: day.at('14:15') }, // ends outside
      { start: day.at('12:45'), end: day.at('13:15') }, // starts outside
      { start: day.at('13:00'), end: day.at('14:00') }, // wrong length
      { start: day.at('13:00'), end: day.at('13:15') }, // wrong length
    ]) {
      const res = await confirm(held.body.hold_id, body);
      expectEnvelope(res, 422, 'SLOT_OUTSIDE_HOLD');
      expect(res.body).toMatchObject({ held_window: held.body.held_window, duration_minutes: 30 });
    }
    const ok = await confirm(held.body.hold_id, { start: day.at('13:30'), end: day.at('14:00') });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ start: day.at('13:30'), end: day.at('14:00'), hold_id: held.body.hold_id });
    // The rest of the held window is free again once the hold is promoted.
    expect((await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('13:00'), end: day.at('13:30') } })).status).toBe(201);
  });
});

describe('PAST_TIME (422) on claiming calls', () => {
  it('a candidate hold and a direct booking starting in the past', async () => {
    const start = new Date(Date.now() - 3 * 3600_000);
    start.setUTCMinutes(0, 0, 0);
    const slot = { start: start.toISOString(), end: new Date(start.getTime() + 1800_000).toISOString() };
    expectEnvelope(await candidateHold(slot), 422, 'PAST_TIME');
    expectEnvelope(await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', ...slot } }), 422, 'PAST_TIME');
  });

  it('confirming a hold whose start has passed (start moved into the past in the database)', async () => {
    const day = nextWeekday('wed', TZ, 2);
    const held = await candidateHold({ start: day.at('09:00'), end: day.at('09:30') });
    const start = new Date(Date.now() - 60_000);
    const end = new Date(start.getTime() + 30 * 60_000);
    await patchClaim(held.body.hold_id, { startAt: start, endAt: end });
    expectEnvelope(await confirm(held.body.hold_id, { start: start.toISOString(), end: end.toISOString() }), 422, 'PAST_TIME');
    expect((await call('GET', `/v1/holds/${held.body.hold_id}`, { key: admin.key })).body.status).toBe('active');
  });
});

describe('Idempotency-Key on holds, bookings and confirm', () => {
  async function inFlight(path: string, body: unknown, key: string) {
    await (await getDb()).insert(idempotencyRecords).values({
      id: newId(),
      agentId: admin.agentId,
      method: 'POST',
      path,
      key,
      fingerprint: requestFingerprint(body, ''),
      state: 'in_flight',
      lockedUntil: new Date(Date.now() + 60_000),
      expiresAt: new Date(Date.now() + 86_400_000),
    });
  }

  it('IDEMPOTENCY_IN_FLIGHT (409) while a request with the key runs; nothing is claimed', async () => {
    const day = nextWeekday('thu', TZ, 2);
    const before = (await claimsOf(admin, owner)).length;
    const holdBody = { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('09:00'), end: day.at('09:30') } };
    const k1 = `inflight-${newId()}`;
    await inFlight('/v1/holds', holdBody, k1);
    expectEnvelope(await call('POST', '/v1/holds', { key: admin.key, body: holdBody, idempotencyKey: k1 }), 409, 'IDEMPOTENCY_IN_FLIGHT');

    const bookBody = { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') };
    const k2 = `inflight-${newId()}`;
    await inFlight('/v1/bookings', bookBody, k2);
    expectEnvelope(await call('POST', '/v1/bookings', { key: admin.key, body: bookBody, idempotencyKey: k2 }), 409, 'IDEMPOTENCY_IN_FLIGHT');
    expect((await claimsOf(admin, owner)).length).toBe(before);

    const held = await candidateHold({ start: day.at('11:00'), end: day.at('11:30') });
    const confirmBody = { start: day.at('11:00'), end: day.at('11:30') };
    const k3 = `inflight-${newId()}`;
    await inFlight(`/v1/bookings/${held.body.hold_id}/confirm`, confirmBody, k3);
    expectEnvelope(await confirm(held.body.hold_id, confirmBody, { idempotencyKey: k3 }), 409, 'IDEMPOTENCY_IN_FLIGHT');
    expect((await call('GET', `/v1/holds/${held.body.hold_id}`, { key: admin.key })).body.status).toBe('active');
  });

  it('replays a hold and a booking (one claim each) and answers IDEMPOTENCY_CONFLICT (422) for another body', async () => {
    const day = nextWeekday('fri', TZ, 2);
    const holdBody = { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('09:00'), end: day.at('09:30') } };
    const hk = `hold-${newId()}`;
    const h1 = await call('POST', '/v1/holds', { key: admin.key, body: holdBody, idempotencyKey: hk });
    const h2 = await call('POST', '/v1/holds', { key: admin.key, body: holdBody, idempotencyKey: hk });
    expect(h1.status, h1.text).toBe(200);
    expect(h2.status).toBe(200);
    expect(h2.headers.get('idempotent-replayed')).toBe('true');
    expect(h2.body.hold_id).toBe(h1.body.hold_id);
    const other = { ...holdBody, candidate: { start: day.at('10:00'), end: day.at('10:30') } };
    expectEnvelope(await call('POST', '/v1/holds', { key: admin.key, body: other, idempotencyKey: hk }), 422, 'IDEMPOTENCY_CONFLICT');

    const bookBody = { owner_email: owner, meeting_class: 'internal', start: day.at('11:00'), end: day.at('11:30') };
    const bk = `book-${newId()}`;
    const b1 = await call('POST', '/v1/bookings', { key: admin.key, body: bookBody, idempotencyKey: bk });
    const b2 = await call('POST', '/v1/bookings', { key: admin.key, body: bookBody, idempotencyKey: bk });
    expect(b1.status, b1.text).toBe(201);
    expect(b2.status).toBe(201);
    expect(b2.headers.get('idempotent-replayed')).toBe('true');
    expect(b2.text).toBe(b1.text);
    expectEnvelope(await call('POST', '/v1/bookings', { key: admin.key, body: { ...bookBody, title: 'x' }, idempotencyKey: bk }), 422, 'IDEMPOTENCY_CONFLICT');

    const rows = await (await getDb()).select().from(claims).where(eq(claims.idempotencyKey, bk));
    expect(rows).toHaveLength(1);
    expect((await claimsOf(admin, owner)).filter((c) => c.idempotencyKey === hk)).toHaveLength(1);
  });

  it('a rejection is stored too: the replay is the same 409 with a fresh pending_notifications', async () => {
    const day = nextWeekday('fri', TZ, 2);
    const bookBody = { owner_email: owner, meeting_class: 'internal', start: day.at('14:00'), end: day.at('14:30') };
    expect((await call('POST', '/v1/bookings', { key: admin.key, body: bookBody })).status).toBe(201);
    const k = `rej-${newId()}`;
    const first = await call('POST', '/v1/bookings', { key: admin.key, body: bookBody, idempotencyKey: k });
    expectEnvelope(first, 409, 'ARBITRATION_REJECTED');
    const again = await call('POST', '/v1/bookings', { key: admin.key, body: bookBody, idempotencyKey: k });
    expectEnvelope(again, 409, 'ARBITRATION_REJECTED');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect({ ...again.body, pending_notifications: [] }).toEqual({ ...first.body, pending_notifications: [] });
  });
});
