import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { approvalPolicies, calendarEvents, calendars, webhookEndpoints } from '@/db/schema';
import { deliverDueWebhooks } from '@/server/domain/webhooks/delivery';
import { enqueueNotification } from '@/server/domain/notificationService';
import { newId } from '@/server/domain/ids';
import { appRouter } from '@/server/trpc/router';
import { createCallerFactory } from '@/server/trpc/init';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { startReceiver } from '../webhooks/receiver';
import { call, nextWeekday, ownerIdOf, setupOwner } from './fixtures';

/**
 * An owner's approval policy for agent writes (docs/api.md "Approval policies"): a booking a rule
 * covers answers 202 pending_approval with a hold; the owner approves (the hold promoted through
 * the claim runner, arbitrated again) or declines (the hold released) in the dashboard's tRPC,
 * and the agent hears booking.approved / booking.declined as notification and webhook.
 */
allowLoopbackOutbound();
let admin: TestCustomer;
const closers: (() => Promise<void>)[] = [];
const day = nextWeekday('thu', 'UTC');
const AGENT_PERMISSIONS = ['read_availability', 'create_holds', 'create_bookings'];

beforeAll(async () => {
  admin = await newCustomer();
});

afterEach(async () => {
  while (closers.length) await closers.pop()!();
  await (await getDb()).delete(webhookEndpoints).where(eq(webhookEndpoints.customerId, admin.customerId));
});

/** An owner (Mon-Fri 09:00-17:00 UTC) and a tRPC caller signed in as them. */
async function owner() {
  const email = await setupOwner(admin);
  const ownerId = await ownerIdOf(admin, email);
  const req = new Request('http://scheduler.test/api/trpc');
  const caller = createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId, customerId: admin.customerId, email, role: 'member' }, db: await getDb(), now: () => new Date() });
  return { email, ownerId, caller };
}

const rule = (body: Record<string, unknown>) => call('POST', '/v1/approval-policies', { key: admin.key, body });
const book = (key: string, ownerEmail: string, start: string, end: string, meetingClass = 'external', extra: Record<string, unknown> = {}) =>
  call('POST', '/v1/bookings', { key, body: { owner_email: ownerEmail, meeting_class: meetingClass, start, end, title: 'Roadmap review', attendees: [{ email: 'guest@example.com' }], ...extra } });

async function webhookReceiver(key: string) {
  const r = await startReceiver();
  closers.push(r.close);
  const ep = await call('POST', '/v1/webhooks', { key, body: { url: r.url, events: ['booking.approved', 'booking.declined', 'booking.confirmed', 'booking.created'] } });
  expect(ep.status, ep.text).toBe(201);
  return r;
}

