import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { timeTwinViolations } from '../../helpers/timeTwins';
import { call, everyDay, setupOwner } from './fixtures';

/**
 * The caller's time zone (docs/api.md "The caller's time zone"): beside the owner's start_local /
 * end_local, answers carry start_caller / end_caller in the zone the call names (`time_zone`),
 * else the key's or agent's display_time_zone. The owner is in Berlin, the caller in New York,
 * around the US spring-forward of 2027-03-14 (07:00Z: -05:00 -> -04:00) while Berlin stays +01:00.
 * The oracle is fixed literal strings, not the code under test.
 */
let admin: TestCustomer;
let berlin: string;
let free: string;
beforeAll(async () => {
  admin = await newCustomer();
  berlin = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay('00:00', '24:00') });
  free = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay('00:00', '24:00') });
});

/** An agent (booking permissions) with this display_time_zone, and a key (with its own, when given). */
async function agentWith(agentZone: string | undefined, keyZone?: string): Promise<{ agentId: string; key: string }> {
  const agent = await call('POST', '/v1/agents', {
    key: admin.key,
    body: { name: 'caller zone agent', owner_scope: 'org:*', permissions: ['read_availability', 'create_holds', 'create_bookings'], ...(agentZone ? { display_time_zone: agentZone } : {}) },
  });
  expect(agent.status, agent.text).toBe(201);
  const key = await call('POST', `/v1/agents/${agent.body.agent_id}/keys`, { key: admin.key, body: keyZone ? { display_time_zone: keyZone } : {} });
  expect(key.status, key.text).toBe(201);
  return { agentId: agent.body.agent_id, key: key.body.api_key };
}

const book = (key: string, start: string, end: string, query = '') =>
  call('POST', `/v1/bookings${query}`, { key, idempotencyKey: crypto.randomUUID(), body: { owner_email: berlin, meeting_class: 'internal', start, end } });

// 06:30Z-07:30Z on 2027-03-14: Berlin 07:30-08:30 (+01:00); New York 01:30 EST to 03:30 EDT.
const ACROSS = { start: '2027-03-14T06:30:00.000Z', end: '2027-03-14T07:30:00.000Z', start_local: '2027-03-14T07:30:00+01:00', end_local: '2027-03-14T08:30:00+01:00' };
const NEW_YORK = { start_caller: '2027-03-14T01:30:00-05:00', end_caller: '2027-03-14T03:30:00-04:00' };

describe('time_zone on a write and a read, across a DST change', () => {
  let bookingId: string;
  it('a booking made with ?time_zone=America/New_York answers both clocks, named apart', async () => {
    const made = await book(admin.key, ACROSS.start, ACROSS.end, '?time_zone=america/new_york');
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ ...ACROSS, ...NEW_YORK });
    expect(Object.keys(made.body).filter((k) => /_(local|caller)$/.test(k))).toEqual(['start_local', 'start_caller', 'end_local', 'end_caller']);
    bookingId = made.body.booking_id;
  });

  it('reading it back (one, and in a list) in the caller zone gives the same twins; without a zone, none', async () => {
    const one = await call('GET', `/v1/bookings/${bookingId}?time_zone=America/New_York`, { key: admin.key });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ ...ACROSS, ...NEW_YORK });
    const list = await call('GET', `/v1/bookings?owner_email=${encodeURIComponent(berlin)}&time_zone=America/New_York`, { key: admin.key });
    expect(list.status, list.text).toBe(200);
    expect(list.body.bookings.find((b: { booking_id: string }) => b.booking_id === bookingId)).toMatchObject({ ...ACROSS, ...NEW_YORK });
    const plain = await call('GET', `/v1/bookings/${bookingId}`, { key: admin.key });
    expect(plain.body).toMatchObject(ACROSS);
    expect(plain.body).not.toHaveProperty('start_caller');
  });

  it('a search and a refusal carry caller twins on every slot and alternative', async () => {
    const search = await call('POST', '/v1/availability/search?time_zone=America/New_York', {
      key: admin.key,
      body: { owner_email: free, meeting_class: 'internal', duration_minutes: 60, slot_step_minutes: 60, window: { start: '2027-03-14T05:00:00Z', end: '2027-03-14T08:00:00Z' } },
    });
    expect(search.status, search.text).toBe(200);
    expect(search.body.slots.map((s: Record<string, string>) => [s.start_caller, s.end_caller])).toEqual([
      ['2027-03-14T00:00:00-05:00', '2027-03-14T01:00:00-05:00'],
      ['2027-03-14T01:00:00-05:00', '2027-03-14T03:00:00-04:00'],
      ['2027-03-14T03:00:00-04:00', '2027-03-14T04:00:00-04:00'],
    ]);
    const taken = await book(admin.key, ACROSS.start, ACROSS.end, '?time_zone=America/New_York');
    expectEnvelope(taken, 409, 'ARBITRATION_REJECTED');
    expect(taken.body.alternatives.length).toBeGreaterThan(0);
    for (const alt of taken.body.alternatives) expect(alt.start_caller).toMatch(/-0[45]:00$/);
    expect(timeTwinViolations(taken.body)).toEqual([]);
  });

  it('a hold (its own start_local and its held windows) carries them too, and an idempotent replay answers the same text', async () => {
    const key = crypto.randomUUID();
    const body = { owner_email: berlin, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: '2027-03-14T08:00:00Z', end: '2027-03-14T08:30:00Z' } };
    const first = await call('POST', '/v1/holds?time_zone=Asia/Tokyo', { key: admin.key, idempotencyKey: key, body });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ start_local: '2027-03-14T09:00:00+01:00', start_caller: '2027-03-14T17:00:00+09:00', end_caller: '2027-03-14T17:30:00+09:00' });
    expect(first.body.held_window.start_caller).toBe('2027-03-14T17:00:00+09:00');
    const again = await call('POST', '/v1/holds?time_zone=Asia/Tokyo', { key: admin.key, idempotencyKey: key, body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });
});

