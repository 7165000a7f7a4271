import { TRPCError } from '@trpc/server';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { auditLog, verificationTokens, webhookDeliveries } from '@/db/schema';
import { ownerAdapter } from '@/server/auth/ownerAdapter';
import { closeMailer } from '@/server/domain/email';
import { newAgent, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { linksIn, type TestSmtp } from '../../helpers/smtp';
import { call, confirm, freshIp, meetingType, nextWeekday, ownerCaller, pub, publicOwner, submitFirst, useSmtp, type PublicSetup } from '../public/fixtures';
import { withOutboundSetting } from '../../helpers/outbound';

/**
 * The dashboard pieces of issues 11, 12 and 16 (docs/dashboard.md): owner
 * invitations, allocation usage, editing meeting types, an agent's webhooks
 * managed by an admin, and approving a free-text request at a chosen time.
 * Each procedure calls the domain function its REST twin calls.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  s = await publicOwner(admin, { timeZone: 'UTC' });
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

function domainCode(err: unknown): string | undefined {
  return ((err as TRPCError).cause as { code?: string } | undefined)?.code;
}

async function refused(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
}

describe('owner invitations', () => {
  it('creates the owner with the rules of POST /v1/owners, mails a one-time sign-in link and gives dashboard access', async () => {
    const caller = await ownerCaller(s, 'admin');
    const email = uniqueEmail('invited');
    // No access before the invitation: the sign-in link adapter does not know the address.
    const r = await caller.admin.owners.invite({ email: email.toUpperCase(), name: 'Ivy Invited', time_zone: 'Europe/Berlin', role: 'member' });
    expect(r.owner).toMatchObject({ owner_email: email, name: 'Ivy Invited', time_zone: 'Europe/Berlin' });
    const expiresIn = Date.parse(r.invitation.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(71 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(72 * 3600_000);

    const mail = await smtp.waitFor(email, { subject: /invited/i });
    const link = linksIn(mail).find((l) => l.includes('/api/auth/callback/email'))!;
    expect(link).toBeTruthy();
    const url = new URL(link);
    expect(url.origin).toBe('http://scheduler.test');
    expect(url.searchParams.get('email')).toBe(email);
    expect(url.searchParams.get('callbackUrl')).toBe('http://scheduler.test/dashboard');
    const token = url.searchParams.get('token')!;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    // Stored hashed (as Auth.js stores its own), never the token itself.
    const rows = await (await getDb()).select().from(verificationTokens).where(eq(verificationTokens.identifier, email));
    expect(rows).toHaveLength(1);
    expect(rows[0].token).not.toBe(token);

    const adapter = ownerAdapter();
    expect(await adapter.getUserByEmail!(email)).toMatchObject({ email });
    const listed = (await caller.admin.owners.list()).owners.find((o) => o.owner_email === email)!;
    expect(listed).toMatchObject({ role: 'member', can_sign_in: true, has_password: false, invited_at: expect.any(String) });
    const [audit] = await (await getDb())
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.customerId, admin.customerId), eq(auditLog.action, 'owner.invite'), eq(auditLog.ownerEmail, email)));
    expect(audit).toBeTruthy();

    // Re-sending mails a new link.
    const before = smtp.messages.filter((m) => m.to.includes(email)).length;
    await caller.admin.owners.sendInvitation({ email });
    await expect.poll(() => smtp.messages.filter((m) => m.to.includes(email)).length).toBe(before + 1);

    expect(domainCode(await refused(caller.admin.owners.invite({ email, time_zone: 'UTC' })))).toBe('OWNER_ALREADY_EXISTS');
    expect(domainCode(await refused(caller.admin.owners.invite({ email: uniqueEmail('tz'), time_zone: 'Mars/Base' })))).toBe('INVALID_TIME_ZONE');
    expect(domainCode(await refused(caller.admin.owners.sendInvitation({ email: uniqueEmail('nobody') })))).toBe('OWNER_NOT_FOUND');
    const member = await ownerCaller(s, 'member');
    expect(((await refused(member.admin.owners.invite({ email: uniqueEmail('x'), time_zone: 'UTC' }))) as TRPCError).code).toBe('FORBIDDEN');
  });
});

describe('meeting types edited after creation', () => {
  it('changes every field with the checks of PATCH .../meeting-types/{slug}', async () => {
    const caller = await ownerCaller(s, 'admin');
    const slug = await meetingType(s, { title: 'Intro call', duration_minutes: [30] });
    const changed = await caller.admin.publicScheduling.meetingTypes.update({
      link_id: s.linkId,
      slug,
      patch: { title: 'Deep dive', duration_minutes: [60, 45], meeting_class: 'internal', attendee_limit: 4, public_preempt_policy: 'never', visibility: 'unlisted', enabled: true, published: false },
    });
    expect(changed).toMatchObject({ title: 'Deep dive', duration_minutes: [45, 60], meeting_class: 'internal', attendee_limit: 4, public_preempt_policy: 'never', effective_preempt_policy: 'never', visibility: 'unlisted', published: false });
    const got = await call('GET', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key });
    expect(got.body).toMatchObject({ title: 'Deep dive', duration_minutes: [45, 60] });
    // A class whose policy is never cannot be loosened by the type: the REST code.
    const err = await refused(caller.admin.publicScheduling.meetingTypes.update({ link_id: s.linkId, slug, patch: { meeting_class: 'guarded', public_preempt_policy: 'preempt_lower' } }));
    expect(domainCode(err)).toBe('invalid_public_preempt_policy');
    const rest = await call('PATCH', `/v1/public-scheduling/links/${s.linkId}/meeting-types/${slug}`, { key: admin.key, body: { meeting_class: 'guarded', public_preempt_policy: 'preempt_lower' } });
    expect(rest.body.error.code).toBe('invalid_public_preempt_policy');
    expect((err as TRPCError).message).toBe(rest.body.error.message);
  });
});

describe('allocation usage', () => {
  it('counts what checkAllocation counts: confirmed public bookings through the type in the current period', async () => {
    const slug = await meetingType(s, { duration_minutes: [30] });
    const day = nextWeekday('wed', 'UTC');
    const now = () => new Date(day.at('08:00'));
    const caller = await ownerCaller(s, 'admin', now);
    const a = await caller.admin.requesters.allocations.create({ link_id: s.linkId, slug, limit: 2, period: 'week' });
    const usage = () => caller.admin.requesters.allocations.list().then((r) => r.allocations.find((x) => x.allocation_id === a.allocation_id)!.usage);
    expect(await usage()).toMatchObject({ used: 0, limit: 2, time_zone: 'UTC' });

    for (let i = 0; i < 2; i++) {
      const c = await submitFirst(s, slug, { ip: freshIp(), day });
      expect((await confirm(c)).status).toBe(200);
      const p = (await caller.proposals.listPending()).proposals.find((x) => x.requester?.email === c.requester)!;
      expect((await caller.proposals.approve({ proposal_id: p.proposal_id })).status).toBe('booked');
    }
    const u = (await usage())!;
    expect(u.used).toBe(2);
    // The ISO week of the booking day, Monday to Monday in the owner's zone.
    expect(new Date(u.period_start).getUTCDay()).toBe(1);
    expect(Date.parse(u.period_end) - Date.parse(u.period_start)).toBe(7 * 86_400_000);
    expect(Date.parse(u.period_start)).toBeLessThanOrEqual(Date.parse(day.at('08:00')));

    // Full: the next approval is refused with the allocation's code, and usage says so.
    const c = await submitFirst(s, slug, { ip: freshIp(), day });
    await confirm(c);
    const p = (await caller.proposals.listPending()).proposals.find((x) => x.requester?.email === c.requester)!;
    expect(domainCode(await refused(caller.proposals.approve({ proposal_id: p.proposal_id })))).toBe('booking_limit_exceeded');
    // A week later the period is another one.
    const later = await ownerCaller(s, 'admin', () => new Date(Date.parse(day.at('08:00')) + 7 * 86_400_000));
    expect((await later.admin.requesters.allocations.list()).allocations.find((x) => x.allocation_id === a.allocation_id)!.usage).toMatchObject({ used: 0 });
  });
});

describe('the context clock of admin deletions', () => {
  it('dates the audit rows of deleting an allocation and an audience by ctx.now(), not the wall clock', async () => {
    const slug = await meetingType(s, { duration_minutes: [30] });
    const fixed = new Date('2031-03-04T05:06:07.000Z');
    const caller = await ownerCaller(s, 'admin', () => fixed);
    const audience = await caller.admin.requesters.audiences.create({ name: `clock-${Date.now()}`, members: [] });
    const a = await caller.admin.requesters.allocations.create({ link_id: s.linkId, slug, limit: 2, period: 'week' });
    await caller.admin.requesters.allocations.delete({ allocation_id: a.allocation_id });
    await caller.admin.requesters.audiences.delete({ audience_id: audience.audience_id });
    const rows = await (await getDb())
      .select({ action: auditLog.action, at: auditLog.at })
      .from(auditLog)
      .where(and(eq(auditLog.customerId, admin.customerId), eq(auditLog.at, fixed)));
    expect(rows.map((r) => r.action).sort()).toEqual(['allocation.create', 'allocation.delete', 'audience.create', 'audience.delete']);
  });
});

describe("an agent's webhooks, managed by an admin", () => {
  it('creates (secret once), lists, tests, shows the delivery log, disables, re-enables and deletes, through the domain of /v1/webhooks', async () => {
    const caller = await ownerCaller(s, 'admin');
    const agent = await newAgent(admin, ['read_availability']);
    const created = await withOutboundSetting('1', () => caller.admin.webhooks.create({ agent_id: agent.agentId, url: 'http://127.0.0.1:9/hook', events: ['booking.created', 'booking.created'] }));
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.events).toEqual(['booking.created']);
    // The agent sees the same endpoint on /v1/webhooks.
    const viaRest = await call('GET', '/v1/webhooks', { key: agent.key });
    expect(viaRest.body.webhooks.map((w: { id: string }) => w.id)).toEqual([created.id]);
    expect(JSON.stringify((await caller.admin.webhooks.list({ agent_id: agent.agentId })).webhooks)).not.toContain(created.secret);

    const t = await caller.admin.webhooks.test({ agent_id: agent.agentId, webhook_id: created.id });
    const log = await caller.admin.webhooks.deliveries({ agent_id: agent.agentId, webhook_id: created.id });
    expect(log.deliveries).toEqual([expect.objectContaining({ id: t.delivery_id, kind: 'webhook.test', status: 'pending', attempts: 0 })]);

    const off = await caller.admin.webhooks.update({ agent_id: agent.agentId, webhook_id: created.id, patch: { enabled: false } });
    expect(off).toMatchObject({ status: 'disabled', disabled_reason: expect.any(String) });
    const on = await withOutboundSetting('1', () => caller.admin.webhooks.update({ agent_id: agent.agentId, webhook_id: created.id, patch: { enabled: true, url: 'https://hooks.example/x', events: ['proposal.created'] } }));
    expect(on).toMatchObject({ status: 'active', url: 'https://hooks.example/x', events: ['proposal.created'] });

    // Another customer's agent, or an unknown one: AGENT_NOT_FOUND; an endpoint of another agent: WEBHOOK_NOT_FOUND.
    const stranger = await newCustomer();
    expect(domainCode(await refused(caller.admin.webhooks.list({ agent_id: stranger.agentId })))).toBe('AGENT_NOT_FOUND');
    const other = await newAgent(admin, []);
    expect(domainCode(await refused(caller.admin.webhooks.test({ agent_id: other.agentId, webhook_id: created.id })))).toBe('WEBHOOK_NOT_FOUND');
    const member = await ownerCaller(s, 'member');
    expect(((await refused(member.admin.webhooks.list({ agent_id: agent.agentId }))) as TRPCError).code).toBe('FORBIDDEN');

    expect(await caller.admin.webhooks.delete({ agent_id: agent.agentId, webhook_id: created.id })).toEqual({ id: created.id, deleted: true });
    expect((await caller.admin.webhooks.list({ agent_id: agent.agentId })).webhooks).toEqual([]);
    expect(await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, created.id))).toEqual([]);
  });
});

describe('approving a free-text request', () => {
  it('offers free times inside the requested window with the chosen class and books the one chosen', async () => {
    const requester = uniqueEmail('free');
    const day = nextWeekday('thu', 'UTC');
    const window = { start: day.at('10:00'), end: day.at('12:00') };
    const created = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, {
      ip: freshIp(),
      body: { requester_contact: { email: requester, name: 'Fay' }, attendees: [], message: 'A chat, any time that morning', requested_window: window },
    });
    expect(created.status, created.text).toBe(201);
    await confirm(created.body);
    const owner = await ownerCaller(s);
    const p = (await owner.proposals.listPending()).proposals.find((x) => x.requester?.email === requester)!;
    expect(p.meeting_class).toBeNull();
    const review = await owner.proposals.review({ proposal_id: p.proposal_id });
    expect(review.meeting_classes.map((c) => c.name)).toEqual(expect.arrayContaining(['external', 'internal']));

    // A free-text request has no class: the times need one.
    expect(domainCode(await refused(owner.proposals.approvalTimes({ proposal_id: p.proposal_id })))).toBe('invalid_request');
    // An external meeting at 10:00 takes the first half hour; internal (lower priority) cannot move it.
    const taken = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s.ownerEmail, meeting_class: 'external', start: day.at('10:00'), end: day.at('10:30') } });
    expect(taken.status, taken.text).toBe(201);
    const times = await owner.proposals.approvalTimes({ proposal_id: p.proposal_id, meeting_class: 'internal', duration_minutes: 30 });
    expect(times).toMatchObject({ meeting_class: 'internal', duration_minutes: 30, from_requested_window: true, window });
    expect(times.slots.map((t) => t.start)).toEqual([day.at('10:30'), day.at('11:00'), day.at('11:30')]);
    // The default length is the window's (what the requester asked for); 120 minutes no longer fit.
    expect((await owner.proposals.approvalTimes({ proposal_id: p.proposal_id, meeting_class: 'internal' })).slots).toEqual([]);
    expect(domainCode(await refused(owner.proposals.approvalTimes({ proposal_id: p.proposal_id, meeting_class: 'nope', duration_minutes: 30 })))).toBe('INVALID_MEETING_CLASS');

    // Approving at the taken time is refused by arbitration, with alternatives.
    const clash = await refused(owner.proposals.approve({ proposal_id: p.proposal_id, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') }));
    expect(domainCode(clash)).toBe('ARBITRATION_REJECTED');
    const chosen = times.slots[1];
    const ok = await owner.proposals.approve({ proposal_id: p.proposal_id, meeting_class: 'internal', start: chosen.start, end: chosen.end });
    expect(ok).toMatchObject({ status: 'booked', start: chosen.start, end: chosen.end });
    const status = await pub('GET', new URL(created.body.status_url).pathname, { headers: { accept: 'application/json' } });
    expect(status.body.status).toBe('booked');
  });
});
