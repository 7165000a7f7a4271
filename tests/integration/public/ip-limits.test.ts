import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeMailer } from '@/server/domain/email';
import { getRateLimiter } from '@/server/rateLimit';
import { expectEnvelope, newCustomer, uniqueEmail } from '../../helpers/app';
import type { TestSmtp } from '../../helpers/smtp';
import { freshIp, pub, publicOwner, useSmtp, type PublicSetup } from './fixtures';

/**
 * The global per-IP limit (600/min, docs/architecture.md step 3) covers every
 * request no tighter limit covers: proposal status and withdraw, contact
 * verification (page and POST), 404 and 405 answers. Per-token budgets exist
 * only for tokens that exist, and the submission budget is per resolved link.
 */
let smtp: TestSmtp;
let s: PublicSetup;
beforeAll(async () => {
  smtp = await useSmtp();
  s = await publicOwner(await newCustomer());
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});
afterEach(() => vi.restoreAllMocks());

/** Windows align to epoch multiples of their length: start a counted burst with room left in this one. */
async function roomInWindow(windowMs: number, needMs: number) {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}

const randomToken = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

/** One request of each class the per-IP limit used to miss, round-robin. */
const MISSED: ((ip: string) => ReturnType<typeof pub>)[] = [
  (ip) => pub('GET', `/public/booking-proposals/${randomToken('pt_')}`, { ip }),
  (ip) => pub('POST', `/public/booking-proposals/${randomToken('pt_')}/withdraw`, { ip }),
  (ip) => pub('GET', `/public/contact-verifications/${randomToken('cv_')}/confirm`, { ip }),
  (ip) => pub('POST', `/public/contact-verifications/${randomToken('cv_')}/confirm`, { ip }),
  (ip) => pub('GET', '/public/no-such-thing', { ip }),
  (ip) => pub('GET', `/v1/no-such-thing/${randomBytes(4).toString('hex')}`, { ip }),
  (ip) => pub('DELETE', '/v1/meeting-classes', { ip }), // 405
  (ip) => pub('PUT', `/public/booking-proposals/${randomToken('pt_')}`, { ip }), // 405
];

describe('the global per-IP limit covers every request no tighter limit covers', () => {
  it('counts token status, withdraw, verification page and POST, 404 and 405 answers: the 601st from one address is 429', async () => {
    await roomInWindow(60_000, 25_000);
    const ip = freshIp();
    for (let i = 0; i < 600; i++) {
      const res = await MISSED[i % MISSED.length](ip);
      expect(res.status, `request ${i}: ${res.text.slice(0, 200)}`).not.toBe(429);
      expect([404, 405], res.text.slice(0, 200)).toContain(res.status);
      // every answer carries the RateLimit-* headers of the per-IP budget
      expect(res.headers.get('ratelimit-limit'), `request ${i}`).toBe('600');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(599 - i));
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    }
    for (const send of MISSED) {
      const denied = await send(ip);
      expect(denied.status, denied.text.slice(0, 200)).toBe(429);
      expect(Number(denied.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(denied.headers.get('ratelimit-remaining')).toBe('0');
      if (denied.headers.get('content-type')?.includes('json')) expectEnvelope(denied, 429, 'rate_limited');
    }
    // another address is unaffected
    expect((await pub('GET', '/public/no-such-thing', { ip: freshIp() })).status).toBe(404);
  });

  it('gives tokens that do not exist no rate-limit keys of their own (only the per-IP one)', async () => {
    const limiter = getRateLimiter();
    const seen: string[] = [];
    const original = limiter.limit.bind(limiter);
    vi.spyOn(limiter, 'limit').mockImplementation((policy, identifier) => {
      seen.push(`${policy.name} ${identifier}`);
      return original(policy, identifier);
    });
    const ip = freshIp();
    for (let i = 0; i < 4; i++) expect((await MISSED[i](ip)).status).toBe(404);
    expect(seen).toEqual(Array.from({ length: 4 }, () => `global ip:${ip}`));
  });
});

describe('the submission limit is per resolved link', () => {
  it('shares one budget between the alias and the boundary id of a link', async () => {
    await roomInWindow(600_000, 30_000);
    const ip = freshIp();
    const body = () => ({ requester_contact: { email: uniqueEmail('rl') }, attendees: [], message: 'hello' });
    for (let i = 0; i < 10; i++) {
      expect((await pub('POST', `/public/schedules/${s.alias}/booking-proposals`, { ip, body: body() })).status).toBe(201);
      const viaId = await pub('POST', `/public/schedules/${s.linkId}/booking-proposals`, { ip, body: body() });
      expect(viaId.status, viaId.text).toBe(201);
      expect(viaId.headers.get('ratelimit-limit')).toBe('20');
      expect(viaId.headers.get('ratelimit-remaining')).toBe(String(18 - 2 * i));
    }
    expectEnvelope(await pub('POST', `/public/schedules/${s.linkId}/booking-proposals`, { ip, body: body() }), 429, 'rate_limited');
    expectEnvelope(await pub('POST', `/public/schedules/${s.alias.toUpperCase()}/booking-proposals`, { ip, body: body() }), 429, 'rate_limited');
    // another address still submits to the link
    expect((await pub('POST', `/public/schedules/${s.linkId}/booking-proposals`, { ip: freshIp(), body: body() })).status).toBe(201);
  });

  it('charges submissions to an unknown link only to the per-IP budget', async () => {
    const ip = freshIp();
    const body = { requester_contact: { email: uniqueEmail('rl') }, attendees: [], message: 'hello' };
    const res = await pub('POST', `/public/schedules/no-such-link-${randomBytes(4).toString('hex')}/booking-proposals`, { ip, body });
    expectEnvelope(res, 404, 'not_found');
    expect(res.headers.get('ratelimit-limit')).toBe('600');
  });
});