describe('display_time_zone: the default, and time_zone overrides it', () => {
  it("an agent's display_time_zone is the default; a key's overrides it; time_zone overrides both", async () => {
    const ny = await agentWith('America/New_York');
    const made = await book(ny.key, '2027-03-14T10:00:00Z', '2027-03-14T11:00:00Z');
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ start_caller: '2027-03-14T06:00:00-04:00', end_caller: '2027-03-14T07:00:00-04:00' });
    const overridden = await call('GET', `/v1/bookings/${made.body.booking_id}?time_zone=Asia/Tokyo`, { key: ny.key });
    expect(overridden.body).toMatchObject({ start_caller: '2027-03-14T19:00:00+09:00' });

    const keyed = await agentWith('America/New_York', 'asia/tokyo');
    const read = await call('GET', `/v1/bookings/${made.body.booking_id}`, { key: keyed.key });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ start_caller: '2027-03-14T19:00:00+09:00', end_caller: '2027-03-14T20:00:00+09:00' });
    const me = await call('GET', '/v1/agents/me', { key: keyed.key });
    expect(me.body).toMatchObject({ display_time_zone: 'America/New_York', key_display_time_zone: 'Asia/Tokyo' });
  });

  it('a changed display_time_zone applies to the next call; null clears it', async () => {
    const agent = await agentWith(undefined);
    const made = await book(agent.key, '2027-03-14T12:00:00Z', '2027-03-14T12:30:00Z');
    expect(made.body).not.toHaveProperty('start_caller');
    const set = await call('PATCH', `/v1/agents/${agent.agentId}`, { key: admin.key, body: { display_time_zone: 'America/New_York' } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.display_time_zone).toBe('America/New_York');
    const read = await call('GET', `/v1/bookings/${made.body.booking_id}`, { key: agent.key });
    expect(read.body.start_caller).toBe('2027-03-14T08:00:00-04:00');
    await call('PATCH', `/v1/agents/${agent.agentId}`, { key: admin.key, body: { display_time_zone: null } });
    const cleared = await call('GET', `/v1/bookings/${made.body.booking_id}`, { key: agent.key });
    expect(cleared.body).not.toHaveProperty('start_caller');
  });

  it('the notification feed carries caller twins in the default zone', async () => {
    const mine = await agentWith('America/New_York');
    const made = await book(mine.key, '2027-03-14T13:00:00Z', '2027-03-14T13:30:00Z');
    const cancelled = await call('POST', `/v1/bookings/${made.body.booking_id}/cancel`, { key: admin.key, idempotencyKey: crypto.randomUUID(), body: {} });
    expect(cancelled.status, cancelled.text).toBe(200);
    const feed = await call('GET', '/v1/notifications?since=0', { key: mine.key });
    expect(feed.status, feed.text).toBe(200);
    const item = feed.body.notifications.find((n: { kind: string; data: { booking_id?: string } }) => n.kind === 'booking.cancelled' && n.data.booking_id === made.body.booking_id);
    expect(item.data).toMatchObject({ start_local: '2027-03-14T14:00:00+01:00', start_caller: '2027-03-14T09:00:00-04:00' });
  });
});

describe('an unknown zone is refused', () => {
  it('time_zone answers INVALID_TIME_ZONE with close matches', async () => {
    const res = await call('GET', `/v1/bookings?time_zone=America/New_Yrok`, { key: admin.key });
    expectEnvelope(res, 400, 'INVALID_TIME_ZONE');
    expect(res.body.did_you_mean).toContain('America/New_York');
    expect(res.body.error.message).toContain('GET /v1/time-zones');
    const offset = await call('POST', '/v1/availability/search?time_zone=%2B01:00', {
      key: admin.key,
      body: { owner_email: berlin, meeting_class: 'internal', duration_minutes: 60, window: { start: '2027-03-15T05:00:00Z', end: '2027-03-15T09:00:00Z' } },
    });
    expectEnvelope(offset, 400, 'INVALID_TIME_ZONE');
  });

  it('display_time_zone on an agent or a key answers INVALID_TIME_ZONE', async () => {
    const agent = await call('POST', '/v1/agents', { key: admin.key, body: { name: 'x', owner_scope: 'org:*', permissions: [], display_time_zone: 'Europe/Berln' } });
    expectEnvelope(agent, 400, 'INVALID_TIME_ZONE');
    expect(agent.body.did_you_mean).toEqual(['Europe/Berlin']);
    const ok = await agentWith(undefined);
    const key = await call('POST', `/v1/agents/${ok.agentId}/keys`, { key: admin.key, body: { display_time_zone: 'Mars/Olympus' } });
    expectEnvelope(key, 400, 'INVALID_TIME_ZONE');
    const patch = await call('PATCH', `/v1/agents/${ok.agentId}`, { key: admin.key, body: { display_time_zone: '+02:00' } });
    expectEnvelope(patch, 400, 'INVALID_TIME_ZONE');
  });
});
