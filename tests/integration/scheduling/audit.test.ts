import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { auditLog } from '@/db/schema';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, nextWeekday, setupOwner } from './fixtures';

/**
 * Every decision writes one audit row (accept, reject, counter_propose), read
 * through GET /v1/audit-log with its filters and cursor; the evaluate endpoint
 * decides the same way without any side effect.
 */
type Entry = { id: string; at: string; action: string; outcome: string; reason: string | null; owner_email: string; booking_id: string | null; hold_id: string | null; idempotency_key: string | null; meeting_class: string | null; start: string | null; end: string | null; agent_id: string | null; preempted_booking_ids: string[] };

let admin: TestCustomer;
let ownerA: string;
let ownerB: string;
let startedAt: string;
const TZ = 'Europe/Berlin';
const day = nextWeekday('mon', TZ);
const ids: Record<string, string> = {};

/** Setting up owners, classes and agents writes administrative entries too (tests/integration/platform/adminAudit.test.ts); these tests count decisions. */
const DECISIONS = new Set(['hold.create', 'booking.confirm', 'booking.create', 'booking.cancel', 'proposal.review', 'proposal.create']);
const decisions = (entries: Entry[]) => entries.filter((e) => DECISIONS.has(e.action));

const audit = async (query: string, key = admin.key) => {
  const res = await call('GET', `/v1/audit-log${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body as { entries: Entry[]; next_cursor: string | null };
};

beforeAll(async () => {
  admin = await newCustomer();
  ownerA = await setupOwner(admin, { timeZone: TZ });
  ownerB = await setupOwner(admin, { timeZone: TZ });
  startedAt = new Date(Date.now() - 1000).toISOString();
  const book = (owner: string, start: string, end: string, idempotencyKey?: string) =>
    call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start, end }, idempotencyKey });

  const accepted = await book(ownerA, day.at('09:00'), day.at('10:00'), 'audit-accept-1');
  expect(accepted.status).toBe(201);
  ids.booking = accepted.body.booking_id;
  expect((await book(ownerA, day.at('09:00'), day.at('10:00'))).status).toBe(409); // counter_propose
  const past = new Date(Date.now() - 7200_000);
  past.setUTCMinutes(0, 0, 0);
  expect((await book(ownerA, past.toISOString(), new Date(past.getTime() + 3600_000).toISOString())).status).toBe(422); // reject PAST_TIME
  const hold = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: ownerB, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('11:00'), end: day.at('11:30') } } });
  expect(hold.status).toBe(200);
  ids.hold = hold.body.hold_id;
  const confirmed = await call('POST', `/v1/bookings/${ids.hold}/confirm`, { key: admin.key, body: { start: day.at('11:00'), end: day.at('11:30') } });
  expect(confirmed.status).toBe(200);
  ids.confirmed = confirmed.body.booking_id;
  expect((await call('POST', `/v1/bookings/${ids.confirmed}/cancel`, { key: admin.key, body: { reason: 'moved' } })).status).toBe(200);
});

describe('audit rows for each decision', () => {
  it('accept, counter_propose and reject on direct bookings, newest first', async () => {
    const entries = decisions((await audit(`?owner_email=${encodeURIComponent(ownerA)}`)).entries);
    expect(entries.map((e) => [e.action, e.outcome, e.reason])).toEqual([
      ['booking.create', 'reject', 'PAST_TIME'],
      ['booking.create', 'counter_propose', 'COUNTER_PROPOSED'],
      ['booking.create', 'accept', null],
    ]);
    expect(entries[2]).toMatchObject({
      owner_email: ownerA,
      agent_id: admin.agentId,
      meeting_class: 'internal',
      start: day.at('09:00'),
      end: day.at('10:00'),
      booking_id: ids.booking,
      idempotency_key: 'audit-accept-1',
      preempted_booking_ids: [],
    });
    expect(entries[1]).toMatchObject({ booking_id: null, start: day.at('09:00'), end: day.at('10:00') });
    const ats = entries.map((e) => Date.parse(e.at));
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);
  });

  it('hold.create, booking.confirm and booking.cancel rows on the other owner', async () => {
    const entries = decisions((await audit(`?owner_email=${encodeURIComponent(ownerB)}`)).entries);
    expect(entries.map((e) => [e.action, e.outcome])).toEqual([
      ['booking.cancel', 'accept'],
      ['booking.confirm', 'accept'],
      ['hold.create', 'accept'],
    ]);
    expect(entries[2]).toMatchObject({ hold_id: ids.hold, booking_id: null });
    expect(entries[1]).toMatchObject({ hold_id: ids.hold, booking_id: ids.confirmed });
    expect(entries[0]).toMatchObject({ booking_id: ids.confirmed, reason: 'moved' });
  });

  it('an arbitration rejection (counter-proposal) is audited in the database with its alternatives', async () => {
    const rows = await (await getDb()).select().from(auditLog).where(eq(auditLog.customerId, admin.customerId));
    const counter = rows.find((r) => r.outcome === 'counter_propose');
    expect(counter?.details).toMatchObject({ failed_reason: 'NO_CAPACITY' });
    expect((counter?.details as { alternatives: unknown[] }).alternatives.length).toBeGreaterThan(0);
  });
});

describe('GET /v1/audit-log filters and paging', () => {
  it('filters by outcome and action', async () => {
    const counter = await audit('?outcome=counter_propose');
    expect(counter.entries).toHaveLength(1);
    expect(counter.entries[0]).toMatchObject({ owner_email: ownerA, reason: 'COUNTER_PROPOSED' });
    expect((await audit('?outcome=reject')).entries.map((e) => e.reason)).toEqual(['PAST_TIME']);
    expect((await audit('?action=hold.create')).entries.map((e) => e.hold_id)).toEqual([ids.hold]);
    expect((await audit(`?action=booking.create&outcome=accept&owner_email=${encodeURIComponent(ownerA)}`)).entries.map((e) => e.booking_id)).toEqual([ids.booking]);
    expect((await audit('?action=proposal.review')).entries).toEqual([]);
    expectEnvelope(await call('GET', '/v1/audit-log?outcome=maybe', { key: admin.key }), 400, 'invalid_request');
  });

  it('filters by time: from inclusive, to exclusive', async () => {
    const all = decisions((await audit('?limit=200')).entries);
    expect(all).toHaveLength(6);
    expect(decisions((await audit(`?from=${startedAt}`)).entries)).toHaveLength(6);
    expect(decisions((await audit(`?to=${startedAt}`)).entries)).toEqual([]);
    expect((await audit(`?from=${new Date(Date.now() + 60_000).toISOString()}`)).entries).toEqual([]);
    const oldest = all[all.length - 1];
    const newest = all[0];
    expect((await audit(`?to=${oldest.at}`)).entries.map((e) => e.id)).not.toContain(oldest.id);
    expect((await audit(`?from=${newest.at}`)).entries.map((e) => e.id)).toContain(newest.id);
  });

  it('pages with limit and next_cursor without gaps or repeats', async () => {
    const all = (await audit('?limit=200')).entries.map((e) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { entries: Entry[]; next_cursor: string | null } = await audit(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 50);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 2));
    expectEnvelope(await call('GET', '/v1/audit-log?cursor=garbage', { key: admin.key }), 400, 'invalid_request');
  });

  it('needs read_audit; a user-scoped agent sees only its owner', async () => {
    const noAudit = await newAgent(admin, ['read_availability']);
    expectEnvelope(await call('GET', '/v1/audit-log', { key: noAudit.key }), 403, 'permission_denied:read_audit');
    const scoped = await newAgent(admin, ['read_audit'], `user:${ownerA}`);
    const mine = await audit('', scoped.key);
    expect(decisions(mine.entries)).toHaveLength(3);
    expect(mine.entries.every((e) => e.owner_email === ownerA)).toBe(true);
    expect(decisions((await audit(`?owner_email=${encodeURIComponent(ownerA)}`, scoped.key)).entries)).toHaveLength(3);
    expectEnvelope(await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(ownerB)}`, { key: scoped.key }), 403, 'owner_scope_denied');
    // Another customer's log is invisible: a new customer sees only its own setup (first agent and key).
    const other = await newCustomer();
    expect((await audit('', other.key)).entries.map((e) => [e.action, e.agent_id]).sort()).toEqual([
      ['agent.create', null],
      ['api_key.mint', null],
    ]);
  });
});