const deliver = async () => deliverDueWebhooks(await getDb(), { allowPrivate: true, retryBaseMs: 60_000, random: () => 0, notifyDisabled: enqueueNotification, customerId: admin.customerId }, () => new Date());
const cause = (code: string) => ({ cause: expect.objectContaining({ code }) });
const audit = async (ownerEmail: string, action: string) =>
  (await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(ownerEmail)}&action=${action}`, { key: admin.key })).body.entries as Record<string, unknown>[];

describe('approval policy', () => {
  it("a rule on an agent: its booking answers 202 pending_approval with a hold and a request in the owner's inbox; other agents book", async () => {
    const o = await owner();
    const held = await newAgent(admin, AGENT_PERMISSIONS);
    const free = await newAgent(admin, AGENT_PERMISSIONS);
    const created = await rule({ owner_email: o.email, agent_id: held.agentId });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ owner_email: o.email, agent_id: held.agentId, agent_name: 'test agent', meeting_class: null });

    const res = await call('POST', '/v1/bookings', {
      key: held.key,
      headers: { 'Idempotency-Key': `held-${newId()}` },
      body: { owner_email: o.email, meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30'), title: 'Roadmap review' },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ status: 'pending_approval', owner_email: o.email, meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30'), expires_at: day.at('10:00'), title: 'Roadmap review' });
    const hold = await call('GET', `/v1/holds/${res.body.hold_id}`, { key: held.key });
    expect(hold.body).toMatchObject({ status: 'active', held_window: { start: day.at('10:00'), end: day.at('10:30') } });
    const proposal = await call('GET', `/v1/booking-proposals/${res.body.proposal_id}`, { key: held.key });
    expect(proposal.body).toMatchObject({ proposal_id: res.body.proposal_id, status: 'pending_review' });
    const inbox = (await o.caller.proposals.listPending()).proposals;
    expect(inbox).toEqual([expect.objectContaining({ proposal_id: res.body.proposal_id, origin: 'agent', agent_id: held.agentId, hold_id: res.body.hold_id, title: 'Roadmap review' })]);
    const [requested] = await audit(o.email, 'booking.request');
    expect(requested).toMatchObject({ outcome: 'accept', agent_id: held.agentId, hold_id: res.body.hold_id, booking_id: null });

    // Another agent, no rule: books at once; the held time is taken.
    expect((await book(free.key, o.email, day.at('11:00'), day.at('11:30'))).status).toBe(201);
    expectEnvelope(await book(free.key, o.email, day.at('10:00'), day.at('10:30')), 409, 'ARBITRATION_REJECTED');
  });

  it('a rule on a meeting class: only bookings of that class wait', async () => {
    const o = await owner();
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    expect((await rule({ owner_email: o.email, meeting_class: 'internal' })).status).toBe(201);
    expect((await book(agent.key, o.email, day.at('09:00'), day.at('09:30'), 'external')).status).toBe(201);
    const held = await book(agent.key, o.email, day.at('13:00'), day.at('13:30'), 'internal');
    expect(held.status, held.text).toBe(202);
    expect(held.body.status).toBe('pending_approval');
  });

  it('approve: the hold becomes the booking, the agent hears booking.approved (notification and webhook), audited with the owner', async () => {
    const o = await owner();
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    await rule({ owner_email: o.email, agent_id: agent.agentId });
    const receiver = await webhookReceiver(agent.key);
    const res = await book(agent.key, o.email, day.at('14:00'), day.at('15:00'));
    expect(res.status, res.text).toBe(202);

    const approved = await o.caller.proposals.approve({ proposal_id: res.body.proposal_id });
    expect(approved).toMatchObject({ status: 'booked', start: day.at('14:00'), end: day.at('15:00'), preempted_booking_ids: [] });
    const booking = await call('GET', `/v1/bookings/${approved.booking_id}`, { key: agent.key });
    expect(booking.body).toMatchObject({ status: 'confirmed', hold_id: res.body.hold_id, title: 'Roadmap review', attendees: [expect.objectContaining({ email: 'guest@example.com' })] });
    expect((await call('GET', `/v1/holds/${res.body.hold_id}`, { key: agent.key })).body.status).toBe('promoted');
    expect((await call('GET', `/v1/booking-proposals/${res.body.proposal_id}`, { key: agent.key })).body).toMatchObject({ status: 'booked', booking_id: approved.booking_id });

    const notes = (await call('GET', '/v1/notifications', { key: agent.key })).body.notifications;
    expect(notes).toEqual([
      expect.objectContaining({
        kind: 'booking.approved',
        data: expect.objectContaining({ proposal_id: res.body.proposal_id, booking_id: approved.booking_id, hold_id: res.body.hold_id, owner_email: o.email, approved_by: { email: o.email }, actor: { kind: 'owner', email: o.email } }),
      }),
    ]);
    await deliver();
    const kinds = receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
    expect(kinds.map((k) => k.type)).toEqual(['booking.approved']);
    expect(kinds[0].data).toMatchObject({ booking_id: approved.booking_id, approved_by: { email: o.email } });

    const [review] = await audit(o.email, 'proposal.review');
    expect(review).toMatchObject({ outcome: 'accept', actor_kind: 'owner', actor_owner_email: o.email, owner_email: o.email, booking_id: approved.booking_id, hold_id: res.body.hold_id });
  });

  it('approve after the calendar changed is refused with the reason; the request and its hold stay', async () => {
    const o = await owner();
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    await rule({ owner_email: o.email, agent_id: agent.agentId });
    const res = await book(agent.key, o.email, day.at('15:00'), day.at('15:30'));
    expect(res.status, res.text).toBe(202);
    // Since: an event appears in the owner's connected provider calendar over the held time.
    const db = await getDb();
    const calendarId = newId();
    await db.insert(calendars).values({ id: calendarId, customerId: admin.customerId, ownerId: o.ownerId, type: 'fake', displayName: 'Fake', status: 'active', lastSyncedAt: new Date() });
    await db.insert(calendarEvents).values({ id: newId(), calendarId, ownerId: o.ownerId, resource: 'r1', uid: 'busy-1', startAt: new Date(day.at('15:00')), endAt: new Date(day.at('16:00')) });

    const refusal = await o.caller.proposals.approve({ proposal_id: res.body.proposal_id }).catch((e: unknown) => e as { cause: { code: string; reason?: string; message: string } });
    expect(refusal).toMatchObject({ cause: { code: 'ARBITRATION_REJECTED', reason: 'SACRED_MEETING' } });
    expect((refusal as { cause: { message: string } }).cause.message).toMatch(/^The calendar changed since the agent asked: /);
    expect((await o.caller.proposals.get({ proposal_id: res.body.proposal_id })).status).toBe('pending_review');
    expect((await call('GET', `/v1/holds/${res.body.hold_id}`, { key: agent.key })).body.status).toBe('active');
    const [rejected] = await audit(o.email, 'proposal.review');
    expect(rejected).toMatchObject({ outcome: 'reject', reason: 'SACRED_MEETING', actor_kind: 'owner', actor_owner_email: o.email });
  });

  it('decline: the hold is released, the agent hears booking.declined (notification and webhook), audited with the owner', async () => {
    const o = await owner();
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    const other = await newAgent(admin, AGENT_PERMISSIONS);
    await rule({ owner_email: o.email, agent_id: agent.agentId });
    const receiver = await webhookReceiver(agent.key);
    const res = await book(agent.key, o.email, day.at('16:00'), day.at('16:30'));
    expect(res.status, res.text).toBe(202);

    const declined = await o.caller.proposals.decline({ proposal_id: res.body.proposal_id, reason: 'I am out that afternoon' });
    expect(declined).toMatchObject({ status: 'declined', booking_id: null });
    expect((await call('GET', `/v1/holds/${res.body.hold_id}`, { key: agent.key })).body.status).toBe('released');
    // The time is free again.
    expect((await book(other.key, o.email, day.at('16:00'), day.at('16:30'))).status).toBe(201);
    await expect(o.caller.proposals.approve({ proposal_id: res.body.proposal_id })).rejects.toMatchObject(cause('PROPOSAL_NOT_PENDING'));

    const notes = (await call('GET', '/v1/notifications', { key: agent.key })).body.notifications;
    expect(notes).toEqual([
      expect.objectContaining({ kind: 'booking.declined', data: expect.objectContaining({ proposal_id: res.body.proposal_id, hold_id: res.body.hold_id, reason: 'I am out that afternoon', declined_by: { email: o.email } }) }),
    ]);
    await deliver();
    expect(receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual(['booking.declined']);
    const [decline] = await audit(o.email, 'proposal.decline');
    expect(decline).toMatchObject({ outcome: 'reject', actor_kind: 'owner', actor_owner_email: o.email, reason: 'I am out that afternoon' });
  });

  it("a hold confirmed by a covered agent waits too (202 on confirm, the same request again); approval books the confirmed slot", async () => {
    const o = await owner();
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    await rule({ owner_email: o.email, agent_id: agent.agentId });
    const hold = await call('POST', '/v1/holds', { key: agent.key, body: { owner_email: o.email, meeting_class: 'external', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('11:00') } } });
    expect(hold.status, hold.text).toBe(200);
    const slot = { start: day.at('09:30'), end: day.at('10:00') };
    const confirm = () => call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: agent.key, body: { ...slot, title: 'Held confirm' } });
    const first = await confirm();
    expect(first.status, first.text).toBe(202);
    expect(first.body).toMatchObject({ status: 'pending_approval', hold_id: hold.body.hold_id, ...slot, expires_at: slot.start, title: 'Held confirm' });
    // The hold now claims only the confirmed slot, until the meeting's start.
    expect((await call('GET', `/v1/holds/${hold.body.hold_id}`, { key: agent.key })).body).toMatchObject({ status: 'active', hold_scope: 'candidate', held_window: slot, expires_at: slot.start });
    const again = await confirm();
    expect(again.status).toBe(202);
    expect(again.body.proposal_id).toBe(first.body.proposal_id);
    const approved = await o.caller.proposals.approve({ proposal_id: first.body.proposal_id });
    expect(approved).toMatchObject({ status: 'booked', ...slot });
    expect((await call('GET', `/v1/bookings/${approved.booking_id}`, { key: agent.key })).body).toMatchObject({ status: 'confirmed', hold_id: hold.body.hold_id, title: 'Held confirm' });
  });

  it('a group booking (or group hold confirm) naming a covered owner is refused with APPROVAL_REQUIRED', async () => {
    const o = await owner();
    const other = await setupOwner(admin);
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    await rule({ owner_email: o.email, meeting_class: 'external' });
    const res = await call('POST', '/v1/bookings', { key: agent.key, body: { owner_emails: [other, o.email], meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30') } });
    expect(expectEnvelope(res, 409, 'APPROVAL_REQUIRED').message).toContain(o.email);
    // Nor can a group hold's confirm wait: refused, the holds unchanged.
    const hold = await call('POST', '/v1/holds', { key: agent.key, body: { owner_emails: [other, o.email], meeting_class: 'external', hold_scope: 'candidate', candidate: { start: day.at('10:00'), end: day.at('10:30') } } });
    expect(hold.status, hold.text).toBe(200);
    const confirm = await call('POST', `/v1/bookings/${hold.body.group_id}/confirm`, { key: agent.key, body: { start: day.at('10:00'), end: day.at('10:30') } });
    expect(expectEnvelope(confirm, 409, 'APPROVAL_REQUIRED').message).toContain(o.email);
    expect((await call('GET', `/v1/holds/${hold.body.hold_id}`, { key: agent.key })).body.status).toBe('active');
  });

  it('rules are administered over REST (manage_customer), audited; a removed rule books directly again', async () => {
    const o = await owner();
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    expectEnvelope(await rule({ owner_email: o.email }), 400, 'invalid_request');
    expectEnvelope(await rule({ owner_email: o.email, meeting_class: 'no-such-class' }), 400, 'INVALID_MEETING_CLASS');
    expectEnvelope(await rule({ owner_email: o.email, agent_id: newId() }), 404, 'AGENT_NOT_FOUND');
    const first = await rule({ owner_email: o.email, agent_id: agent.agentId, meeting_class: 'external' });
    expect(first.status, first.text).toBe(201);
    expectEnvelope(await rule({ owner_email: o.email, agent_id: agent.agentId, meeting_class: 'external' }), 409, 'APPROVAL_POLICY_EXISTS');
    expectEnvelope(await call('POST', '/v1/approval-policies', { key: agent.key, body: { owner_email: o.email, meeting_class: 'internal' } }), 403, 'permission_denied:manage_customer');
    const list = await call('GET', `/v1/approval-policies?owner_email=${encodeURIComponent(o.email)}`, { key: admin.key });
    expect(list.body.approval_policies).toEqual([first.body]);
    expect((await audit(o.email, 'approval_policy.create'))[0]).toMatchObject({ outcome: 'accept', agent_id: admin.agentId, details: expect.objectContaining({ policy_id: first.body.policy_id }) });

    expect((await book(agent.key, o.email, day.at('09:30'), day.at('10:00'))).status).toBe(202);
    const removed = await call('DELETE', `/v1/approval-policies/${first.body.policy_id}`, { key: admin.key });
    expect(removed.status, removed.text).toBe(200);
    expectEnvelope(await call('DELETE', `/v1/approval-policies/${first.body.policy_id}`, { key: admin.key }), 404, 'APPROVAL_POLICY_NOT_FOUND');
    expect((await book(agent.key, o.email, day.at('12:00'), day.at('12:30'))).status).toBe(201);
  });

  it('the owner sets their own rules in the dashboard, audited with the owner', async () => {
    const o = await owner();
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    const options = await o.caller.approvals.list();
    expect(options.agents).toContainEqual({ agent_id: agent.agentId, name: 'test agent' });
    const added = await o.caller.approvals.add({ agent_id: agent.agentId });
    expect((await o.caller.approvals.list()).rules).toEqual([added]);
    expect((await audit(o.email, 'approval_policy.create'))[0]).toMatchObject({ actor_kind: 'owner', actor_owner_email: o.email });
    expect((await book(agent.key, o.email, day.at('11:30'), day.at('12:00'))).status).toBe(202);
    await o.caller.approvals.remove({ policy_id: added.policy_id });
    expect((await o.caller.approvals.list()).rules).toEqual([]);
  });

  it('the database refuses a rule naming neither agent nor class, and the same rule twice', async () => {
    const o = await owner();
    const db = await getDb();
    const code = (err: unknown) => (err as { cause?: { code?: string } }).cause?.code;
    await expect(db.insert(approvalPolicies).values({ id: newId(), customerId: admin.customerId, ownerId: o.ownerId })).rejects.toSatisfy((e) => code(e) === '23514');
    const agent = await newAgent(admin, AGENT_PERMISSIONS);
    await db.insert(approvalPolicies).values({ id: newId(), customerId: admin.customerId, ownerId: o.ownerId, agentId: agent.agentId });
    await expect(db.insert(approvalPolicies).values({ id: newId(), customerId: admin.customerId, ownerId: o.ownerId, agentId: agent.agentId })).rejects.toSatisfy((e) => code(e) === '23505');
    // An agent of another customer cannot be named (the composite foreign key).
    const stranger = await newCustomer();
    await expect(db.insert(approvalPolicies).values({ id: newId(), customerId: admin.customerId, ownerId: o.ownerId, agentId: stranger.agentId })).rejects.toSatisfy((e) => code(e) === '23503');
  });
});
