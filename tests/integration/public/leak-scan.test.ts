import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { bookingProposals } from '@/db/schema';
import { closeMailer } from '@/server/domain/email';
import { newCustomer, uniqueEmail } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import {
  call,
  confirm,
  credential,
  forbidden,
  freshIp,
  leaksIn,
  meetingType,
  nextWeekday,
  ownerCaller,
  proposalRow,
  pub,
  pubUrl,
  publicOwner,
  recorded,
  structured,
  submitFirst,
  useSmtp,
} from './fixtures';

/**
 * docs/public-scheduling.md: public responses expose only safe public state. This file drives
 * every /public endpoint through every outcome it can answer (success, each
 * error code, each proposal state, the HTML pages) and scans every body for
 * internal ids (any UUID), the owner's email, owner rules (local times such
 * as "09:00", working_hours, hard_blocks, ...) and private scheduling words.
 * The other public test files run the same scan over their own responses in
 * afterAll (expectNoLeaks), so every /public body the suite produces is scanned.
 */
let smtp: TestSmtp;
beforeAll(async () => {
  smtp = await useSmtp();
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

describe('public responses leak nothing', () => {
  it('the scanner itself catches what it must', () => {
    expect(leaksIn('{"id":"0190a8f0-1234-7000-8000-000000000000"}')).not.toEqual([]);
    expect(leaksIn('{"working_hours":{}}')).not.toEqual([]);
    expect(leaksIn('{"start":"09:00"}')).not.toEqual([]);
    expect(leaksIn('{"start":"2030-01-02T09:00:00.000Z"}')).toEqual([]);
    expect(leaksIn('<time>Wed, 02 Jan 2030 09:00:00 GMT</time>')).toEqual([]);
    // a suggested time's local twins are allowed, with their offset; an offset anywhere else is not
    expect(leaksIn('{"start":"2030-01-02T09:00:00.000Z","start_local":"2030-01-02T10:00:00+01:00","end_local":"2030-01-02T10:30:00+01:00"}')).toEqual([]);
    expect(leaksIn('{"start":"2030-01-02T10:00:00+01:00"}')).not.toEqual([]);
    expect(leaksIn('{"start_local":"10:00"}')).not.toEqual([]);
    expect(leaksIn('{"start_local":"2030-01-02T10:00:00+01:00","working_hours":{}}')).not.toEqual([]);
    expect(leaksIn('{"conflicts":[{"kind":"hold"}]}')).not.toEqual([]);
  });

  it('over a journey through every endpoint, state and error', async () => {
    const admin = await newCustomer();
    const s = await publicOwner(admin, { name: 'Leak Tester', maxDailyMeetingHours: 6 });
    const slug = await meetingType(s, { slug: 'talk', duration_minutes: [30, 60], attendee_limit: 2, public_preempt_policy: 'never' });
    await meetingType(s, { slug: 'hidden', visibility: 'unlisted' });
    await meetingType(s, { slug: 'off', enabled: false });
    const aud = await call('POST', '/v1/public-scheduling/audiences', { key: admin.key, body: { name: 'insiders', members: [{ email: 'insider@partner.example' }] } });
    expect(aud.status).toBe(201);
    forbidden.add(aud.body.audience_id ?? '');
    await meetingType(s, { slug: 'inner', visibility: 'audience', audience: 'insiders', credential_skips_verification: true });
    const insider = await credential(admin, 'insider@partner.example');
    const day = nextWeekday('wed', 'UTC');
    const q = `from=${encodeURIComponent(day.at('00:00'))}&to=${encodeURIComponent(day.at('23:59'))}`;

    // schedule and suggestions: success, not_found (link, type, hidden states, credentials), invalid_request
    expect((await pub('GET', `/public/schedules/${s.alias}`)).status).toBe(200);
    expect((await pub('GET', `/public/schedules/${s.linkId}`, { key: insider.token })).status).toBe(200);
    expect((await pub('GET', `/public/schedules/nope-${s.alias}`)).status).toBe(404);
    expect((await pub('GET', `/public/schedules/${s.alias}`, { key: 'rc_bogus' })).status).toBe(404);
    expect((await pub('GET', `/public/schedules/${s.alias}`, { key: 'ak_bogus' })).status).toBe(404);
    expect((await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?${q}`)).status).toBe(200);
    expect((await pub('GET', `/public/schedules/${s.alias}/meeting-types/hidden/suggested-times?${q}`)).status).toBe(200);
    expect((await pub('GET', `/public/schedules/${s.alias}/meeting-types/inner/suggested-times?${q}`, { key: insider.token })).status).toBe(200);
    for (const t of ['off', 'inner', 'missing']) expect((await pub('GET', `/public/schedules/${s.alias}/meeting-types/${t}/suggested-times?${q}`)).status).toBe(404);
    expect((await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?duration_minutes=45`)).status).toBe(400);
    expect((await pub('GET', `/public/schedules/${s.alias}/meeting-types/${slug}/suggested-times?from=yesterday`)).status).toBe(400);

    // submissions: 201 (both statuses), 400s, attendee_limit_exceeded, time_unavailable, not_found
    const post = (body: unknown, key?: string) => pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip: freshIp(), key, body });
    const slot = { start: day.at('10:00'), end: day.at('10:30') };
    expect((await post(structured('inner', slot, 'insider@partner.example'), insider.token)).body.status).toBe('pending_review');
    expect((await post(structured(slug, slot, uniqueEmail(), { attendees: [{ email: uniqueEmail() }, { email: uniqueEmail() }] }))).status).toBe(400);
    expect((await post(structured(slug, { start: day.at('07:00'), end: day.at('07:30') }))).status).toBe(409);
    expect((await post(structured(slug, { start: day.at('10:05'), end: day.at('10:35') }))).status).toBe(409);
    expect((await post({ requester_contact: { email: 'not-an-email' }, attendees: [] })).status).toBe(400);
    expect((await post({ requester_contact: { email: uniqueEmail() }, attendees: [] })).status).toBe(400);
    expect((await post(structured('off', slot))).status).toBe(404);
    expect((await post({ requester_contact: { email: uniqueEmail() }, attendees: [], message: 'free text' })).status).toBe(201);
    expect((await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { rawBody: 'x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { rawBody: '{', headers: { 'content-type': 'application/json' } })).status).toBe(400);

    // every proposal state through status, withdraw and the verification page
    const owner = await ownerCaller(s);
    const booked = await submitFirst(s, slug, { ip: freshIp(), day });
    const declined = await submitFirst(s, slug, { ip: freshIp(), day });
    const withdrawn = await submitFirst(s, slug, { ip: freshIp(), day });
    const expired = await submitFirst(s, slug, { ip: freshIp(), day });
    expect((await pubUrl('GET', booked.status_url)).body.status).toBe('pending_requester_verification');
    expect((await pubUrl('GET', booked.contact_verification_url!)).status).toBe(200); // the page with the form
    for (const c of [booked, declined]) expect((await confirm(c)).status).toBe(200);
    expect((await confirm(booked)).status).toBe(409);
    expect((await pubUrl('GET', booked.status_url)).body.status).toBe('pending_review');
    const pending = (await owner.proposals.listPending()).proposals;
    const idOf = (r: string) => pending.find((p) => p.requester?.email === r)!.proposal_id;
    await owner.proposals.approve({ proposal_id: idOf(booked.requester) });
    await owner.proposals.decline({ proposal_id: idOf(declined.requester), reason: 'no' });
    expect((await pubUrl('POST', `${withdrawn.status_url}/withdraw`)).status).toBe(200);
    await (await getDb()).update(bookingProposals).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(bookingProposals.id, (await proposalRow(expired.token)).id));
    for (const [c, status] of [[booked, 'booked'], [declined, 'declined'], [withdrawn, 'withdrawn'], [expired, 'expired']] as const) {
      expect((await pubUrl('GET', c.status_url)).body.status).toBe(status);
      expect((await pubUrl('POST', `${c.status_url}/withdraw`)).status).toBe(409);
      expect((await pubUrl('GET', c.contact_verification_url!)).status).toBe(200);
      expect((await pubUrl('POST', c.contact_verification_url!)).status).toBe(409);
    }
    expect((await pub('GET', '/public/booking-proposals/pt_unknown')).status).toBe(404);
    expect((await pub('POST', '/public/booking-proposals/pt_unknown/withdraw')).status).toBe(404);
    expect((await pub('GET', '/public/contact-verifications/cv_unknown/confirm')).status).toBe(404);
    expect((await pub('POST', '/public/contact-verifications/cv_unknown/confirm')).status).toBe(404);
    expect((await pub('GET', '/public/no/such/endpoint')).status).toBe(404);
    expect((await pub('DELETE', `/public/schedules/${s.alias}`)).status).toBe(405);

    // rate_limited
    let last = await pubUrl('GET', booked.status_url);
    for (let i = 0; i < 125 && last.status !== 429; i++) last = await pubUrl('GET', booked.status_url);
    expect(last.status).toBe(429);

    // the requesters' mails (not the owner's own "new request" notices, sent to the owner): the owner's email is never in them either
    const toRequesters = smtp.messages.filter((m) => !m.to.includes(s.ownerEmail));
    expect(toRequesters.length).toBeGreaterThan(0);
    for (const m of toRequesters) expect(leaksIn(m.text), m.text).toEqual([]);

    // the scan
    const statuses = new Set(recorded.map((r) => r.status));
    for (const st of [200, 201, 400, 404, 405, 409, 415, 429]) expect(statuses).toContain(st);
    expect(recorded.some((r) => r.contentType.startsWith('text/html'))).toBe(true);
    const problems = recorded.flatMap((r) => leaksIn(r.text).map((l) => `${r.method} ${r.path} -> ${r.status}: ${l}`));
    expect(problems).toEqual([]);
  });
});
