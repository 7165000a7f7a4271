import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claims, owners, poolAssignments } from '@/db/schema';
import { getDb } from '@/server/db';
import { closeMailer } from '@/server/domain/email';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newAgent, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { setupOwner } from '../scheduling/fixtures';
import { call, confirm, expectNoLeaks, forbidden, nextWeekday, ownerCaller, proposalRow, pub, publicOwner, structured, useSmtp, type PublicSetup } from './fixtures';

/**
 * Public meeting types with several hosts (docs/public-scheduling.md "Several hosts"):
 * collective (every owner of a list) or pool (one member, picked at submission by the pool's
 * rule). The admin API and its validation, one set of times from the collective / pool search,
 * the proposal in each host's inbox (or the chosen member's), approval by any host booking all
 * of them in one group (all or nothing) with a note to the others, and book-instantly through
 * the same group path.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
let b: PublicSetup;
let c: string;
const day = nextWeekday('tue', 'UTC');
const day2 = nextWeekday('wed', 'UTC');
const day3 = nextWeekday('thu', 'UTC');

async function hostSetup(email: string): Promise<PublicSetup> {
  const [o] = await (await getDb()).select({ id: owners.id }).from(owners).where(eq(owners.email, email));
  forbidden.add(email);
  forbidden.add(o.id);
  return { ...s, ownerEmail: email, ownerId: o.id };
}

beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  s = await publicOwner(admin, { name: 'Ada Host' });
  b = await hostSetup(await setupOwner(admin));
  c = await setupOwner(admin);
  forbidden.add(c);
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

const typesPath = () => `/v1/public-scheduling/links/${s.linkId}/meeting-types`;
const create = (body: Record<string, unknown>) => call('POST', typesPath(), { key: admin.key, body: { title: 'Panel', duration_minutes: [30], meeting_class: 'external', ...body } });
const busy = (owner: string, start: string, end: string) => call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start, end } });

async function times(slug: string, from: string, to: string) {
  const res = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?duration_minutes=30&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  expect(res.status, res.text).toBe(200);
  return res.body.suggested_times as { start: string; end: string; start_local: string; end_local: string }[];
}

async function submitAndConfirm(slug: string, slot: { start: string; end: string }, requester = uniqueEmail('req')) {
  const created = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body: structured(slug, slot, requester) });
  expect(created.status, created.text).toBe(201);
  const confirmed = await confirm(created.body);
  expect(confirmed.status, confirmed.text).toBe(200);
  const token = new URL(created.body.status_url).pathname.split('/').pop()!;
  return { token, requester, confirmed: confirmed.body as { status: string }, row: await proposalRow(token) };
}

describe('administration', () => {
  it('creates, reads back and changes collective and pool types; clear errors for bad hosts', async () => {
    const made = await create({ slug: 'panel-admin', host_mode: 'collective', host_emails: [s.ownerEmail, b.ownerEmail.toUpperCase()] });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ host_mode: 'collective', host_emails: [s.ownerEmail, b.ownerEmail], pool_id: null });
    const read = await call('GET', `${typesPath()}/panel-admin`, { key: admin.key });
    expect(read.body).toMatchObject({ host_mode: 'collective', host_emails: [s.ownerEmail, b.ownerEmail] });

    const other = await newCustomer();
    const stranger = await setupOwner(other);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ host_mode: 'collective', host_emails: [s.ownerEmail, 'nobody@example.com'] }, /nobody@example\.com is not an owner/],
      [{ host_mode: 'collective', host_emails: [s.ownerEmail, stranger] }, /is not an owner of this customer/],
      [{ host_mode: 'collective', host_emails: [] }, /host_emails/],
      [{ host_mode: 'collective', host_emails: [s.ownerEmail, s.ownerEmail] }, /2 to 20 distinct owners/],
      [{ host_mode: 'collective', host_emails: Array.from({ length: 21 }, (_, i) => `h${i}@example.com`) }, /host_emails/],
      [{ host_mode: 'collective' }, /2 to 20 distinct owners/],
      [{ host_emails: [s.ownerEmail, b.ownerEmail] }, /only with host_mode collective/],
      [{ host_mode: 'pool' }, /needs a pool/],
    ];
    for (const [body, message] of cases) {
      const res = await create({ slug: `bad-${Math.random().toString(36).slice(2, 8)}`, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(JSON.stringify(res.body)).toMatch(message);
    }
    const unknownPool = await create({ slug: 'bad-pool', host_mode: 'pool', pool: 'no-such-pool' });
    expect(unknownPool.status).toBe(404);
    expect(unknownPool.body.error.code).toBe('POOL_NOT_FOUND');

    // Back to one host: the list goes.
    const single = await call('PATCH', `${typesPath()}/panel-admin`, { key: admin.key, body: { host_mode: 'single' } });
    expect(single.status, single.text).toBe(200);
    expect(single.body).toMatchObject({ host_mode: 'single', host_emails: [], pool_id: null });

    // The dashboard's form goes through admin.publicScheduling.meetingTypes (same schema and domain call).
    const dash = await ownerCaller(s, 'admin');
    const viaForm = await dash.admin.publicScheduling.meetingTypes.create({ link_id: s.linkId, body: { slug: 'panel-form', title: 'Panel', duration_minutes: [30], meeting_class: 'external', host_mode: 'collective', host_emails: [b.ownerEmail, s.ownerEmail] } });
    expect(viaForm).toMatchObject({ host_mode: 'collective', host_emails: [b.ownerEmail, s.ownerEmail] });
    await expect(dash.admin.publicScheduling.meetingTypes.update({ link_id: s.linkId, slug: 'panel-form', patch: { host_emails: [b.ownerEmail, 'ghost@example.com'] } })).rejects.toMatchObject({ cause: { code: 'invalid_request' } });
    const listed = await dash.admin.publicScheduling.meetingTypes.list({ link_id: s.linkId });
    expect(listed.meeting_types.find((t) => t.slug === 'panel-form')).toMatchObject({ host_emails: [b.ownerEmail, s.ownerEmail] });

    // A scoped agent may not name another owner as a host.
    const scoped = await newAgent(admin, ['manage_public_scheduling'], `user:${s.ownerEmail}`);
    const res = await call('POST', typesPath(), { key: scoped.key, body: { slug: 'scoped-panel', title: 'P', duration_minutes: [30], meeting_class: 'external', host_mode: 'collective', host_emails: [s.ownerEmail, b.ownerEmail] } });
    expect(res.status, res.text).toBe(403);
    expect(res.body.error.code).toBe('owner_scope_denied');
  });
});

describe('collective', () => {
  it('offers only times every host can take, one set in the first host\'s clock', async () => {
    const made = await create({ slug: 'panel-times', host_mode: 'collective', host_emails: [s.ownerEmail, b.ownerEmail] });
    expect(made.status, made.text).toBe(201);
    expect((await busy(b.ownerEmail, day.at('09:00'), day.at('10:00'))).status).toBe(201);
    expect((await busy(s.ownerEmail, day.at('10:00'), day.at('10:30'))).status).toBe(201);
    const offered = await times('panel-times', day.at('09:00'), day.at('12:00'));
    expect(offered.map((t) => t.start)).toEqual([day.at('10:30'), day.at('11:00'), day.at('11:30')]);
    expect(offered[0].start_local).toMatch(/\+00:00$/);
    // A time one host cannot take is refused at submission.
    const res = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body: structured('panel-times', { start: day.at('09:00'), end: day.at('09:30') }) });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('time_unavailable');
  });

  it('the proposal is in every host\'s inbox; any host approves for all (one group booking) and the others get a note', async () => {
    const slot = (await times('panel-times', day2.at('09:00'), day2.at('12:00')))[0];
    const p = await submitAndConfirm('panel-times', slot);
    expect(p.confirmed.status).toBe('pending_review');
    expect(p.row.hostOwnerIds).toEqual([s.ownerId, b.ownerId]);
    await smtp.waitFor(s.ownerEmail, { subject: /New meeting request/ });
    await smtp.waitFor(b.ownerEmail, { subject: /New meeting request/ });
    const inboxA = (await (await ownerCaller(s)).proposals.listPending()).proposals.map((x) => x.proposal_id);
    const inboxB = (await (await ownerCaller(b)).proposals.listPending()).proposals.map((x) => x.proposal_id);
    expect(inboxA).toContain(p.row.id);
    const view = (await (await ownerCaller(b)).proposals.listPending()).proposals.find((x) => x.proposal_id === p.row.id)!;
    expect(view.hosts.map((h) => h.email)).toEqual([s.ownerEmail, b.ownerEmail]);
    expect(inboxB).toContain(p.row.id);

    const approved = await (await ownerCaller(b)).proposals.approve({ proposal_id: p.row.id });
    expect(approved).toMatchObject({ status: 'booked', start: slot.start, end: slot.end });
    const db = await getDb();
    const booked = await db.select().from(claims).where(and(eq(claims.proposalId, p.row.id), isNotNull(claims.groupId)));
    expect(booked.map((r) => r.ownerId).sort()).toEqual([s.ownerId, b.ownerId].sort());
    expect(new Set(booked.map((r) => r.groupId)).size).toBe(1);
    expect(booked.every((r) => r.status === 'confirmed' && r.source === 'public' && r.startAt.toISOString() === slot.start)).toBe(true);
    expect((await proposalRow(p.token)).status).toBe('booked');
    // The other host hears it; the requester gets the usual acceptance.
    const note = await smtp.waitFor(s.ownerEmail, { subject: /Booked with you/ });
    expect(note.text).toContain('approved');
    await smtp.waitFor(p.requester, { subject: /accepted/ });
    expect((await (await ownerCaller(s)).proposals.listPending()).proposals.map((x) => x.proposal_id)).not.toContain(p.row.id);
    await expect((await ownerCaller(s)).proposals.approve({ proposal_id: p.row.id })).rejects.toMatchObject({ cause: { code: 'PROPOSAL_NOT_PENDING' } });
    // Both hosts see it on their week view.
    for (const host of [s, b]) {
      const week = await (await ownerCaller(host)).calendar.week({ week: day2.date.toString() });
      expect(JSON.stringify(week)).toContain(booked.find((r) => r.ownerId === host.ownerId)!.id);
    }
  });

  it('all or nothing: a host who can no longer take the time refuses the whole group, nothing is booked', async () => {
    const slot = (await times('panel-times', day3.at('09:00'), day3.at('12:00')))[0];
    const p = await submitAndConfirm('panel-times', slot);
    // B's time is taken meanwhile by a meeting the type's class may not move (guarded: never preempted).
    expect((await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: b.ownerEmail, meeting_class: 'external', start: slot.start, end: slot.end } })).status).toBe(201);
    const err = await (await ownerCaller(s)).proposals.approve({ proposal_id: p.row.id }).catch((e) => e);
    expect(err?.cause?.code).toBe('ARBITRATION_REJECTED');
    expect(JSON.stringify(err.cause.extra ?? err.cause)).toContain(b.ownerEmail);
    const db = await getDb();
    expect(await db.select().from(claims).where(eq(claims.proposalId, p.row.id))).toEqual([]);
    expect((await proposalRow(p.token)).status).toBe('pending_review');
  });

  it('book instantly: a verified request books every host at once through the group path', async () => {
    const made = await create({ slug: 'panel-instant', host_mode: 'collective', host_emails: [b.ownerEmail, s.ownerEmail], book_instantly: true });
    expect(made.status, made.text).toBe(201);
    const d = nextWeekday('fri', 'UTC');
    const slot = (await times('panel-instant', d.at('09:00'), d.at('12:00')))[0];
    const p = await submitAndConfirm('panel-instant', slot);
    expect(p.confirmed.status).toBe('booked');
    const rows = await (await getDb()).select().from(claims).where(eq(claims.proposalId, p.row.id));
    expect(rows.map((r) => r.ownerId).sort()).toEqual([s.ownerId, b.ownerId].sort());
    expect(rows[0].groupId).not.toBeNull();
    expect(rows[0].groupId).toBe(rows[1].groupId);

    // The requester cancels from the status page: every host's booking goes, each host is told.
    const db = await getDb();
    const headers = new Headers({ 'x-forwarded-for': '172.31.9.9', host: 'scheduler.test' });
    const req = new Request('http://scheduler.test/api/trpc', { headers });
    const requester = createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db, now: () => new Date() }).requester;
    // The type's page names every host (b has no display name: only Ada's shows).
    expect((await requester.meetingType({ link: s.alias, slug: 'panel-instant' })).owner_name).toBe('Ada Host');
    await requester.cancelMeeting({ token: p.token, reason: 'Plans changed' });
    const after = await db.select().from(claims).where(eq(claims.proposalId, p.row.id));
    expect(after.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
    await smtp.waitFor(s.ownerEmail, { subject: /^Cancelled by/ });
    await smtp.waitFor(b.ownerEmail, { subject: /^Cancelled by/ });
  });
});

describe('pool', () => {
  it('offers the union of the members\' times; the proposal goes to the member the pool picks, and its booking counts for the pool', async () => {
    const pool = await call('POST', '/v1/pools', { key: admin.key, body: { name: `team-${Math.random().toString(36).slice(2, 8)}`, members: [{ owner_email: b.ownerEmail, weight: 1 }, { owner_email: c, weight: 1 }] } });
    expect(pool.status, pool.text).toBe(201);
    forbidden.add(pool.body.pool_id);
    const made = await create({ slug: 'team', host_mode: 'pool', pool: pool.body.name });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ host_mode: 'pool', pool_id: pool.body.pool_id, host_emails: [] });
    const d = nextWeekday('mon', 'UTC', 2);
    // b is busy 09:00-10:00 and c 10:00-11:00: every half hour is offered, by one or the other.
    expect((await busy(b.ownerEmail, d.at('09:00'), d.at('10:00'))).status).toBe(201);
    expect((await busy(c, d.at('10:00'), d.at('11:00'))).status).toBe(201);
    const offered = await times('team', d.at('09:00'), d.at('11:00'));
    expect(offered.map((t) => t.start)).toEqual([d.at('09:00'), d.at('09:30'), d.at('10:00'), d.at('10:30')]);
    // 09:00: only c is free, so the proposal is c's.
    const p = await submitAndConfirm('team', offered[0]);
    const [cRow] = await (await getDb()).select({ id: owners.id }).from(owners).where(eq(owners.email, c));
    expect(p.row.ownerId).toBe(cRow.id);
    expect(p.row.poolAssignment).toMatchObject({ pool_id: pool.body.pool_id, reason: 'only_candidate' });
    expect((await (await ownerCaller(b)).proposals.listPending()).proposals.map((x) => x.proposal_id)).not.toContain(p.row.id);
    const cHost = await hostSetup(c);
    expect((await (await ownerCaller(cHost)).proposals.listPending()).proposals.map((x) => x.proposal_id)).toContain(p.row.id);
    const approved = await (await ownerCaller(cHost)).proposals.approve({ proposal_id: p.row.id });
    expect(approved.status).toBe('booked');
    const [assignment] = await (await getDb()).select().from(poolAssignments).where(eq(poolAssignments.claimId, approved.booking_id!));
    expect(assignment).toMatchObject({ poolId: pool.body.pool_id, ownerId: cRow.id, reason: 'only_candidate' });
  });

  it('never offers a member without working hours: a pool leaves them out, a collective type offers nothing (issue 45 item 1)', async () => {
    const night = await setupOwner(admin, { workingHours: null });
    forbidden.add(night);
    const pool = await call('POST', '/v1/pools', { key: admin.key, body: { name: `night-${Math.random().toString(36).slice(2, 8)}`, members: [{ owner_email: night, weight: 5 }, { owner_email: b.ownerEmail, weight: 1 }] } });
    expect(pool.status, pool.text).toBe(201);
    forbidden.add(pool.body.pool_id);
    expect((await create({ slug: 'night-pool', host_mode: 'pool', pool: pool.body.name })).status).toBe(201);
    // Saturday through Monday morning: b works Mon-Fri 09:00-17:00 UTC, the other member has no hours (free around the clock to agents).
    const sat = nextWeekday('sat', 'UTC', 2);
    const mon = { at: (hhmm: string) => new Date(Date.parse(sat.at(hhmm)) + 2 * 86_400_000).toISOString() };
    const offered = await times('night-pool', sat.at('00:00'), mon.at('11:00'));
    expect(offered.map((t) => t.start)).toEqual([mon.at('09:00'), mon.at('09:30'), mon.at('10:00'), mon.at('10:30')]);
    // Submitted, the request goes to the member with working hours.
    const p = await submitAndConfirm('night-pool', offered[0]);
    expect(p.row.ownerId).toBe(b.ownerId);

    expect((await create({ slug: 'night-panel', host_mode: 'collective', host_emails: [b.ownerEmail, night] })).status).toBe(201);
    expect(await times('night-panel', mon.at('09:00'), mon.at('17:00'))).toEqual([]);
  });
});
