import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { AUDIT_ACTIONS } from '@/db/schema';
import { closeMailer } from '@/server/domain/email';
import { expireLapsed } from '@/server/domain/publicScheduling/review/expiry';
import { expectEnvelope, newAgent, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { call, confirm, freshIp, meetingType, nextWeekday, ownerCaller, pub, proposalRow, publicOwner, submitFirst, useSmtp, type PublicSetup } from '../public/fixtures';

/**
 * Every audit row names its actor (docs/reliability.md, "Audit actors"): the owner who
 * approves or declines in the dashboard (not the proposal's agent), the preemptions an
 * approval causes, the requester's own events, the dashboard's administrative changes, the
 * system's expiry, and the owner an owner_scope_denied refusal was asked for. Every action
 * of the one list can be filtered on REST and tRPC; a reversed range is refused by both.
 */
type Entry = {
  id: string;
  action: string;
  outcome: string;
  reason: string | null;
  agent_id: string | null;
  owner_email: string | null;
  actor_kind: 'agent' | 'owner' | 'requester' | 'system';
  actor_owner_email: string | null;
  actor_requester_email: string | null;
  booking_id: string | null;
  hold_id: string | null;
  details: Record<string, unknown> | null;
};

let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  s = await publicOwner(admin);
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

async function log(query: string): Promise<Entry[]> {
  const res = await call('GET', `/v1/audit-log?limit=200&${query}`, { key: admin.key });
  expect(res.status, res.text).toBe(200);
  return res.body.entries;
}

/** The entries of one action about the test's owner whose details name this proposal. */
async function ofProposal(action: string, proposalId: string): Promise<Entry[]> {
  return (await log(`action=${action}&owner_email=${encodeURIComponent(s.ownerEmail)}`)).filter((e) => e.details?.proposal_id === proposalId);
}

const asOwner = (email: string) => ({ actor_kind: 'owner', actor_owner_email: email, agent_id: null, actor_requester_email: null });

describe('audit actors', () => {
  it("an approval of an agent's proposal in the dashboard is the owner's act, not the agent's; a decline is recorded too", async () => {
    const agent = await newAgent(admin, ['create_proposals']);
    const day = nextWeekday('tue', 'UTC');
    const window = { start: day.at('09:00'), end: day.at('17:00') };
    const created = await call('POST', '/v1/booking-proposals', { key: agent.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', duration_minutes: 30, window, attendees: [] } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.proposal_id as string;
    // the agent's own act
    expect(await ofProposal('proposal.create', id)).toEqual([expect.objectContaining({ outcome: 'accept', actor_kind: 'agent', agent_id: agent.agentId, owner_email: s.ownerEmail })]);

    const approved = await (await ownerCaller(s)).proposals.approve({ proposal_id: id });
    const [row] = await ofProposal('proposal.review', id);
    expect(row).toMatchObject({ outcome: 'accept', booking_id: approved.booking_id, owner_email: s.ownerEmail, ...asOwner(s.ownerEmail) });
    expect(row.details).toMatchObject({ proposal_id: id, proposal_agent_id: agent.agentId });
    // `agent_id=<the proposal's agent>` shows what that agent did: its proposal, not the owner's approval
    const byAgent = await log(`agent_id=${agent.agentId}`);
    expect(byAgent.map((e) => e.action)).toEqual(['proposal.create']);

    const second = await call('POST', '/v1/booking-proposals', { key: agent.key, body: { owner_email: s.ownerEmail, meeting_class: 'internal', duration_minutes: 30, window, attendees: [] } });
    await (await ownerCaller(s)).proposals.decline({ proposal_id: second.body.proposal_id, reason: 'Too busy this week' });
    expect(await ofProposal('proposal.decline', second.body.proposal_id)).toEqual([
      expect.objectContaining({ outcome: 'reject', reason: 'Too busy this week', owner_email: s.ownerEmail, ...asOwner(s.ownerEmail) }),
    ]);
  });

  it('an approval that preempts records each preempted claim, by the approving owner', async () => {
    const slug = await meetingType(s, { meeting_class: 'internal', duration_minutes: [30], public_preempt_policy: 'preempt_lower' });
    const c = await submitFirst(s, slug, { ip: freshIp(), day: nextWeekday('mon', 'UTC') });
    expect((await confirm(c)).status).toBe(200);
    const focus = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'focus', start: c.slot.start, end: c.slot.end } });
    expect(focus.status, focus.text).toBe(201);
    const proposalId = (await proposalRow(c.token)).id;
    const approved = await (await ownerCaller(s)).proposals.approve({ proposal_id: proposalId, confirm_preemption: [focus.body.booking_id] });
    expect(approved.preempted_booking_ids).toEqual([focus.body.booking_id]);

    const preempts = (await log(`action=claim.preempt&owner_email=${encodeURIComponent(s.ownerEmail)}`)).filter((e) => e.booking_id === focus.body.booking_id);
    expect(preempts).toEqual([expect.objectContaining({ outcome: 'accept', reason: expect.stringMatching(/approved .* which replaces this meeting/), owner_email: s.ownerEmail, hold_id: null, ...asOwner(s.ownerEmail) })]);
    expect(preempts[0].details).toMatchObject({ claim_kind: 'booking', preempted_by_claim_id: approved.booking_id, preempted_agent_id: admin.agentId, cause: 'proposal.review' });
    const [review] = await ofProposal('proposal.review', proposalId);
    expect(review).toMatchObject({ booking_id: approved.booking_id, ...asOwner(s.ownerEmail) });
  });

  it("records the requester's submission, contact verification and withdrawal as theirs, and an expiry as the system's", async () => {
    const slug = await meetingType(s, { duration_minutes: [30] });
    const c = await submitFirst(s, slug, { ip: freshIp(), day: nextWeekday('thu', 'UTC') });
    const id = (await proposalRow(c.token)).id;
    const asRequester = { actor_kind: 'requester', actor_requester_email: c.requester, agent_id: null, actor_owner_email: null, owner_email: s.ownerEmail };
    expect(await ofProposal('proposal.submit', id)).toEqual([expect.objectContaining({ outcome: 'accept', ...asRequester })]);
    expect((await confirm(c)).status).toBe(200);
    expect(await ofProposal('proposal.contact_verify', id)).toEqual([expect.objectContaining(asRequester)]);
    const withdrawn = await pub('POST', `/public/booking-proposals/${c.token}/withdraw`, { ip: freshIp() });
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(await ofProposal('proposal.withdraw', id)).toEqual([expect.objectContaining(asRequester)]);
    // only the requester's events name them
    expect((await log(`actor_kind=requester&owner_email=${encodeURIComponent(s.ownerEmail)}`)).filter((e) => e.details?.proposal_id === id).map((e) => e.action)).toEqual([
      'proposal.withdraw',
      'proposal.contact_verify',
      'proposal.submit',
    ]);

    // an unverified one lapses: the clock acted, once
    const lapsing = await submitFirst(s, slug, { ip: freshIp(), day: nextWeekday('fri', 'UTC') });
    const row = await proposalRow(lapsing.token);
    const db = await getDb();
    const later = new Date(row.expiresAt!.getTime() + 1000);
    expect((await expireLapsed(db, row, later)).status).toBe('expired');
    await expireLapsed(db, row, later); // a second look flips nothing and writes nothing
    expect(await ofProposal('proposal.expire', row.id)).toEqual([expect.objectContaining({ actor_kind: 'system', agent_id: null, actor_owner_email: null, actor_requester_email: null })]);
  });

  it('changes made in the dashboard (meeting classes, agents, keys, requesters, public scheduling, schedule rules) name the acting owner', async () => {
    const adminOwner = await ownerCaller(s, 'admin');
    const className = `dash-${Date.now().toString(36)}`;
    await adminOwner.admin.meetingClasses.create({ name: className, priority: 35 });
    const agent = await adminOwner.admin.agents.create({ name: 'Dashboard agent', owner_scope: 'org:*', permissions: ['read_audit'] });
    await adminOwner.admin.agents.update({ agent_id: agent.agent_id, patch: { name: 'Renamed agent' } });
    await adminOwner.admin.agents.mintKey({ agent_id: agent.agent_id });
    const identity = await adminOwner.admin.requesters.identities.create({ email: uniqueEmail('dash-requester') });
    const link = await adminOwner.admin.publicScheduling.links.create({ owner_email: s.ownerEmail, alias: `dash-${Date.now().toString(36)}` });
    await (await ownerCaller(s)).schedule.put({ working_hours: { mon: [{ start: '09:00', end: '17:00' }], tue: [{ start: '09:00', end: '17:00' }], wed: [{ start: '09:00', end: '17:00' }], thu: [{ start: '09:00', end: '17:00' }], fri: [{ start: '09:00', end: '17:00' }] }, hard_blocks: [] });

    const mine = (await log('actor_kind=owner')).filter((e) => e.actor_owner_email === s.ownerEmail);
    const actions = mine.map((e) => e.action);
    for (const a of ['meeting_class.create', 'agent.create', 'agent.update', 'api_key.mint', 'requester_identity.create', 'public_link.create', 'schedule_rules.replace']) expect(actions, a).toContain(a);
    for (const e of mine) expect(e).toMatchObject(asOwner(s.ownerEmail));
    expect(mine.find((e) => e.action === 'meeting_class.create' && e.details?.name === className)).toBeDefined();
    expect(mine.find((e) => e.action === 'requester_identity.create')?.details).toMatchObject({ identity_id: identity.identity_id });
    expect(mine.find((e) => e.action === 'public_link.create')?.details).toMatchObject({ link_id: link.link_id });
  });

  it("owner_scope_denied records the owner that was asked for", async () => {
    const other = uniqueEmail('outside');
    expect((await call('POST', '/v1/owners', { key: admin.key, body: { email: other, time_zone: 'UTC' } })).status).toBe(201);
    const scoped = await newAgent(admin, ['create_bookings', 'read_availability'], `user:${s.ownerEmail}`);
    const day = nextWeekday('wed', 'UTC');
    expectEnvelope(await call('POST', '/v1/bookings', { key: scoped.key, body: { owner_email: other, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') } }), 403, 'owner_scope_denied');
    expectEnvelope(await call('GET', `/v1/bookings?owner_email=${encodeURIComponent(other.toUpperCase())}`, { key: scoped.key }), 403, 'owner_scope_denied');
    const denied = await log(`action=request.denied&agent_id=${scoped.agentId}`);
    expect(denied).toHaveLength(2);
    for (const e of denied) expect(e).toMatchObject({ outcome: 'denied', reason: 'owner_scope_denied', owner_email: other, actor_kind: 'agent', agent_id: scoped.agentId });
    // the refusal's answer does not carry it
    const again = await call('POST', '/v1/bookings', { key: scoped.key, body: { owner_email: other, meeting_class: 'internal', start: day.at('11:00'), end: day.at('11:30') } });
    expect(JSON.stringify(again.body.error)).not.toContain('ownerEmail');
  });

  it('every action can be filtered on REST and tRPC, and nothing else', async () => {
    const adminOwner = await ownerCaller(s, 'admin');
    const seen = new Set<string>();
    for (const action of AUDIT_ACTIONS) {
      const rest = await log(`action=${action}`);
      expect(rest.every((e) => e.action === action), action).toBe(true);
      const trpc = await adminOwner.admin.audit.query({ action, limit: 200 });
      expect(trpc.entries.map((e) => e.id)).toEqual(rest.map((e) => e.id));
      if (rest.length) seen.add(action);
    }
    // what this file did is found by its action
    for (const a of ['proposal.create', 'proposal.review', 'proposal.decline', 'claim.preempt', 'proposal.submit', 'proposal.contact_verify', 'proposal.withdraw', 'proposal.expire', 'request.denied', 'meeting_class.create', 'booking.create']) {
      expect(seen, a).toContain(a);
    }
    const unknown = await call('GET', '/v1/audit-log?action=booking.teleport', { key: admin.key });
    expectEnvelope(unknown, 400, 'invalid_request');
    await expect(adminOwner.admin.audit.query({ action: 'booking.teleport' as never, limit: 10 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('a reversed range is refused on REST and tRPC, on from', async () => {
    const res = await call('GET', '/v1/audit-log?from=2027-01-10T00:00:00Z&to=2027-01-09T00:00:00Z', { key: admin.key });
    expectEnvelope(res, 400, 'invalid_request');
    expect(res.body.error.details.fields).toEqual([expect.objectContaining({ path: 'query.from', message: 'from must not be after to' })]);
    expect((await call('GET', '/v1/audit-log?from=2027-01-09T00:00:00Z&to=2027-01-09T00:00:00Z', { key: admin.key })).status).toBe(200);
    const adminOwner = await ownerCaller(s, 'admin');
    await expect(adminOwner.admin.audit.query({ from: '2027-01-10T00:00:00Z', to: '2027-01-09T00:00:00Z', limit: 10 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