describe('POST /v1/arbitration/evaluate', () => {
  it('answers accept / counter_propose / reject like a booking would, with no claim and no audit row', async () => {
    const owner = await setupOwner(admin, { timeZone: TZ });
    const low = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'focus', start: day.at('14:00'), end: day.at('15:00') } });
    expect(low.status).toBe(201);
    const claimsBefore = (await claimsOf(admin, owner)).map((c) => [c.id, c.status]);
    const auditBefore = decisions((await audit('?limit=200')).entries).length;
    const evaluate = (body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/arbitration/evaluate', { key, body: { owner_email: owner, ...body } });

    const free = await evaluate({ meeting_class: 'internal', start: day.at('09:00'), end: day.at('10:00') });
    expect(free.status, free.text).toBe(200);
    expect(free.body).toEqual({ outcome: 'accept', alternatives: [], would_preempt: [] });

    expect((await evaluate({ meeting_class: 'external', start: day.at('14:00'), end: day.at('15:00') })).body).toMatchObject({ outcome: 'accept', would_preempt: [low.body.booking_id] });

    const counter = await evaluate({ meeting_class: 'focus', start: day.at('14:00'), end: day.at('15:00') });
    expect(counter.body).toMatchObject({ outcome: 'counter_propose', reason: 'COUNTER_PROPOSED', would_preempt: [] });
    expect(counter.body.alternatives[0]).toMatchObject({ reason_code: 'capacity_conflict' });

    const noPreempt = await newAgent(admin, ['read_availability']);
    const denied = await evaluate({ meeting_class: 'external', start: day.at('14:00'), end: day.at('15:00') }, noPreempt.key);
    expect(denied.body).toMatchObject({ outcome: 'reject', reason: 'PERMISSION_DENIED_PREEMPT' });

    const past = await evaluate({ meeting_class: 'internal', start: '2026-01-05T09:00:00Z', end: '2026-01-05T10:00:00Z' });
    expect(past.body).toMatchObject({ outcome: 'reject', reason: 'PAST_TIME' });

    expect((await claimsOf(admin, owner)).map((c) => [c.id, c.status])).toEqual(claimsBefore);
    expect(decisions((await audit('?limit=200')).entries).length).toBe(auditBefore);
    expect((await evaluate({ meeting_class: 'nope', start: day.at('09:00'), end: day.at('10:00') })).status).toBe(400);
    expectEnvelope(await evaluate({ meeting_class: 'internal', start: day.at('09:00'), end: day.at('10:00') }, (await newAgent(admin, ['create_bookings'])).key), 403, 'permission_denied:read_availability');
  });
});
