import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/server/db';
import { bookingProposals, contactVerifications } from '@/db/schema';
import { closeMailer } from '@/server/domain/email';
import { sweepExpiredProposals } from '@/server/domain/publicScheduling/review';
import { expectEnvelope, newCustomer, uniqueEmail } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { confirm, expectNoLeaks, freshIp, meetingType, ownerCaller, proposalRow, pub, pubUrl, publicOwner, submitFirst, useSmtp, type PublicSetup } from './fixtures';
import { collectLogLines } from '../../helpers/logLines';

let smtp: TestSmtp;
let s: PublicSetup;
let slug: string;
beforeAll(async () => {
  smtp = await useSmtp();
  s = await publicOwner(await newCustomer(), { name: 'Ada <script>alert(1)</script> & "Co"' });
  slug = await meetingType(s, { title: "Intro <b>call</b> 'x'", duration_minutes: [30] });
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

const submit = () => submitFirst(s, slug, { ip: freshIp() });
/** Age a proposal (and its verification) past its 24 h. */
async function lapse(token: string) {
  const db = await getDb();
  const row = await proposalRow(token);
  const past = new Date(Date.now() - 1000);
  await db.update(bookingProposals).set({ expiresAt: past }).where(eq(bookingProposals.id, row.id));
  await db.update(contactVerifications).set({ expiresAt: past }).where(eq(contactVerifications.proposalId, row.id));
  return past;
}

describe('proposal transitions', () => {
  it('pending_requester_verification -> withdrawn; then withdraw and confirm answer 409 not_pending', async () => {
    const c = await submit();
    const before = await pubUrl('GET', c.status_url);
    const w = await pubUrl('POST', `${c.status_url}/withdraw`);
    expect(w.status, w.text).toBe(200);
    expect(w.body.status).toBe('withdrawn');
    expect(Date.parse(w.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.body.updated_at));
    expect((await pubUrl('GET', c.status_url)).body.status).toBe('withdrawn');
    expectEnvelope(await pubUrl('POST', `${c.status_url}/withdraw`), 409, 'not_pending');
    expectEnvelope(await confirm(c), 409, 'not_pending');
    const page = await pubUrl('GET', c.contact_verification_url!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('withdrawn');
    expect(page.text).not.toContain('<form');
  });

  it('pending_requester_verification -> pending_review -> withdrawn', async () => {
    const c = await submit();
    expect((await confirm(c)).body).toEqual({ status: 'pending_review' });
    expectEnvelope(await confirm(c), 409, 'not_pending'); // second confirm
    const w = await pubUrl('POST', `${c.status_url}/withdraw`);
    expect(w.body.status).toBe('withdrawn');
    expect((await (await ownerCaller(s)).proposals.listPending()).proposals.map((p) => p.requester?.email)).not.toContain(c.requester);
  });

  it('pending_review -> declined (reason mailed); withdraw then 409 not_pending', async () => {
    const c = await submit();
    await confirm(c);
    const owner = await ownerCaller(s);
    const p = (await owner.proposals.listPending()).proposals.find((x) => x.requester?.email === c.requester)!;
    const declined = await owner.proposals.decline({ proposal_id: p.proposal_id, reason: 'Travelling that week' });
    expect(declined.status).toBe('declined');
    expect((await pubUrl('GET', c.status_url)).body.status).toBe('declined');
    const mail = await smtp.waitFor(c.requester, { subject: /declined/i });
    expect(mail.text).toContain('Travelling that week');
    expectEnvelope(await pubUrl('POST', `${c.status_url}/withdraw`), 409, 'not_pending');
    await expect(owner.proposals.decline({ proposal_id: p.proposal_id })).rejects.toMatchObject({ cause: { code: 'PROPOSAL_NOT_PENDING' } });
  });

  it('unverified for 24 h -> expired (lazily on read, updated_at = the lapse); withdraw and confirm then 409', async () => {
    const c = await submit();
    const past = await lapse(c.token);
    const status = await pubUrl('GET', c.status_url);
    expect(status.body).toEqual({ status: 'expired', updated_at: past.toISOString() });
    expect((await proposalRow(c.token)).status).toBe('expired');
    expectEnvelope(await pubUrl('POST', `${c.status_url}/withdraw`), 409, 'not_pending');
    expectEnvelope(await confirm(c), 409, 'not_pending');
    expect((await pubUrl('GET', c.contact_verification_url!)).text).toContain('expired');
  });

  it('the sweep expires lapsed unverified proposals and leaves the rest', async () => {
    const lapsed = await submit();
    const fresh = await submit();
    const verified = await submit();
    await confirm(verified);
    await lapse(lapsed.token);
    expect(await sweepExpiredProposals(await getDb(), new Date())).toBeGreaterThanOrEqual(1);
    expect((await proposalRow(lapsed.token)).status).toBe('expired');
    expect((await proposalRow(fresh.token)).status).toBe('pending_requester_verification');
    expect((await proposalRow(verified.token)).status).toBe('pending_review');
    expectEnvelope(await pubUrl('POST', `${lapsed.status_url}/withdraw`), 409, 'not_pending');
  });

  it('unknown or malformed tokens are 404 not_found', async () => {
    for (const token of ['pt_nope', 'nope', 'cv_abc']) {
      expectEnvelope(await pub('GET', `/public/booking-proposals/${token}`), 404, 'not_found');
      expectEnvelope(await pub('POST', `/public/booking-proposals/${token}/withdraw`), 404, 'not_found');
    }
    for (const token of ['cv_nope', 'pt_abc', 'nope']) expectEnvelope(await pub('POST', `/public/contact-verifications/${token}/confirm`), 404, 'not_found');
    const c = await submit();
    expectEnvelope(await pubUrl('GET', c.status_url, { key: 'rc_not_a_credential' }), 404, 'not_found');
  });
});

describe('the contact verification page', () => {
  it('is a small escaped HTML page with a strict CSP whose form posts to the same URL; GET changes nothing', async () => {
    const c = await submit();
    const page = await pubUrl('GET', c.contact_verification_url!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'sha256-/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.text).toMatch(/^<!doctype html>/);
    expect(page.text).toContain('<form method="post" id="confirm"><button type="submit">Confirm</button></form>');
    expect(page.text).toContain("fetch(location.pathname,{method:'POST'");
    // everything from data is escaped
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).not.toContain('<b>call</b>');
    expect(page.text).toContain('Ada &#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;Co&#34;');
    expect(page.text).toContain('Intro &#60;b&#62;call&#60;/b&#62; &#39;x&#39;');
    expect((await proposalRow(c.token)).status).toBe('pending_requester_verification');

    // a browser form post (urlencoded, no script) confirms too
    const form = await pubUrl('POST', c.contact_verification_url!, { rawBody: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } });
    expect(form.status, form.text).toBe(200);
    expect(form.body).toEqual({ status: 'pending_review' });
    const after = await pubUrl('GET', c.contact_verification_url!);
    expect(after.text).toContain('already confirmed');
    expect(after.text).not.toContain('<form');
  });

  it('speaks the requester\'s language: Accept-Language, then the switcher\'s cookie, then ?lang= (docs/public-scheduling.md "Languages")', async () => {
    const c = await submit();
    const de = await pubUrl('GET', c.contact_verification_url!, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    expect(de.text).toContain('<html lang="de" dir="ltr">');
    expect(de.text).toContain('<button type="submit">Bestätigen</button>');
    expect(de.headers.get('content-language')).toBe('de');
    const ar = await pubUrl('GET', c.contact_verification_url!, { headers: { 'accept-language': 'de', cookie: 'requester_lang=ar' } });
    expect(ar.text).toContain('<html lang="ar" dir="rtl">');
    expect(ar.text).toContain('data-booked="شكرًا لك');
    const ja = await pubUrl('GET', `${c.contact_verification_url!}?lang=ja`, { headers: { cookie: 'requester_lang=ar' } });
    expect(ja.text).toContain('<html lang="ja"');
    // Data stays escaped in every language.
    expect(ja.text).not.toContain('<script>alert(1)</script>');
  });

  it('answers an unknown token with a 404 HTML page', async () => {
    for (const token of ['cv_unknown', 'nonsense', 'x'.repeat(300)]) {
      const page = await pub('GET', `/public/contact-verifications/${token}/confirm`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('Link not found');
    }
  });
});

describe('mail delivery', () => {
  it('writes the message with its links to the server log, their secret tokens censored (docs/operations.md "Logs")', async () => {
    const smtpUrl = process.env.SMTP_URL;
    delete process.env.SMTP_URL;
    const log = collectLogLines();
    try {
      const c = await submitFirst(s, slug, { ip: freshIp(), requester: uniqueEmail('logged') });
      const entry = log.lines.find((l) => l.to === c.requester) as { text: string } | undefined;
      expect(entry).toBeDefined();
      const url = c.contact_verification_url!;
      expect(entry!.text).toContain(url.slice(0, url.indexOf('cv_')) + 'cv_[REDACTED]');
      expect(entry!.text).not.toContain(url);
    } finally {
      log.restore();
      process.env.SMTP_URL = smtpUrl;
    }
  });

  it('in production, writes the message to the log without its links unless MAIL_LOG_LINKS=1', async () => {
    const smtpUrl = process.env.SMTP_URL;
    delete process.env.SMTP_URL;
    const log = collectLogLines();
    const logged = async () => {
      log.lines.length = 0;
      const c = await submitFirst(s, slug, { ip: freshIp(), requester: uniqueEmail('prod') });
      return { c, entry: log.lines.find((l) => l.to === c.requester) as { subject?: string; text: string }, all: log.lines.map((l) => JSON.stringify(l)).join('\n') };
    };
    try {
      vi.stubEnv('NODE_ENV', 'production');
      const withheld = await logged();
      expect(withheld.entry?.subject).toBeDefined();
      for (const secret of [withheld.c.contact_verification_url!, withheld.c.status_url, withheld.c.token, 'cv_', 'pt_']) expect(withheld.all).not.toContain(secret);
      expect(withheld.entry.text).toContain('MAIL_LOG_LINKS');

      // With MAIL_LOG_LINKS=1 the links are logged, but the logger still censors their secret tokens.
      vi.stubEnv('MAIL_LOG_LINKS', '1');
      const shown = await logged();
      const url = shown.c.contact_verification_url!;
      expect(shown.entry.text).toContain(url.slice(0, url.indexOf('cv_')) + 'cv_[REDACTED]');
      for (const secret of [url, shown.c.status_url, shown.c.token]) expect(shown.all).not.toContain(secret);
    } finally {
      vi.unstubAllEnvs();
      log.restore();
      process.env.SMTP_URL = smtpUrl;
    }
  });

  it('authenticates when SMTP_URL carries credentials', async () => {
    const smtpUrl = process.env.SMTP_URL!;
    process.env.SMTP_URL = smtpUrl.replace('smtp://', 'smtp://mailer:secret@');
    try {
      const c = await submitFirst(s, slug, { ip: freshIp(), requester: uniqueEmail('authed') });
      expect((await smtp.waitFor(c.requester)).text).toContain(c.contact_verification_url);
    } finally {
      process.env.SMTP_URL = smtpUrl;
    }
  });

  it('a mail server that cannot be reached is logged and does not fail the submission', async () => {
    const smtpUrl = process.env.SMTP_URL;
    process.env.SMTP_URL = 'smtp://127.0.0.1:1';
    const log = collectLogLines();
    try {
      const c = await submitFirst(s, slug, { ip: freshIp() });
      expect(c.status).toBe('pending_requester_verification');
      expect(log.lines.some((l) => l.level === 'error' && l.msg === 'mail delivery failed')).toBe(true);
    } finally {
      log.restore();
      process.env.SMTP_URL = smtpUrl;
    }
  });
});
