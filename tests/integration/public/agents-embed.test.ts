import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicLinks, verifiedDomains } from '@/db/schema';
import { getDb } from '@/server/db';
import { meetingTypePage, loadPublicType } from '@/server/domain/publicScheduling/requester';
import { CACHE_TTL_MS, clearFrameAncestorsCache, frameAncestorsFor } from '@/server/http/frameAncestors';
import { meetingTypeJsonLd, scriptJson } from '@/app/(public-pages)/[alias]/[slug]/json-ld';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, expectNoLeaks, forbidden, leaksIn, meetingType, pub, publicOwner, submitFirst, type PublicSetup } from './fixtures';

/**
 * docs/public-scheduling.md "For agents" (`/{alias}/llms.txt`, JSON-LD on a
 * type's page) and "Embedding" (who may frame which page, from the domains
 * table, cached).
 */
let admin: TestCustomer;
let other: TestCustomer;
let s: PublicSetup;
let o: PublicSetup;
beforeAll(async () => {
  admin = await newCustomer();
  other = await newCustomer();
  s = await publicOwner(admin, { name: 'Ada Agentpage', title: 'Talk to Ada' });
  o = await publicOwner(other, { name: 'Bo Other' });
  await call('POST', '/v1/public-scheduling/audiences', { key: admin.key, body: { name: 'partners', members: [{ email: 'vip@partner.example' }] } });
  await meetingType(s, { slug: 'intro', title: 'Intro call', duration_minutes: [30, 60], min_notice_hours: 4, location: 'Hauptstrasse 1, Berlin', description: 'Bring one question.', attendee_limit: 3 });
  await meetingType(s, { slug: 'demo', title: 'Product demo', duration_minutes: [45], location: 'https://video.example/ada-demo', book_instantly: true });
  await meetingType(s, { slug: 'secret-unlisted', title: 'Unlisted chat', visibility: 'unlisted' });
  await meetingType(s, { slug: 'partners-only', title: 'Partner sync', visibility: 'audience', audience: 'partners' });
  await meetingType(o, { slug: 'intro' });
});
afterAll(() => expectNoLeaks());

async function verifyDomain(c: TestCustomer, domain: string): Promise<void> {
  const created = await call('POST', '/v1/public-scheduling/domains', { key: c.key, body: { domain } });
  expect(created.status, created.text).toBe(201);
  // Seeded as verified directly (the DNS exchange itself: tests/integration/publicAdmin/domains.test.ts).
  await (await getDb()).update(verifiedDomains).set({ status: 'verified', verifiedAt: new Date() }).where(eq(verifiedDomains.id, created.body.domain_id));
}

describe('/{alias}/llms.txt', () => {
  it('plain text: the owner by name, the listed types with durations, notice and kind of location, and how to book through /public and MCP', async () => {
    const res = await pub('GET', `/${s.alias}/llms.txt`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = res.text;
    expect(text).toMatch(/^# Talk to Ada\n/);
    expect(text).toContain('Owner: Ada Agentpage');
    expect(text).toContain('### Intro call');
    expect(text).toContain('- Durations: 30 min, 60 min');
    expect(text).toContain('- Notice: book at least 4 hours ahead');
    expect(text).toContain('- Location: in person (the address is sent once booked)');
    expect(text).toContain('- People: at most 3, the requester included');
    expect(text).toContain('> Bring one question.');
    expect(text).toContain('### Product demo');
    expect(text).toContain('- Location: video call (the link is sent once booked)');
    expect(text).toContain('- Confirmation: booked at once');
    // how to book: the /public calls with a worked example, and MCP for agents with a key
    expect(text).toContain(`GET http://scheduler.test/public/schedules/${s.alias}\``);
    expect(text).toContain(`curl -s 'http://scheduler.test/public/schedules/${s.alias}/meeting-types/intro/suggested-times?duration_minutes=30'`);
    expect(text).toContain(`curl -s -X POST 'http://scheduler.test/public/schedules/${s.alias}/booking-proposals'`);
    expect(text).toContain('"public_meeting_type": "intro"');
    expect(text).toContain('`http://scheduler.test/mcp`');
  });

  it('hidden types stay hidden; nothing the page does not show (no address, no video link, no email, no id)', async () => {
    const text = (await pub('GET', `/${s.alias.toUpperCase()}/llms.txt`)).text;
    for (const hidden of ['Unlisted chat', 'secret-unlisted', 'Partner sync', 'partners-only', 'partners']) expect(text).not.toContain(hidden);
    for (const privateBit of ['Hauptstrasse', 'video.example', s.ownerEmail, '@']) expect(text).not.toContain(privateBit);
    expect(leaksIn(text)).toEqual([]);
  });

  it('an unknown or deleted link is 404, as its page', async () => {
    expect((await pub('GET', '/no-such-link-here/llms.txt')).status).toBe(404);
    const gone = await publicOwner(admin, { name: 'Gone Soon' });
    expect((await pub('GET', `/${gone.alias}/llms.txt`)).status).toBe(200);
    expect((await call('DELETE', `/v1/public-scheduling/links/${gone.linkId}`, { key: admin.key })).status).toBe(200);
    const res = await pub('GET', `/${gone.alias}/llms.txt`);
    expect(res.status).toBe(404);
    expect(res.text).toBe('Not found.\n');
  });
});

describe('JSON-LD on a meeting type page', () => {
  it('a schema.org Service by its host, one Offer per length, a ReserveAction; only what the page shows', async () => {
    const page = meetingTypePage(await loadPublicType(await getDb(), s.alias, 'intro', null));
    const url = `https://scheduler.example/${s.alias}/intro`;
    const ld = meetingTypeJsonLd(page, url);
    expect(ld).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'Service',
      name: 'Intro call',
      description: 'Bring one question.',
      url,
      provider: { '@type': 'Person', name: 'Ada Agentpage' },
      potentialAction: { '@type': 'ReserveAction', target: { urlTemplate: url } },
    });
    expect((ld.offers as { eligibleDuration: { value: number; unitCode: string } }[]).map((x) => [x.eligibleDuration.value, x.eligibleDuration.unitCode])).toEqual([
      [30, 'MIN'],
      [60, 'MIN'],
    ]);
    const json = scriptJson(ld);
    expect(JSON.parse(json)).toEqual(ld);
    expect(json).not.toContain('Hauptstrasse');
    expect(leaksIn(json)).toEqual([]);
    // no text can close the script element
    expect(scriptJson({ name: '</script><script>alert(1)</script>' })).not.toContain('<');
  });
});

