import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { bookingProposals, claims } from '@/db/schema';
import type { DomainError } from '@/server/domain/errors';
import { newId } from '@/server/domain/ids';
import {
  checkAllocation,
  effectivePreemptPolicy,
  findLinkByIdOrAlias,
  findMeetingType,
  listMeetingTypes,
  periodBounds,
} from '@/server/domain/publicScheduling/admin';
import { expectEnvelope, newAgent, type TestCustomer } from '../../helpers/app';
import { addOwner, call, createLink, createType, P, setupCustomer } from './helpers';

const TZ = 'America/New_York'; // January: UTC-5
let admin: TestCustomer & { ownerEmail: string };
let foreign: TestCustomer & { ownerEmail: string };
let link: { link_id: string; alias: string };
let audience: { audience_id: string; name: string };
beforeAll(async () => {
  admin = await setupCustomer(TZ);
  foreign = await setupCustomer();
  link = await createLink(admin, admin.ownerEmail);
  for (const slug of ['intro', 'weekly', 'monthly', 'other']) await createType(admin, link.link_id, { slug });
  audience = (await call('POST', `${P}/audiences`, { key: admin.key, body: { name: 'vips', members: [{ email: 'vip@partner.example' }] } })).body;
});

describe('allocations (API)', () => {
  it('creates (201), lists (by link) and deletes allocations', async () => {
    const res = await call('POST', `${P}/allocations`, { key: admin.key, body: { link_id: link.link_id, slug: 'other', limit: 5, period: 'week' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ link_id: link.link_id, slug: 'other', audience: null, limit: 5, period: 'week' });
    const withAudience = await call('POST', `${P}/allocations`, { key: admin.key, body: { link_id: link.link_id, slug: 'other', audience: 'vips', limit: 1, period: 'day' } });
    expect(withAudience.body.audience).toBe('vips');

    const list = await call('GET', `${P}/allocations?link_id=${link.link_id}`, { key: admin.key });
    expect(list.status).toBe(200);
    expect(list.body.allocations.map((a: { allocation_id: string }) => a.allocation_id)).toEqual(expect.arrayContaining([res.body.allocation_id, withAudience.body.allocation_id]));
    expect((await call('GET', `${P}/allocations`, { key: foreign.key })).body.allocations).toEqual([]);

    expect((await call('DELETE', `${P}/allocations/${withAudience.body.allocation_id}`, { key: admin.key })).status).toBe(200);
    expectEnvelope(await call('DELETE', `${P}/allocations/${withAudience.body.allocation_id}`, { key: admin.key }), 404, 'not_found');
    // an audience named by an allocation cannot be deleted until the allocation is gone
    const temp = await call('POST', `${P}/audiences`, { key: admin.key, body: { name: 'temp', members: [] } });
    const capped = await call('POST', `${P}/allocations`, { key: admin.key, body: { link_id: link.link_id, slug: 'other', audience: 'temp', limit: 3, period: 'day' } });
    expectEnvelope(await call('DELETE', `${P}/audiences/${temp.body.audience_id}`, { key: admin.key }), 409, 'audience_in_use');
    await call('DELETE', `${P}/allocations/${capped.body.allocation_id}`, { key: admin.key });
    expect((await call('DELETE', `${P}/audiences/${temp.body.audience_id}`, { key: admin.key })).status).toBe(200);
  });

  it('validates its input and answers not_found for foreign and unknown links, slugs, audiences and ids', async () => {
    const post = (body: Record<string, unknown>) => call('POST', `${P}/allocations`, { key: admin.key, body: { link_id: link.link_id, slug: 'intro', limit: 1, period: 'day', ...body } });
    expectEnvelope(await post({ limit: 0 }), 400, 'invalid_request');
    expectEnvelope(await post({ period: 'year' }), 400, 'invalid_request');
    expectEnvelope(await post({ slug: 'missing' }), 404, 'not_found');
    expectEnvelope(await post({ audience: 'nobody' }), 404, 'not_found');
    const theirLink = await createLink(foreign, foreign.ownerEmail);
    await createType(foreign, theirLink.link_id, { slug: 'intro' });
    const theirAudience = await call('POST', `${P}/audiences`, { key: foreign.key, body: { name: 'theirs', members: [] } });
    const theirAllocation = await call('POST', `${P}/allocations`, { key: foreign.key, body: { link_id: theirLink.link_id, slug: 'intro', limit: 1, period: 'day' } });
    expect(theirAllocation.status).toBe(201);
    expectEnvelope(await post({ link_id: theirLink.link_id }), 404, 'not_found');
    expectEnvelope(await post({ link_id: newId() }), 404, 'not_found');
    expectEnvelope(await post({ audience: theirAudience.body.name }), 404, 'not_found');
    expectEnvelope(await call('GET', `${P}/allocations?link_id=${theirLink.link_id}`, { key: admin.key }), 404, 'not_found');
    for (const id of [theirAllocation.body.allocation_id, newId(), 'nope']) {
      expectEnvelope(await call('DELETE', `${P}/allocations/${id}`, { key: admin.key }), 404, 'not_found');
    }
  });

  it('keeps user-scoped agents to their own owner', async () => {
    const other = await addOwner(admin);
    const scoped = await newAgent(admin, ['manage_public_scheduling'], `user:${other}`);
    const mine = await call('POST', `${P}/allocations`, { key: admin.key, body: { link_id: link.link_id, slug: 'other', limit: 9, period: 'month' } });
    expectEnvelope(await call('POST', `${P}/allocations`, { key: scoped.key, body: { link_id: link.link_id, slug: 'other', limit: 1, period: 'day' } }), 403, 'owner_scope_denied');
    expectEnvelope(await call('DELETE', `${P}/allocations/${mine.body.allocation_id}`, { key: scoped.key }), 403, 'owner_scope_denied');
    expect((await call('GET', `${P}/allocations`, { key: scoped.key })).body.allocations).toEqual([]);
  });
});

describe('checkAllocation (requester side)', () => {
  type Booking = { slug: string; start: string; status?: 'confirmed' | 'cancelled'; source?: 'public' | 'agent'; email?: string; identityEmail?: string };
  let ownerId: string;
  const typeIds: Record<string, string> = {};

  beforeAll(async () => {
    const db = await getDb();
    const found = (await findLinkByIdOrAlias(db, link.link_id))!;
    ownerId = found.owner.id;
    for (const slug of ['intro', 'weekly', 'monthly', 'other']) typeIds[slug] = (await findMeetingType(db, link.link_id, slug))!.type.id;
    const allocate = (body: Record<string, unknown>) => call('POST', `${P}/allocations`, { key: admin.key, body: { link_id: link.link_id, ...body } });
    expect((await allocate({ slug: 'intro', limit: 2, period: 'day' })).status).toBe(201);
    expect((await allocate({ slug: 'weekly', limit: 1, period: 'week' })).status).toBe(201);
    expect((await allocate({ slug: 'monthly', limit: 1, period: 'month', audience: 'vips' })).status).toBe(201);
  });

  async function insertBooking(b: Booking) {
    const db = await getDb();
    let requesterIdentityId: string | null = null;
    if (b.identityEmail) {
      const identity = await call('POST', `${P}/requester-identities`, { key: admin.key, body: { email: b.identityEmail } });
      requesterIdentityId = identity.body.identity_id;
    }
    const proposalId = newId();
    await db.insert(bookingProposals).values({
      id: proposalId,
      customerId: admin.customerId,
      ownerId,
      origin: 'public',
      linkId: link.link_id,
      meetingTypeId: typeIds[b.slug],
      requesterIdentityId,
      status: 'booked',
      requesterEmail: b.email ?? 'someone@outside.example',
    });
    const start = new Date(b.start);
    await db.insert(claims).values({
      id: newId(),
      customerId: admin.customerId,
      ownerId,
      kind: 'booking',
      status: b.status ?? 'confirmed',
      startAt: start,
      endAt: new Date(start.getTime() + 30 * 60_000),
      source: b.source ?? 'public',
      proposalId,
    });
  }

  async function check(slug: string, at: string, audienceIds: string[] = []): Promise<string> {
    try {
      await checkAllocation(await getDb(), { meetingTypeId: typeIds[slug], audienceIds, ownerTimeZone: TZ, at: new Date(at), now: new Date() });
      return 'ok';
    } catch (err) {
      return (err as DomainError).code;
    }
  }

  it('counts confirmed public bookings of the type in the owner-local day', async () => {
    expect(await check('intro', '2031-01-07T20:00:00Z')).toBe('ok');
    await insertBooking({ slug: 'intro', start: '2031-01-07T15:00:00Z' });
    // what does not count: cancelled, agent-made, another type's
    await insertBooking({ slug: 'intro', start: '2031-01-07T17:00:00Z', status: 'cancelled' });
    await insertBooking({ slug: 'intro', start: '2031-01-07T18:00:00Z', source: 'agent' });
    await insertBooking({ slug: 'other', start: '2031-01-07T19:00:00Z' });
    expect(await check('intro', '2031-01-07T20:00:00Z')).toBe('ok');
    await insertBooking({ slug: 'intro', start: '2031-01-07T16:00:00Z' });
    expect(await check('intro', '2031-01-07T20:00:00Z')).toBe('booking_limit_exceeded');
    // 23:30 New York is the next UTC day but the same owner-local day
    expect(await check('intro', '2031-01-08T04:30:00Z')).toBe('booking_limit_exceeded');
    expect(await check('intro', '2031-01-08T05:30:00Z')).toBe('ok');
    expect(await check('intro', '2031-01-07T04:30:00Z')).toBe('ok');
    expect(await check('other', '2031-01-07T20:00:00Z')).toBe('ok'); // no allocation on that type
  });

  it('uses the owner-local ISO week (Monday first)', async () => {
    await insertBooking({ slug: 'weekly', start: '2031-01-13T04:30:00Z' }); // Sunday 12 Jan, 23:30 New York
    expect(await check('weekly', '2031-01-06T15:00:00Z')).toBe('booking_limit_exceeded'); // Monday 6 Jan
    expect(await check('weekly', '2031-01-13T05:30:00Z')).toBe('ok'); // Monday 13 Jan, 00:30 New York
    expect(await check('weekly', '2031-01-06T04:30:00Z')).toBe('ok'); // Sunday 5 Jan, 23:30 New York
  });

  it('an audience allocation applies to members only and counts members\' bookings (identity or contact email)', async () => {
    const vips = [audience.audience_id];
    await insertBooking({ slug: 'monthly', start: '2031-01-20T15:00:00Z', email: 'other@outside.example' });
    expect(await check('monthly', '2031-01-25T15:00:00Z', vips)).toBe('ok');
    await insertBooking({ slug: 'monthly', start: '2031-01-21T15:00:00Z', email: 'contact@else.example', identityEmail: 'VIP@partner.example' });
    expect(await check('monthly', '2031-01-25T15:00:00Z', vips)).toBe('booking_limit_exceeded');
    expect(await check('monthly', '2031-02-01T04:30:00Z', vips)).toBe('booking_limit_exceeded'); // 31 Jan, 23:30 New York
    expect(await check('monthly', '2031-02-01T05:30:00Z', vips)).toBe('ok');
    expect(await check('monthly', '2031-01-25T15:00:00Z', [])).toBe('ok'); // not a member: the allocation does not apply
  });

  it('periodBounds follows the owner\'s zone across DST', () => {
    const day = periodBounds('day', TZ, new Date('2031-03-09T12:00:00Z')); // spring forward in New York
    expect(day.start.toISOString()).toBe('2031-03-09T05:00:00.000Z');
    expect(day.end.toISOString()).toBe('2031-03-10T04:00:00.000Z');
    const month = periodBounds('month', 'Europe/Berlin', new Date('2031-10-31T23:30:00Z')); // already November in Berlin
    expect(month.start.toISOString()).toBe('2031-10-31T23:00:00.000Z');
    expect(month.end.toISOString()).toBe('2031-11-30T23:00:00.000Z');
  });
});

describe('read helpers for the requester side', () => {
  it('find links by id or alias (not deleted) and meeting types with their classes', async () => {
    const db = await getDb();
    const l = await createLink(admin, admin.ownerEmail);
    await createType(admin, l.link_id, { slug: 'a', meeting_class: 'guarded' });
    await createType(admin, l.link_id, { slug: 'b', visibility: 'audience', audience: 'vips', public_preempt_policy: 'never' });
    expect((await findLinkByIdOrAlias(db, l.link_id))?.link.alias).toBe(l.alias);
    expect((await findLinkByIdOrAlias(db, l.alias.toUpperCase()))?.owner.email).toBe(admin.ownerEmail);
    expect(await findLinkByIdOrAlias(db, 'no-such-alias-anywhere')).toBeNull();
    const a = (await findMeetingType(db, l.link_id, 'a'))!;
    expect(a.meetingClass.name).toBe('guarded');
    expect(effectivePreemptPolicy(a.type, a.meetingClass)).toBe('never');
    expect(await findMeetingType(db, l.link_id, 'zzz')).toBeNull();
    const all = await listMeetingTypes(db, l.link_id);
    expect(all.map((t) => [t.type.slug, t.audienceName])).toEqual([['a', null], ['b', 'vips']]);
    await call('DELETE', `${P}/links/${l.link_id}`, { key: admin.key });
    expect(await findLinkByIdOrAlias(db, l.alias)).toBeNull();
  });

  it('effectivePreemptPolicy is never looser than the class', () => {
    const cases: [string, string, string][] = [
      ['inherit', 'preempt_lower', 'preempt_lower'],
      ['inherit', 'never', 'never'],
      ['never', 'preempt_lower', 'never'],
      ['preempt_lower', 'preempt_lower', 'preempt_lower'],
      ['preempt_lower', 'never', 'never'],
    ];
    for (const [type, cls, expected] of cases) {
      expect(effectivePreemptPolicy({ publicPreemptPolicy: type as never }, { preemptPolicy: cls as never })).toBe(expected);
    }
  });
});
