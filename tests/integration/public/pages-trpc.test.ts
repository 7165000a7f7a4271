import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { bookingProposals } from '@/db/schema';
import { getDb, type Db } from '@/server/db';
import { closeMailer } from '@/server/domain/email';
import { linkIdFor, proposalIdForToken } from '@/server/domain/publicScheduling/requester';
import { getRateLimiter, RATE_LIMITS } from '@/server/rateLimit';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { linksIn, type TestSmtp } from '../../helpers/smtp';
import {
  call,
  credential,
  expectNoLeaks,
  freshIp,
  leaksIn,
  meetingType,
  nextWeekday,
  ownerCaller,
  pub,
  pubUrl,
  publicOwner,
  recorded,
  useSmtp,
  type PublicSetup,
} from './fixtures';
import { rateLimitKeys } from '@/server/rateLimit/keys';

/**
 * The public booking pages' tRPC procedures (server/trpc/routers/requester.ts):
 * the same domain answers as /public, the same rate-limit budgets, the
 * credential in a cookie, and nothing private in any answer.
 */
let smtp: TestSmtp;
let admin: TestCustomer;
let s: PublicSetup;
beforeAll(async () => {
  smtp = await useSmtp();
  admin = await newCustomer();
  s = await publicOwner(admin, { name: 'Page Owner', title: 'Meet Page Owner' });
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

/** A browser's caller: its address and cookies; records every answer for the leak scan. */
function browser(opts: { ip?: string; cookie?: string; acceptLanguage?: string } = {}) {
  const headers = new Headers({ 'x-forwarded-for': opts.ip ?? freshIp(), host: 'scheduler.test' });
  if (opts.cookie) headers.set('cookie', opts.cookie);
  if (opts.acceptLanguage) headers.set('accept-language', opts.acceptLanguage);
  const req = new Request('http://scheduler.test/api/trpc', { headers });
  const resHeaders = new Headers();
  const caller = createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders, db, now: () => new Date() });
  const record = <T>(name: string, p: Promise<T>): Promise<T> =>
    p.then((v) => {
      recorded.push({ method: 'TRPC', path: name, status: 200, contentType: 'application/json', text: JSON.stringify(v) });
      return v;
    });
  const r = caller.requester;
  return {
    resHeaders,
    schedule: (link: string) => record('schedule', r.schedule({ link })),
    meetingType: (link: string, slug: string, withTimes?: boolean) => record('meetingType', r.meetingType({ link, slug, ...(withTimes ? { suggested_times: true } : {}) })),
    suggestedTimes: (input: Parameters<typeof r.suggestedTimes>[0]) => record('suggestedTimes', r.suggestedTimes(input)),
    submit: (input: Parameters<typeof r.submit>[0]) => record('submit', r.submit(input)),
    status: (token: string) => record('status', r.status({ token })),
    withdraw: (token: string) => record('withdraw', r.withdraw({ token })),
    useCredential: (link: string, cred: string) => r.useCredential({ link, credential: cred }),
    forgetCredential: () => r.forgetCredential(),
  };
}

const cause = (code: string) => ({ cause: { code } });
const day = nextWeekday('wed', 'UTC');
const window = { from: day.at('09:00'), to: day.at('17:00') };

async function firstTime(link: string, slug: string, duration = 30) {
  const { suggested_times } = await browser().suggestedTimes({ link, slug, duration_minutes: duration, ...window });
  expect(suggested_times.length).toBeGreaterThan(0);
  return suggested_times[0];
}

let db: Db;
beforeAll(async () => {
  db = await getDb();
});

