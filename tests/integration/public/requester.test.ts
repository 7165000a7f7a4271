import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeMailer } from '@/server/domain/email';
import { expectEnvelope, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { call, credential, expectNoLeaks, freshIp, meetingType, nextWeekday, pub, publicOwner, structured, submitFirst, useSmtp, type PublicSetup } from './fixtures';

let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
let slugPublic: string;
const day = nextWeekday('wed', 'UTC');
const win = (from: string, to: string) => `from=${encodeURIComponent(day.at(from))}&to=${encodeURIComponent(day.at(to))}`;

beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  s = await publicOwner(admin);
  slugPublic = await meetingType(s, { slug: 'intro', title: 'Intro', duration_minutes: [30, 60], attendee_limit: 3 });
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

describe('GET /public/schedules/{id}', () => {
  it('lists enabled, published public types; unlisted, disabled, unpublished and audience types are not listed; id and alias both work', async () => {
    const s2 = await publicOwner(admin, { name: 'Bo', title: 'Bo books' });
    await meetingType(s2, { slug: 'open', title: 'Open' });
    await meetingType(s2, { slug: 'secret', title: 'Secret', visibility: 'unlisted' });
    await meetingType(s2, { slug: 'off', title: 'Off', enabled: false });
    await meetingType(s2, { slug: 'draft', title: 'Draft', published: false });
    const aud = await call('POST', '/v1/public-scheduling/audiences', { key: admin.key, body: { name: `vip-${s2.alias}`, members: [{ email: 'vip@partner.example' }] } });
    expect(aud.status, aud.text).toBe(201);
    await meetingType(s2, { slug: 'vip', title: 'VIP', visibility: 'audience', audience: `vip-${s2.alias}` });

    for (const id of [s2.alias, s2.linkId, s2.alias.toUpperCase()]) {
      const res = await pub('GET', `/public/schedules/${id}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ title: 'Bo books', owner_name: 'Bo', meeting_types: [{ slug: 'open', title: 'Open', duration_minutes: [30, 60] }] });
    }
    // a member's credential shows the audience type; a non-member's does not
    const member = await credential(admin, 'vip@partner.example');
    const withVip = await pub('GET', `/public/schedules/${s2.alias}`, { key: member.token });
    expect(withVip.body.meeting_types.map((t: { slug: string }) => t.slug)).toEqual(['open', 'vip']);
    const other = await credential(admin, uniqueEmail('nonmember'));
    expect((await pub('GET', `/public/schedules/${s2.alias}`, { key: other.token })).body.meeting_types.map((t: { slug: string }) => t.slug)).toEqual(['open']);

    // reachable by slug: unlisted yes; disabled, unpublished and audience (without membership) are not_found
    expect((await pub('GET', `/public/schedules/${s2.alias}/meeting-types/secret/suggested-times?${win('09:00', '10:00')}`)).status).toBe(200);
    for (const slug of ['off', 'draft', 'vip', 'nope']) {
      expectEnvelope(await pub('GET', `/public/schedules/${s2.alias}/meeting-types/${slug}/suggested-times?${win('09:00', '10:00')}`), 404, 'not_found');
      expectEnvelope(await pub('POST', `/public/schedules/${s2.alias}/booking-proposals`, { body: structured(slug, { start: day.at('09:00'), end: day.at('09:30') }) }), 404, 'not_found');
    }
    expect((await pub('GET', `/public/schedules/${s2.alias}/meeting-types/vip/suggested-times?${win('09:00', '10:00')}`, { key: member.token })).status).toBe(200);
    expectEnvelope(await pub('GET', `/public/schedules/${s2.alias}/meeting-types/vip/suggested-times?${win('09:00', '10:00')}`, { key: other.token }), 404, 'not_found');
  });

  it('answers 404 not_found for unknown links, deleted links, and bearers that are not a live rc_ credential', async () => {
    expectEnvelope(await pub('GET', '/public/schedules/no-such-link-here'), 404, 'not_found');
    expectEnvelope(await pub('GET', '/public/schedules/0190a8f0-0000-7000-8000-000000000000'), 404, 'not_found');
    for (const bearer of ['rc_unknown', 'ak_someagentkey', 'garbage']) {
      expectEnvelope(await pub('GET', `/public/schedules/${s.alias}`, { key: bearer }), 404, 'not_found');
      expectEnvelope(await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { key: bearer, body: { requester_contact: { email: uniqueEmail() }, attendees: [], message: 'hi' } }), 404, 'not_found');
    }
    const revoked = await credential(admin, uniqueEmail('revoked'));
    expect((await pub('GET', `/public/schedules/${s.alias}`, { key: revoked.token })).status).toBe(200);
    const del = await call('DELETE', `/v1/public-scheduling/requester-identities/${revoked.identityId}/credentials/${revoked.credentialId}`, { key: admin.key });
    expect(del.status, del.text).toBe(200);
    expectEnvelope(await pub('GET', `/public/schedules/${s.alias}`, { key: revoked.token }), 404, 'not_found');
    // a credential of another customer matches nothing here
    const foreign = await credential(await newCustomer(), uniqueEmail('foreign'));
    expectEnvelope(await pub('GET', `/public/schedules/${s.alias}`, { key: foreign.token }), 404, 'not_found');

    const gone = await publicOwner(admin);
    expect((await call('DELETE', `/v1/public-scheduling/links/${gone.linkId}`, { key: admin.key })).status).toBe(200);
    expectEnvelope(await pub('GET', `/public/schedules/${gone.alias}`), 404, 'not_found');
  });
});

describe('suggested times', () => {
  it('offers free grid times inside working hours, at most 50, and only the durations of the type', async () => {
    const res = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slugPublic}/suggested-times?${win('08:00', '11:00')}&duration_minutes=60`);
    expect(res.status, res.text).toBe(200);
    // the host's clock beside UTC (this owner is in UTC: offset +00:00)
    const local = (hhmm: string) => `${day.date}T${hhmm}:00+00:00`;
    expect(res.body.suggested_times.slice(0, 2)).toEqual([
      { start: day.at('09:00'), end: day.at('10:00'), start_local: local('09:00'), end_local: local('10:00') },
      { start: day.at('09:30'), end: day.at('10:30'), start_local: local('09:30'), end_local: local('10:30') },
    ]);
    expect(res.body.suggested_times).toHaveLength(3);
    const wide = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slugPublic}/suggested-times`);
    expect(wide.status).toBe(200);
    expect(wide.body.suggested_times).toHaveLength(50);
    const badDuration = await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slugPublic}/suggested-times?duration_minutes=45`);
    expectEnvelope(badDuration, 400, 'invalid_request');
    const tooWide = `from=${encodeURIComponent(day.at('09:00'))}&to=${encodeURIComponent(new Date(Date.parse(day.at('09:00')) + 32 * 86_400_000).toISOString())}`;
    expectEnvelope(await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slugPublic}/suggested-times?${tooWide}`), 400, 'invalid_request');
    expectEnvelope(await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slugPublic}/suggested-times?${win('11:00', '10:00')}`), 400, 'invalid_request');
  });

  it('never offers a time taken by any claim, even one of lower priority that the type could preempt on approval', async () => {
    const s3 = await publicOwner(admin);
    const slug = await meetingType(s3, { duration_minutes: [30], public_preempt_policy: 'preempt_lower' });
    const low = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: s3.ownerEmail, meeting_class: 'focus', start: day.at('09:00'), end: day.at('10:00') } });
    expect(low.status, low.text).toBe(201);
    const res = await pub('GET', `/public/schedules/${s3.alias}/meeting-types/${slug}/suggested-times?${win('09:00', '11:00')}`);
    expect(res.body.suggested_times.map((t: { start: string }) => t.start)).toEqual([day.at('10:00'), day.at('10:30')]);
    // and submitting the busy time is time_unavailable
    expectEnvelope(await pub('POST', `/public/schedules/${s3.alias}/booking-proposals`, { ip: freshIp(), body: structured(slug, { start: day.at('09:00'), end: day.at('09:30') }) }), 409, 'time_unavailable');
  });
});

