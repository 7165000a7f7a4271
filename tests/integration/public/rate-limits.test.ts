import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeMailer } from '@/server/domain/email';
import { expectEnvelope, newCustomer, uniqueEmail } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { expectNoLeaks, freshIp, meetingType, pub, pubUrl, publicOwner, submitFirst, useSmtp, type PublicSetup } from './fixtures';

let smtp: TestSmtp;
let s: PublicSetup;
beforeAll(async () => {
  smtp = await useSmtp();
  s = await publicOwner(await newCustomer());
});
afterAll(async () => {
  expectNoLeaks();
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

/**
 * Windows are aligned to epoch multiples of their length: start a counted
 * burst only with at least `needMs` left in the current window, so it never
 * straddles two (which the sliding-window weighting would count differently).
 */
async function roomInWindow(windowMs: number, needMs: number) {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}

const freeText = () => ({ requester_contact: { email: uniqueEmail('rl') }, attendees: [], message: 'hello' });

describe('public rate limits', () => {
  it('allows 20 submissions per 10 minutes per client address and link: the 21st is 429 rate_limited with Retry-After', async () => {
    const ip = freshIp();
    await roomInWindow(600_000, 30_000);
    for (let i = 0; i < 20; i++) {
      const res = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip, body: freeText() });
      expect(res.status, res.text).toBe(201);
      expect(res.headers.get('ratelimit-limit')).toBe('20');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(19 - i));
    }
    const denied = await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip, body: freeText() });
    expectEnvelope(denied, 429, 'rate_limited');
    const retry = Number(denied.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(600);
    // invalid bodies count too (the limit runs before validation), and other addresses or links are not affected
    expectEnvelope(await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip, body: {} }), 429, 'rate_limited');
    expect((await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip: freshIp(), body: freeText() })).status).toBe(201);
    const other = await publicOwner(await newCustomer());
    expect((await pub('POST', `/public/schedules/${other.alias}/booking-proposals`, { ip, body: freeText() })).status).toBe(201);
  });

  it('allows 120 status and withdraw calls per minute per token: the 121st is 429 rate_limited with Retry-After', async () => {
    const slug = await meetingType(s, { duration_minutes: [30] });
    await roomInWindow(60_000, 20_000);
    const c = await submitFirst(s, slug, { ip: freshIp() });
    for (let i = 0; i < 119; i++) {
      const res = await pubUrl('GET', c.status_url, { ip: freshIp() });
      expect(res.status, res.text).toBe(200);
    }
    expect((await pubUrl('POST', `${c.status_url}/withdraw`)).status).toBe(200); // the 120th
    const denied = await pubUrl('GET', c.status_url);
    expectEnvelope(denied, 429, 'rate_limited');
    const retry = Number(denied.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expectEnvelope(await pubUrl('POST', `${c.status_url}/withdraw`), 429, 'rate_limited');
    // another token is unaffected
    const d = await submitFirst(s, slug, { ip: freshIp() });
    expect((await pubUrl('GET', d.status_url)).status).toBe(200);
  });
});
