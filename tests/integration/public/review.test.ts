import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { claims } from '@/db/schema';
import { closeMailer } from '@/server/domain/email';
import { expectEnvelope, newAgent, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { setPrimaryCalendarStatus } from '../scheduling/fixtures';
import { call, confirm, expectNoLeaks, freshIp, meetingType, nextWeekday, ownerCaller, pub, pubUrl, publicOwner, submitFirst, useSmtp, type PublicSetup } from './fixtures';

let smtp: TestSmtp;
let admin: TestCustomer;
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

/** A verified (pending_review) public proposal for the first suggested time of `day`, and its id in the owner's list. */
async function pendingReview(s: PublicSetup, slug: string, day = nextWeekday('wed', 'UTC')) {
  const c = await submitFirst(s, slug, { ip: freshIp(), day });
  expect((await confirm(c)).status).toBe(200);
  const p = (await (await ownerCaller(s)).proposals.listPending()).proposals.find((x) => x.requester?.email === c.requester)!;
  return { ...c, proposalId: p.proposal_id };
}

const cause = (code: string, extra: Record<string, unknown> = {}) => ({ cause: { code, ...extra } });

describe('owner review of public proposals', () => {
  it('approves the requested time: a confirmed booking with source public and proposal_id, audited as proposal.review by no agent', async () => {
    const s = await publicOwner(admin);
    const slug = await meetingType(s, { duration_minutes: [30] });
    const c = await pendingReview(s, slug);
    const approved = await (await ownerCaller(s)).proposals.approve({ proposal_id: c.proposalId });
    expect(approved).toMatchObject({ status: 'booked', start: c.slot.start, end: c.slot.end, preempted_booking_ids: [] });
    const [claim] = await (await getDb()).select().from(claims).where(eq(claims.id, approved.booking_id!));
    expect(claim).toMatchObject({ kind: 'booking', status: 'confirmed', source: 'public', proposalId: c.proposalId, agentId: null, externalAccepted: true });
    // The booking keeps the request's title: the meeting type's, with the requester.
    expect(claim.title).toMatch(/^Intro call with \S+/);
    expect(claim.attendees[0]).toMatchObject({ email: c.requester, response: 'accepted' });
    const audit = await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(s.ownerEmail)}&action=proposal.review`, { key: admin.key });
    expect(audit.body.entries[0]).toMatchObject({ action: 'proposal.review', outcome: 'accept', agent_id: null, booking_id: approved.booking_id });
    expect((await pubUrl('GET', c.status_url)).body.status).toBe('booked');
    await expect((await ownerCaller(s)).proposals.approve({ proposal_id: c.proposalId })).rejects.toMatchObject(cause('PROPOSAL_NOT_PENDING'));
  });

  it('approves another time the owner chooses', async () => {
    const s = await publicOwner(admin);
    const slug = await meetingType(s, { duration_minutes: [30] });
    const c = await pendingReview(s, slug);
    const day = nextWeekday('wed', 'UTC');
    const approved = await (await ownerCaller(s)).proposals.approve({ proposal_id: c.proposalId, start: day.at('15:00'), end: day.at('16:00') });
    expect(approved).toMatchObject({ status: 'booked', start: day.at('15:00'), end: day.at('16:00') });
    await expect((await ownerCaller(s)).proposals.approve({ proposal_id: c.proposalId, start: day.at('15:00') })).rejects.toMatchObject(cause('PROPOSAL_NOT_PENDING'));
  });

  it('procedures judge time by the context clock: approving after the requested time has passed is PAST_TIME', async () => {
    const s = await publicOwner(admin);
    const slug = await meetingType(s, { duration_minutes: [30] });
    const c = await pendingReview(s, slug);
    const later = new Date(Date.parse(c.slot.end) + 3600_000);
    const owner = await ownerCaller(s, 'member', () => later);
    await expect(owner.proposals.approve({ proposal_id: c.proposalId })).rejects.toMatchObject(cause('PAST_TIME'));
    // the real clock still accepts the same approval
    expect(await (await ownerCaller(s)).proposals.approve({ proposal_id: c.proposalId })).toMatchObject({ status: 'booked' });
  });

  it('an arbitration rejection goes back to the owner and the proposal stays pending_review', async () => {
    const s = await publicOwner(admin);
    const slug = await meetingType(s, { duration_minutes: [30] });
    const c = await pendingReview(s, slug);
    // meanwhile an agent books the same time at the same priority
    const taken = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', start: c.slot.start, end: c.slot.end } });
    expect(taken.status, taken.text).toBe(201);
    const owner = await ownerCaller(s);
    await expect(owner.proposals.approve({ proposal_id: c.proposalId })).rejects.toMatchObject(cause('ARBITRATION_REJECTED', { reason: 'COUNTER_PROPOSED' }));
    expect((await pubUrl('GET', c.status_url)).body.status).toBe('pending_review');
    expect((await owner.proposals.listPending()).proposals.map((p) => p.proposal_id)).toContain(c.proposalId);
    const audit = await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(s.ownerEmail)}&action=proposal.review`, { key: admin.key });
    expect(audit.body.entries[0]).toMatchObject({ outcome: 'counter_propose', agent_id: null });
    // a past time is refused as PAST_TIME
    await expect(owner.proposals.approve({ proposal_id: c.proposalId, start: '2020-01-06T10:00:00Z', end: '2020-01-06T10:30:00Z' })).rejects.toMatchObject(cause('PAST_TIME'));
  });

  it("preempts a lower-priority claim when the type's policy is preempt_lower, and not when it is never", async () => {
    const s = await publicOwner(admin);
    const lower = await meetingType(s, { meeting_class: 'internal', duration_minutes: [30], public_preempt_policy: 'preempt_lower' });
    const never = await meetingType(s, { meeting_class: 'internal', duration_minutes: [30], public_preempt_policy: 'never' });
    const a = await pendingReview(s, lower, nextWeekday('mon', 'UTC'));
    const b = await pendingReview(s, never, nextWeekday('tue', 'UTC'));
    const focusA = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'focus', start: a.slot.start, end: a.slot.end } });
    const focusB = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'focus', start: b.slot.start, end: b.slot.end } });
    expect([focusA.status, focusB.status]).toEqual([201, 201]);
    const owner = await ownerCaller(s);
    // The review page knows beforehand what approving would move aside.
    const [verdict] = await owner.proposals.approvalVerdicts({ proposal_id: a.proposalId, times: [{ start: a.slot.start, end: a.slot.end }] });
    expect(verdict).toMatchObject({ verdict: 'preempts', displaced: [{ id: focusA.body.booking_id, kind: 'booking', meeting_class: 'focus', start: a.slot.start, end: a.slot.end }] });
    // Not without the owner's confirmation of exactly that meeting (a stale page cannot bump silently).
    await expect(owner.proposals.approve({ proposal_id: a.proposalId })).rejects.toMatchObject(
      cause('PREEMPTION_NOT_CONFIRMED', { extra: { displaced: [expect.objectContaining({ id: focusA.body.booking_id, meeting_class: 'focus' })] } }),
    );
    await expect(owner.proposals.approve({ proposal_id: a.proposalId, confirm_preemption: [b.proposalId] })).rejects.toMatchObject(cause('PREEMPTION_NOT_CONFIRMED'));
    expect((await call('GET', `/v1/bookings/${focusA.body.booking_id}`, { key: admin.key })).body.status).toBe('confirmed');
    expect((await pubUrl('GET', a.status_url)).body.status).toBe('pending_review');
    const ok = await owner.proposals.approve({ proposal_id: a.proposalId, confirm_preemption: [focusA.body.booking_id] });
    expect(ok.preempted_booking_ids).toEqual([focusA.body.booking_id]);
    expect((await call('GET', `/v1/bookings/${focusA.body.booking_id}`, { key: admin.key })).body.status).toBe('preempted');
    await expect(owner.proposals.approve({ proposal_id: b.proposalId })).rejects.toMatchObject(cause('ARBITRATION_REJECTED'));
    // the agent whose booking gave way hears of it, and why in words
    const notes = await call('GET', '/v1/notifications', { key: admin.key });
    const note = notes.body.notifications.find((n: { kind: string; data: { booking_id?: string } }) => n.kind === 'booking.preempted' && n.data.booking_id === focusA.body.booking_id);
    expect(note.data.reason).toMatch(/approved ".+ with .+" \(internal, a higher priority\) at this time/);
    const [gone] = await (await getDb()).select().from(claims).where(eq(claims.id, focusA.body.booking_id));
    expect(gone.statusReason).toBe(note.data.reason);
  });

  it('refuses with 409 booking_limit_exceeded when an allocation is full', async () => {
    const s = await publicOwner(admin);
    const slug = await meetingType(s, { duration_minutes: [30] });
    const alloc = await call('POST', '/v1/public-scheduling/allocations', { key: admin.key, body: { link_id: s.linkId, slug, limit: 1, period: 'day' } });
    expect(alloc.status, alloc.text).toBe(201);
    const day = nextWeekday('thu', 'UTC');
    const first = await pendingReview(s, slug, day);
    const second = await pendingReview(s, slug, day);
    const owner = await ownerCaller(s);
    await owner.proposals.approve({ proposal_id: first.proposalId });
    await expect(owner.proposals.approve({ proposal_id: second.proposalId, start: day.at('14:00'), end: day.at('14:30') })).rejects.toMatchObject(cause('booking_limit_exceeded'));
    expect((await pubUrl('GET', second.status_url)).body.status).toBe('pending_review');
    // another day is fine
    const friday = nextWeekday('fri', 'UTC');
    expect((await owner.proposals.approve({ proposal_id: second.proposalId, start: friday.at('14:00'), end: friday.at('14:30') })).status).toBe('booked');
  });

  it('approves a free-text request only with a meeting class and a time', async () => {
    const s = await publicOwner(admin);
    const requester = uniqueEmail('free');
    const created = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip: freshIp(), body: { requester_contact: { email: requester }, attendees: [], message: 'Coffee?' } });
    expect(created.status, created.text).toBe(201);
    await confirm(created.body);
    const owner = await ownerCaller(s);
    const p = (await owner.proposals.listPending()).proposals.find((x) => x.requester?.email === requester)!;
    expect(p).toMatchObject({ meeting_type: null, meeting_class: null, requested_window: null, message: 'Coffee?' });
    const day = nextWeekday('wed', 'UTC');
    await expect(owner.proposals.approve({ proposal_id: p.proposal_id, start: day.at('10:00'), end: day.at('10:30') })).rejects.toMatchObject(cause('invalid_request'));
    await expect(owner.proposals.approve({ proposal_id: p.proposal_id, meeting_class: 'external' })).rejects.toMatchObject(cause('invalid_request'));
    const ok = await owner.proposals.approve({ proposal_id: p.proposal_id, meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30') });
    expect(ok.status).toBe('booked');
    expect((await smtp.waitFor(requester, { subject: /accepted/i })).text).toContain('booked');
  });

  it('an owner sees and decides only their own proposals', async () => {
    const s = await publicOwner(admin);
    const slug = await meetingType(s, { duration_minutes: [30] });
    const c = await pendingReview(s, slug);
    const other = await publicOwner(admin);
    const intruder = await ownerCaller(other, 'admin');
    expect((await intruder.proposals.listPending()).proposals).toEqual([]);
    await expect(intruder.proposals.approve({ proposal_id: c.proposalId })).rejects.toMatchObject(cause('PROPOSAL_NOT_FOUND'));
    await expect(intruder.proposals.decline({ proposal_id: c.proposalId })).rejects.toMatchObject(cause('PROPOSAL_NOT_FOUND'));
    await expect(intruder.proposals.approve({ proposal_id: 'not-a-uuid' })).rejects.toMatchObject(cause('PROPOSAL_NOT_FOUND'));
    // unverified proposals are not in the list
    const unverified = await submitFirst(s, slug, { ip: freshIp() });
    expect((await (await ownerCaller(s)).proposals.listPending()).proposals.map((p) => p.requester?.email)).not.toContain(unverified.requester);
    // and nobody signed in gets UNAUTHORIZED
    const { createCallerFactory } = await import('@/server/trpc/init');
    const { appRouter } = await import('@/server/trpc/router');
    const req = new Request('http://scheduler.test/api/trpc');
    await expect(createCallerFactory(appRouter)({ req, headers: req.headers, owner: null, db: await getDb(), now: () => new Date() }).proposals.listPending()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('agent proposals (/v1/booking-proposals)', () => {
  it('creates up to 5 candidates pending review; the owner approves; the agent is notified and reads booked', async () => {
    const s = await publicOwner(admin);
    const agent = await newAgent(admin, ['create_proposals']);
    const day = nextWeekday('tue', 'UTC');
    const window = { start: day.at('09:00'), end: day.at('17:00') };
    const created = await call('POST', '/v1/booking-proposals', { key: agent.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', duration_minutes: 60, window, attendees: [{ email: 'x@partner.example', name: 'X' }], message: 'Quarterly sync' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.status).toBe('pending_review');
    expect(created.body.candidates).toHaveLength(5);
    expect(created.body.candidates[0]).toEqual({ start: day.at('09:00'), end: day.at('10:00') });
    const id = created.body.proposal_id;
    expect((await call('GET', `/v1/booking-proposals/${id}`, { key: agent.key })).body).toEqual({ proposal_id: id, status: 'pending_review', candidates: created.body.candidates });

    const owner = await ownerCaller(s);
    const listed = (await owner.proposals.listPending()).proposals.find((p) => p.proposal_id === id)!;
    expect(listed).toMatchObject({ origin: 'agent', agent_id: agent.agentId, meeting_class: 'internal', requested_window: window, message: 'Quarterly sync', requester: null, title: 'Internal meeting with X' });
    const approved = await owner.proposals.approve({ proposal_id: id, start: created.body.candidates[2].start, end: created.body.candidates[2].end });
    const got = await call('GET', `/v1/booking-proposals/${id}`, { key: agent.key });
    expect(got.body).toMatchObject({ status: 'booked', booking_id: approved.booking_id });
    const notes = await call('GET', '/v1/notifications', { key: agent.key });
    expect(notes.body.notifications).toEqual([
      expect.objectContaining({ kind: 'proposal.reviewed', data: { proposal_id: id, status: 'booked', booking_id: approved.booking_id, owner_email: s.ownerEmail, start: created.body.candidates[2].start, end: created.body.candidates[2].end, actor: { kind: 'owner', email: s.ownerEmail } } }),
    ]);
    const [claim] = await (await getDb()).select().from(claims).where(eq(claims.id, approved.booking_id!));
    expect(claim).toMatchObject({ source: 'agent', agentId: agent.agentId, proposalId: id, title: 'Internal meeting with X' });

    // a declined one notifies too
    const second = await call('POST', '/v1/booking-proposals', { key: agent.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', duration_minutes: 30, window, attendees: [] } });
    await owner.proposals.decline({ proposal_id: second.body.proposal_id, reason: 'No' });
    expect((await call('GET', `/v1/booking-proposals/${second.body.proposal_id}`, { key: agent.key })).body.status).toBe('declined');
    const more = await call('GET', '/v1/notifications', { key: agent.key });
    expect(more.body.notifications[0]).toMatchObject({ kind: 'proposal.reviewed', data: { proposal_id: second.body.proposal_id, status: 'declined', reason: 'No' } });
  });

  it("keeps the agent's title on the booking and in the attendees' invitation", async () => {
    const s = await publicOwner(admin);
    const agent = await newAgent(admin, ['create_proposals']);
    const day = nextWeekday('thu', 'UTC');
    const attendee = uniqueEmail('hooli');
    const title = 'Intro call with Hooli about the pilot';
    const created = await call('POST', '/v1/booking-proposals', {
      key: agent.key,
      body: { owner_email: s.ownerEmail, meeting_class: 'external', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('12:00') }, title, attendees: [{ email: attendee, name: 'Gavin' }] },
    });
    expect(created.status, created.text).toBe(201);
    const owner = await ownerCaller(s);
    expect((await owner.proposals.listPending()).proposals.find((p) => p.proposal_id === created.body.proposal_id)?.title).toBe(title);
    const approved = await owner.proposals.approve({ proposal_id: created.body.proposal_id });
    const [claim] = await (await getDb()).select().from(claims).where(eq(claims.id, approved.booking_id!));
    expect(claim.title).toBe(title);
    const { sendDueInvitations } = await import('@/server/domain/calendars/invitations');
    await sendDueInvitations(await getDb(), new Date(), 100, admin.customerId);
    const mail = await smtp.waitFor(attendee, { subject: /Invitation/ });
    expect(mail.subject).toBe(`Invitation: ${title}`);
  });

  it('answers the search errors, the permission, and PROPOSAL_NOT_FOUND for foreign ids', async () => {
    const s = await publicOwner(admin);
    const agent = await newAgent(admin, ['create_proposals']);
    const day = nextWeekday('tue', 'UTC');
    const body = (over: Record<string, unknown> = {}) => ({ owner_email: s.ownerEmail, meeting_class: 'internal', duration_minutes: 60, window: { start: day.at('09:00'), end: day.at('17:00') }, attendees: [], ...over });
    const post = (b: unknown, key = agent.key) => call('POST', '/v1/booking-proposals', { key, body: b });
    expectEnvelope(await post(body({ window: { start: day.at('09:00'), end: day.at('09:30') } })), 422, 'WINDOW_TOO_NARROW');
    expectEnvelope(await post(body({ window: { start: '2020-01-06T09:00:00Z', end: '2020-01-06T17:00:00Z' } })), 422, 'PAST_TIME');
    const sat = nextWeekday('sat', 'UTC');
    const noSlots = await post(body({ window: { start: sat.at('09:00'), end: sat.at('17:00') } }));
    expectEnvelope(noSlots, 409, 'NO_SLOTS_AVAILABLE');
    expect(noSlots.body.reason_code).toBe('OFF_DAY');
    expect(noSlots.body.next_available).toBeDefined();
    expectEnvelope(await post(body({ meeting_class: 'nope' })), 400, 'INVALID_MEETING_CLASS');
    expectEnvelope(await post(body({ owner_email: uniqueEmail('ghost') })), 404, 'OWNER_NOT_FOUND');
    const broken = await publicOwner(admin);
    await setPrimaryCalendarStatus(admin, broken.ownerEmail, 'reauth_required');
    expectEnvelope(await post(body({ owner_email: broken.ownerEmail })), 409, 'CALENDAR_REAUTH_REQUIRED');
    const reader = await newAgent(admin, ['read_availability']);
    expectEnvelope(await post(body(), reader.key), 403, 'permission_denied:create_proposals');
    const scoped = await newAgent(admin, ['create_proposals'], `user:${uniqueEmail('elsewhere')}`);
    expectEnvelope(await post(body(), scoped.key), 403, 'owner_scope_denied');

    const mine = await post(body());
    expect(mine.status).toBe(201);
    const stranger = await newCustomer();
    expectEnvelope(await call('GET', `/v1/booking-proposals/${mine.body.proposal_id}`, { key: stranger.key }), 404, 'PROPOSAL_NOT_FOUND');
    expectEnvelope(await call('GET', '/v1/booking-proposals/not-an-id', { key: agent.key }), 404, 'PROPOSAL_NOT_FOUND');
    // public proposals are not readable as agent proposals
    const slug = await meetingType(s, { duration_minutes: [30] });
    const pubC = await pendingReview(s, slug);
    expectEnvelope(await call('GET', `/v1/booking-proposals/${pubC.proposalId}`, { key: admin.key }), 404, 'PROPOSAL_NOT_FOUND');
  });
});