describe('POST /public/schedules/{id}/booking-proposals', () => {
  const slot = { start: day.at('13:00'), end: day.at('13:30') };
  const post = (body: unknown, key?: string) => pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { body, key, ip: freshIp() });

  it('accepts exactly a suggested time; anything else is 409 time_unavailable', async () => {
    const ok = await post(structured(slugPublic, slot));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.status).toBe('pending_requester_verification');
    // same time again: still free (a proposal is not a claim)
    expect((await post(structured(slugPublic, slot))).status).toBe(201);
    for (const bad of [
      { start: day.at('13:10'), end: day.at('13:40') }, // off the grid
      { start: day.at('07:00'), end: day.at('07:30') }, // outside working hours
      { start: day.at('13:00'), end: day.at('14:00') }, // length differs from duration_minutes
      { start: nextWeekday('sat', 'UTC').at('10:00'), end: nextWeekday('sat', 'UTC').at('10:30') }, // off day
      { start: '2020-01-01T10:00:00Z', end: '2020-01-01T10:30:00Z' }, // past
    ]) {
      expectEnvelope(await post(structured(slugPublic, bad, undefined, { duration_minutes: 30 })), 409, 'time_unavailable');
    }
  });

  it('checks durations, required fields, names and the free-text message', async () => {
    expectEnvelope(await post(structured(slugPublic, { start: day.at('13:00'), end: day.at('13:45') })), 400, 'invalid_request'); // 45 not offered
    expectEnvelope(await post({ ...structured(slugPublic, slot), requested_window: undefined }), 400, 'invalid_request');
    expectEnvelope(await post({ ...structured(slugPublic, slot), duration_minutes: undefined }), 400, 'invalid_request');
    expectEnvelope(await post({ ...structured(slugPublic, slot), requester_contact: { email: uniqueEmail(), name: '  ' } }), 400, 'invalid_request');
    expectEnvelope(await post({ ...structured(slugPublic, slot), attendees: [{ email: uniqueEmail(), name: '' }] }), 400, 'invalid_request');
    expectEnvelope(await post({ ...structured(slugPublic, slot), public_meeting_type: '' }), 400, 'invalid_request');
    expectEnvelope(await post({ ...structured(slugPublic, slot), surprise: 1 }), 400, 'invalid_request');
    expectEnvelope(await post({ requester_contact: { email: uniqueEmail() }, attendees: [] }), 400, 'invalid_request'); // free-text without message
    const free = await post({ requester_contact: { email: uniqueEmail(), name: 'Free' }, attendees: [], message: 'Any time next week?' });
    expect(free.status, free.text).toBe(201);
    expect(free.body.status).toBe('pending_requester_verification');
  });

  it('counts the requester in the attendee limit: 400 attendee_limit_exceeded', async () => {
    const requester = uniqueEmail('req');
    const two = [{ email: uniqueEmail('a') }, { email: uniqueEmail('b') }];
    expect((await post({ ...structured(slugPublic, slot, requester), attendees: two })).status).toBe(201); // 3 with the requester
    // the requester listed again is not counted twice
    expect((await post({ ...structured(slugPublic, slot, requester), attendees: [...two, { email: requester.toUpperCase() }] })).status).toBe(201);
    const over = await post({ ...structured(slugPublic, slot, requester), attendees: [...two, { email: uniqueEmail('c') }] });
    expectEnvelope(over, 400, 'attendee_limit_exceeded');
    expect(over.body.attendee_limit).toBe(3);
  });

  it('caps `attendees` at 50 items; only a type with its own attendee_limit counts the requester', async () => {
    const unlimited = await meetingType(s, { duration_minutes: [30] });
    const fifty = await meetingType(s, { duration_minutes: [30], attendee_limit: 50 });
    const many = Array.from({ length: 51 }, () => ({ email: uniqueEmail('m') }));
    const freeText = (attendees: typeof many) => ({ requester_contact: { email: uniqueEmail() }, attendees, message: 'all of us' });
    // 50 attendees (51 people with the requester): accepted without a type and on a type without its own limit
    const free50 = await post(freeText(many.slice(0, 50)));
    expect(free50.status, free50.text).toBe(201);
    const typed50 = await post({ ...structured(unlimited, slot), attendees: many.slice(0, 50) });
    expect(typed50.status, typed50.text).toBe(201);
    // 51 items: 400 either way
    for (const body of [freeText(many), { ...structured(unlimited, slot), attendees: many }]) {
      const res = await post(body);
      expectEnvelope(res, 400, 'attendee_limit_exceeded');
      expect(res.body.attendee_limit).toBe(50);
    }
    // a type's own limit of 50 counts the requester: 49 attendees fit, 50 do not
    expect((await post({ ...structured(fifty, slot), attendees: many.slice(0, 49) })).status).toBe(201);
    expectEnvelope(await post({ ...structured(fifty, slot), attendees: many.slice(0, 50) }), 400, 'attendee_limit_exceeded');
  });

  it('a credential of the requester skips verification where the type allows it (no verification url)', async () => {
    const email = uniqueEmail('trusted');
    const cred = await credential(admin, email);
    const skipping = await meetingType(s, { duration_minutes: [30], credential_skips_verification: true });
    const trusted = await post(structured(skipping, slot, email), cred.token);
    expect(trusted.status, trusted.text).toBe(201);
    expect(trusted.body.status).toBe('pending_review');
    expect(trusted.body.contact_verification_url).toBeUndefined();
    expect(smtp.messages.some((m) => m.to.includes(email))).toBe(false);
    // another contact email than the credential's, or a type without the flag: verification as usual
    const otherEmail = await post(structured(skipping, slot, uniqueEmail('someone-else')), cred.token);
    expect(otherEmail.body.status).toBe('pending_requester_verification');
    const noFlag = await post(structured(slugPublic, slot, email), cred.token);
    expect(noFlag.body.status).toBe('pending_requester_verification');
    expect(noFlag.body.contact_verification_url).toMatch(/\/public\/contact-verifications\/cv_/);
  });

  it('submits through the alias and the id alike', async () => {
    const viaId = await pub('POST', `/public/schedules/${s.linkId}/booking-proposals`, { ip: freshIp(), body: structured(slugPublic, slot) });
    expect(viaId.status, viaId.text).toBe(201);
    const created = await submitFirst(s, slugPublic, { ip: freshIp() });
    expect(created.status).toBe('pending_requester_verification');
  });
});