describe('public page procedures', () => {
  it('list the types a requester may see; an audience type only with a saved credential of a member', async () => {
    await meetingType(s, { slug: 'intro', title: 'Intro call', duration_minutes: [30, 60], attendee_limit: 3 });
    await meetingType(s, { slug: 'secret', visibility: 'unlisted' });
    await call('POST', '/v1/public-scheduling/audiences', { key: admin.key, body: { name: 'vip', members: [{ email: 'vip@partner.example' }] } });
    await meetingType(s, { slug: 'vip-call', title: 'VIP call', visibility: 'audience', audience: 'vip' });
    const vip = await credential(admin, 'vip@partner.example');

    const anon = await browser().schedule(s.alias);
    expect(anon).toMatchObject({ title: 'Meet Page Owner', owner_name: 'Page Owner', credential_rejected: false, has_credential: false });
    expect(anon.meeting_types.map((t) => t.slug)).toEqual(['intro']);

    const b = browser();
    await expect(b.useCredential(s.alias, 'rc_not-a-real-one')).rejects.toMatchObject(cause('not_found'));
    expect(b.resHeaders.get('set-cookie')).toBeNull();
    await b.useCredential(s.alias, vip.token);
    const cookie = b.resHeaders.get('set-cookie')!;
    expect(cookie).toMatch(/^requester_credential=rc_[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const withCred = await browser({ cookie: cookie.split(';')[0] }).schedule(s.alias.toUpperCase());
    expect(withCred.meeting_types.map((t) => t.slug).sort()).toEqual(['intro', 'vip-call']);
    expect(withCred).toMatchObject({ has_credential: true, credential_rejected: false });
    expect(await browser({ cookie: cookie.split(';')[0] }).meetingType(s.alias, 'vip-call')).toMatchObject({ title: 'VIP call' });
    await expect(browser().meetingType(s.alias, 'vip-call')).rejects.toMatchObject(cause('not_found'));

    // Revoked: reported, and the page answers as for anyone.
    await call('DELETE', `/v1/public-scheduling/requester-identities/${vip.identityId}/credentials/${vip.credentialId}`, { key: admin.key });
    const stale = await browser({ cookie: cookie.split(';')[0] }).schedule(s.alias);
    expect(stale).toMatchObject({ credential_rejected: true });
    expect(stale.meeting_types.map((t) => t.slug)).toEqual(['intro']);
    const f = browser();
    await f.forgetCredential();
    expect(f.resHeaders.get('set-cookie')).toMatch(/^requester_credential=; Path=\/; Max-Age=0; HttpOnly/);
  });

  it('a meeting type page: title, durations, the attendee limit; unknown links and types are not_found', async () => {
    expect(await browser().meetingType(s.alias, 'intro')).toEqual({
      link_title: 'Meet Page Owner',
      owner_name: 'Page Owner',
      slug: 'intro',
      title: 'Intro call',
      duration_minutes: [30, 60],
      attendee_limit: 3,
      description: null,
      books_instantly: false,
      repeat_weekly_max_weeks: null,
      several_hosts: false,
      credential_rejected: false,
    });
    expect(await browser().meetingType(s.alias, 'secret')).toMatchObject({ slug: 'secret' });
    // The page's one call: the type and the first page of suggestions, as suggestedTimes answers them.
    const withTimes = await browser().meetingType(s.alias, 'intro', true);
    expect(withTimes.suggested_times).toEqual((await browser().suggestedTimes({ link: s.alias, slug: 'intro' })).suggested_times);
    await expect(browser().meetingType(s.alias, 'nope')).rejects.toMatchObject(cause('not_found'));
    await expect(browser().meetingType(`x${s.alias}`, 'intro')).rejects.toMatchObject(cause('not_found'));
  });

  it('suggested times equal the REST answer', async () => {
    const q = `from=${encodeURIComponent(window.from)}&to=${encodeURIComponent(window.to)}&duration_minutes=60`;
    const rest = await pub('GET', `/public/schedules/${s.alias}/meeting-types/intro/suggested-times?${q}`);
    const trpc = await browser().suggestedTimes({ link: s.alias, slug: 'intro', duration_minutes: 60, ...window });
    // The pages get bare UTC times (they show them in the requester's zone); REST adds the owner-local twins.
    const bare = rest.body.suggested_times.map((t: { start: string; end: string }) => ({ start: t.start, end: t.end }));
    expect(trpc).toEqual({ ...rest.body, suggested_times: bare, credential_rejected: false });
    await expect(browser().suggestedTimes({ link: s.alias, slug: 'intro', duration_minutes: 45 })).rejects.toMatchObject(cause('invalid_request'));
  });

  it('submit answers the next step and the status address but never the verification link, which arrives by mail', async () => {
    const slot = await firstTime(s.alias, 'intro');
    const email = uniqueEmail('page-requester');
    const out = await browser().submit({ link: s.alias, requester_contact: { email, name: 'Rhea' }, attendees: [{ email: uniqueEmail('guest') }], public_meeting_type: 'intro', duration_minutes: 30, requested_window: slot, message: 'Hello' });
    expect(Object.keys(out).sort()).toEqual(['credential_rejected', 'status', 'status_url']);
    expect(out.status).toBe('pending_requester_verification');
    expect(out.status_url).toMatch(/^http:\/\/scheduler\.test\/public\/booking-proposals\/pt_/);
    const mail = await smtp.waitFor(email);
    const verify = linksIn(mail).find((l) => l.includes('/contact-verifications/'))!;
    expect(verify).toBeTruthy();
    expect(JSON.stringify(out)).not.toContain(new URL(verify).pathname.split('/')[3]);
    await expect(
      browser().submit({ link: s.alias, requester_contact: { email }, attendees: [{ email: 'a@x.example' }, { email: 'b@x.example' }, { email: 'c@x.example' }], public_meeting_type: 'intro', duration_minutes: 30, requested_window: slot }),
    ).rejects.toMatchObject(cause('attendee_limit_exceeded'));
    // A free-text request (no type) needs a message.
    await expect(browser().submit({ link: s.alias, requester_contact: { email }, attendees: [] })).rejects.toMatchObject(cause('invalid_request'));
    expect((await browser().submit({ link: s.alias, requester_contact: { email }, attendees: [], message: 'Any time next week?' })).status).toBe('pending_requester_verification');
  });

  it('a submission keeps the language the requester used: the switcher\'s cookie, else Accept-Language (docs/public-scheduling.md "Languages")', async () => {
    const ask = async (b: ReturnType<typeof browser>) => (await b.submit({ link: s.alias, requester_contact: { email: uniqueEmail('lang') }, attendees: [], message: 'Hallo' })).status_url.split('/').pop()!;
    const locale = async (token: string) => (await db.select({ l: bookingProposals.requesterLocale }).from(bookingProposals).where(eq(bookingProposals.id, (await proposalIdForToken(db, token))!)))[0].l;
    expect(await locale(await ask(browser({ acceptLanguage: 'de-DE,de;q=0.9' })))).toBe('de');
    expect(await locale(await ask(browser({ acceptLanguage: 'de', cookie: 'requester_lang=ja' })))).toBe('ja');
    expect(await locale(await ask(browser()))).toBe('en');
  });

  it('submissions share the REST budget per client address and link', async () => {
    const ip = freshIp();
    const limiter = getRateLimiter();
    // The key REST uses: client address and the link the alias resolves to.
    const linkId = await linkIdFor(db, s.alias);
    expect(linkId).not.toBeNull();
    for (let i = 0; i < RATE_LIMITS.publicProposalSubmit.limit; i++) await limiter.limit(RATE_LIMITS.publicProposalSubmit, rateLimitKeys.submit(ip, linkId!));
    const body = { requester_contact: { email: uniqueEmail('rl') }, attendees: [], message: 'hi' };
    await expect(browser({ ip }).submit({ link: s.alias.toUpperCase(), ...body })).rejects.toMatchObject(cause('rate_limited'));
    expect((await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip, body })).status).toBe(429);
    expect((await browser().submit({ link: s.alias, ...body })).status).toBe('pending_requester_verification');
  });

  it('status: the request in words through verification, approval and decline; withdraw while pending', async () => {
    const slot = await firstTime(s.alias, 'intro');
    const email = uniqueEmail('status');
    const out = await browser().submit({ link: s.alias, requester_contact: { email }, attendees: [], public_meeting_type: 'intro', duration_minutes: 30, requested_window: slot });
    const token = out.status_url.split('/').pop()!;
    const first = await browser().status(token);
    expect(first).toEqual({
      status: 'pending_requester_verification',
      updated_at: expect.any(String),
      title: 'Intro call',
      owner_name: 'Page Owner',
      start: slot.start,
      end: slot.end,
      withdrawable: true,
      decline_reason: null,
      location: null,
      video: null,
      cancellable: false,
      meeting_cancelled: false,
      movable: false,
      move_request: null,
      books_instantly: false,
      weeks: null,
    });
    const verify = linksIn(await smtp.waitFor(email)).find((l) => l.includes('/contact-verifications/'))!;
    expect((await pubUrl('POST', verify)).status).toBe(200);
    expect(await browser().status(token)).toMatchObject({ status: 'pending_review', withdrawable: true });
    // JSON and page views agree.
    expect((await pubUrl('GET', out.status_url)).body.status).toBe('pending_review');

    const pending = (await (await ownerCaller(s)).proposals.listPending()).proposals.find((p) => p.requester?.email === email)!;
    const later = { start: day.at('16:00'), end: day.at('16:30') };
    await (await ownerCaller(s)).proposals.approve({ proposal_id: pending.proposal_id, ...later });
    expect(await browser().status(token)).toMatchObject({ status: 'booked', start: later.start, end: later.end, withdrawable: false, cancellable: true, meeting_cancelled: false });
    await expect(browser().withdraw(token)).rejects.toMatchObject(cause('not_pending'));

    // Declined, with the owner's reason; and a withdrawal.
    const slot2 = await firstTime(s.alias, 'intro');
    const e2 = uniqueEmail('declined');
    const t2 = (await browser().submit({ link: s.alias, requester_contact: { email: e2 }, attendees: [], public_meeting_type: 'intro', duration_minutes: 30, requested_window: slot2 })).status_url.split('/').pop()!;
    expect((await pubUrl('POST', linksIn(await smtp.waitFor(e2)).find((l) => l.includes('/contact-verifications/'))!)).status).toBe(200);
    const p2 = (await (await ownerCaller(s)).proposals.listPending()).proposals.find((p) => p.requester?.email === e2)!;
    await (await ownerCaller(s)).proposals.decline({ proposal_id: p2.proposal_id, reason: 'Travelling that week' });
    expect(await browser().status(t2)).toMatchObject({ status: 'declined', decline_reason: 'Travelling that week', withdrawable: false });

    const t3 = (await browser().submit({ link: s.alias, requester_contact: { email: uniqueEmail('wd') }, attendees: [], message: 'Coffee?' })).status_url.split('/').pop()!;
    expect(await browser().status(t3)).toMatchObject({ status: 'pending_requester_verification', title: null, start: null, withdrawable: true });
    expect(await browser().withdraw(t3)).toMatchObject({ status: 'withdrawn', withdrawable: false });
    expect((await pub('GET', `/public/booking-proposals/${t3}`)).body.status).toBe('withdrawn');
    await expect(browser().status('pt_unknown')).rejects.toMatchObject(cause('not_found'));
  });

  it('status calls share the per-token budget with the REST status endpoint', async () => {
    const t = (await browser().submit({ link: s.alias, requester_contact: { email: uniqueEmail('tok') }, attendees: [], message: 'Budget?' })).status_url.split('/').pop()!;
    const limiter = getRateLimiter();
    // The key REST uses: the proposal the token names.
    const proposalId = await proposalIdForToken(db, t);
    expect(proposalId).not.toBeNull();
    for (let i = 0; i < RATE_LIMITS.publicProposalToken.limit; i++) await limiter.limit(RATE_LIMITS.publicProposalToken, rateLimitKeys.proposal(proposalId!));
    await expect(browser().status(t)).rejects.toMatchObject(cause('rate_limited'));
    await expect(browser().withdraw(t)).rejects.toMatchObject(cause('rate_limited'));
    expect((await pub('GET', `/public/booking-proposals/${t}`)).status).toBe(429);
  });

  it('no answer carries an internal id, the owner email or owner rules', () => {
    const trpc = recorded.filter((r) => r.method === 'TRPC');
    expect(trpc.length).toBeGreaterThan(10);
    expect(trpc.flatMap((r) => leaksIn(r.text).map((l) => `${r.path}: ${l}`))).toEqual([]);
  });
});