describe('who may frame a page', () => {
  it("a booking page and a status page: 'self' and the link's customer's verified domains only; other pages: nobody", async () => {
    await verifyDomain(admin, 'shop.agents-embed.example');
    const pending = await call('POST', '/v1/public-scheduling/domains', { key: admin.key, body: { domain: 'pending.agents-embed.example' } });
    expect(pending.status).toBe(201);
    await verifyDomain(other, 'other.agents-embed.example');
    clearFrameAncestorsCache();

    const page = await frameAncestorsFor(`/${s.alias}`, true);
    expect(page).toEqual({ domains: ['shop.agents-embed.example'], sources: ['https://shop.agents-embed.example:*'] });
    expect(await frameAncestorsFor(`/${s.alias.toUpperCase()}/intro`, false)).toEqual({
      domains: ['shop.agents-embed.example'],
      sources: ['https://shop.agents-embed.example:*', 'http://shop.agents-embed.example:*'],
    });
    expect((await frameAncestorsFor(`/${o.alias}/intro`, true))?.domains).toEqual(['other.agents-embed.example']);

    const { token } = await submitFirst(s, 'intro');
    expect((await frameAncestorsFor(`/public/booking-proposals/${token}`, true))?.domains).toEqual(['shop.agents-embed.example']);
    expect((await frameAncestorsFor(`/status/${token}`, true))?.domains).toEqual(['shop.agents-embed.example']);

    for (const p of ['/status/pt_not-a-real-token', '/no-such-link-here', '/dashboard', '/signin', '/', `/${s.alias}/llms.txt`]) expect(await frameAncestorsFor(p, true), p).toBeNull();
  });

  it('answers are cached per link and customer for a short while, then read again', async () => {
    const c = await newCustomer();
    const t = await publicOwner(c, { name: 'Cy Cache' });
    forbidden.add(c.customerId);
    clearFrameAncestorsCache();
    const t0 = Date.now();
    expect((await frameAncestorsFor(`/${t.alias}`, true, t0))?.domains).toEqual([]);
    let queries = 0;
    const counting = async () => {
      queries++;
      return getDb();
    };
    await verifyDomain(c, 'cache.agents-embed.example');
    // within the TTL: no query, the old answer
    expect((await frameAncestorsFor(`/${t.alias}/intro`, true, t0 + 1000, counting))?.domains).toEqual([]);
    expect(queries).toBe(0);
    // after it: read again
    expect((await frameAncestorsFor(`/${t.alias}`, true, t0 + CACHE_TTL_MS + 1, counting))?.domains).toEqual(['cache.agents-embed.example']);
    expect(queries).toBe(2);
    // a deleted link stops being framable once its entry lapses
    await (await getDb()).update(publicLinks).set({ deletedAt: new Date() }).where(and(eq(publicLinks.id, t.linkId)));
    expect(await frameAncestorsFor(`/${t.alias}`, true, t0 + 2 * CACHE_TTL_MS + 2)).toBeNull();
  });

  it('a failed look-up leaves the page unframable, and is not kept', async () => {
    clearFrameAncestorsCache();
    const failing = async () => {
      throw new Error('database down');
    };
    expect(await frameAncestorsFor(`/${s.alias}`, true, Date.now(), failing)).toBeNull();
    expect((await frameAncestorsFor(`/${s.alias}`, true))?.domains).toEqual(['shop.agents-embed.example']);
  });
});
