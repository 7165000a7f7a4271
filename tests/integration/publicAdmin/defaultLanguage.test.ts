import { beforeAll, describe, expect, it } from 'vitest';
import { NextRequest, NextResponse } from 'next/server';
import { eq } from 'drizzle-orm';
import { auditLog, publicLinks } from '@/db/schema';
import { getDb } from '@/server/db';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { clearFrameAncestorsCache, CACHE_TTL_MS, linkDefaultLanguageFor } from '@/server/http/frameAncestors';
import { applyRequesterLocale } from '@/i18n/proxyLocale';
import { LOCALE_HEADER } from '@/i18n/locales';
import { expectEnvelope, newAgent, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { call, freshIp, meetingType, ownerCaller, proposalRow, publicOwner, pubUrl, submitFirst, type PublicSetup } from '../public/fixtures';

/**
 * A link's default language (docs/public-scheduling.md "Languages"): set over the API and the
 * dashboard's tRPC, audited, and weighed by the requester pages after the request's own choice
 * (`?lang=`, the switcher's cookie, Accept-Language) and before English.
 */
let admin: TestCustomer;
let ada: PublicSetup;
beforeAll(async () => {
  admin = await newCustomer();
  ada = await publicOwner(admin, { name: 'Ada Sprache' });
  await meetingType(ada, { slug: 'intro' });
});

const L = '/v1/public-scheduling/links';
const patch = (linkId: string, body: Record<string, unknown>, key = admin.key) => call('PATCH', `${L}/${linkId}`, { key, body });

/** What proxy.ts decides for a page: the locale handed to the page. */
async function pageLocale(path: string, headers: Record<string, string> = {}) {
  const req = new NextRequest(new URL(path, 'http://scheduler.test'), { headers });
  const forward = new Headers(req.headers);
  applyRequesterLocale(req, forward, await linkDefaultLanguageFor(req.nextUrl.pathname), false)(NextResponse.next());
  return forward.get(LOCALE_HEADER);
}

describe('a link\'s default language over REST', () => {
  it('create, get, list and patch carry default_language; null clears it; other edits keep it; each change is audited', async () => {
    const alias = `sprache-${ada.alias.slice(-8)}`;
    const created = await call('POST', L, { key: admin.key, body: { owner_email: ada.ownerEmail, alias, default_language: 'de' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.default_language).toBe('de');
    const id = created.body.link_id as string;
    expect((await call('GET', `${L}/${id}`, { key: admin.key })).body.default_language).toBe('de');
    const list = await call('GET', `${L}?owner_email=${encodeURIComponent(ada.ownerEmail)}`, { key: admin.key });
    expect(list.body.links.find((l: { link_id: string }) => l.link_id === id).default_language).toBe('de');
    // a link made without one has none
    expect((await call('GET', `${L}/${ada.linkId}`, { key: admin.key })).body.default_language).toBeNull();

    expect((await patch(id, { default_language: 'pt-BR' })).body.default_language).toBe('pt-BR');
    expect((await patch(id, { title: 'Olá' })).body).toMatchObject({ title: 'Olá', default_language: 'pt-BR' });
    expect((await patch(id, { default_language: null })).body.default_language).toBeNull();

    const db = await getDb();
    const rows = await db.select().from(auditLog).where(eq(auditLog.customerId, admin.customerId));
    const languages = rows
      .filter((r) => (r.details as { link_id?: string }).link_id === id)
      .map((r) => [r.action, (r.details as { default_language?: string | null }).default_language]);
    expect(languages).toEqual(
      expect.arrayContaining([
        ['public_link.create', 'de'],
        ['public_link.update', 'pt-BR'],
        ['public_link.update', null],
      ]),
    );
  });

  it('refuses a language the pages do not speak (400 invalid_request naming the field), on create and patch', async () => {
    for (const bad of ['ko', 'pt', 'DE', '', 7]) {
      const res = expectEnvelope(await patch(ada.linkId, { default_language: bad }), 400, 'invalid_request');
      expect(JSON.stringify(res.details)).toContain('body.default_language');
    }
    expectEnvelope(await call('POST', L, { key: admin.key, body: { owner_email: ada.ownerEmail, alias: `bad-${ada.alias.slice(-8)}`, default_language: 'zh-TW' } }), 400, 'invalid_request');
  });

  it("a user-scoped agent sets its own owner's links only", async () => {
    const other = await publicOwner(admin, { name: 'Bo Other' });
    const scoped = await newAgent(admin, ['manage_public_scheduling'], `user:${other.ownerEmail}`);
    expectEnvelope(await patch(ada.linkId, { default_language: 'fr' }, scoped.key), 403, 'owner_scope_denied');
    expect((await patch(other.linkId, { default_language: 'fr' }, scoped.key)).body.default_language).toBe('fr');
  });
});

describe("the dashboard's tRPC", () => {
  it('creates a link with a default language and updates it, with the same checks', async () => {
    const caller = await ownerCaller(ada, 'admin');
    const made = await caller.admin.publicScheduling.links.create({ owner_email: ada.ownerEmail, alias: `trpc-${ada.alias.slice(-8)}`, default_language: 'ja' });
    expect(made.default_language).toBe('ja');
    expect((await caller.admin.publicScheduling.links.update({ link_id: made.link_id, patch: { default_language: 'ar' } })).default_language).toBe('ar');
    const listed = (await caller.admin.publicScheduling.links.list()).links.find((l) => l.link_id === made.link_id);
    expect(listed?.default_language).toBe('ar');
    // @ts-expect-error -- not a language of the pages
    await expect(caller.admin.publicScheduling.links.update({ link_id: made.link_id, patch: { default_language: 'ko' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('the requester pages weigh it after the request\'s own choice', () => {
  let token: string;
  beforeAll(async () => {
    expect((await patch(ada.linkId, { default_language: 'de' })).status).toBe(200);
    token = (await submitFirst(ada, 'intro')).token;
    clearFrameAncestorsCache();
  });

  it('booking and status pages: ?lang=, the cookie and a supported Accept-Language win; then the link\'s default; other pages stay English', async () => {
    expect(await pageLocale(`/${ada.alias}`, { 'accept-language': 'ko' })).toBe('de');
    expect(await pageLocale(`/${ada.alias.toUpperCase()}/intro`)).toBe('de');
    expect(await pageLocale(`/status/${token}`, { 'accept-language': 'ko-KR,ko;q=0.9' })).toBe('de');
    expect(await pageLocale(`/public/booking-proposals/${token}`)).toBe('de');
    expect(await pageLocale(`/${ada.alias}`, { 'accept-language': 'en-US,en;q=0.9' })).toBe('en');
    expect(await pageLocale(`/${ada.alias}`, { 'accept-language': 'ko', cookie: 'requester_lang=fr' })).toBe('fr');
    expect(await pageLocale(`/${ada.alias}?lang=ja`, { 'accept-language': 'ko' })).toBe('ja');
    expect(await pageLocale('/no-such-link-anywhere', { 'accept-language': 'ko' })).toBe('en');
    expect(await pageLocale('/dashboard', { 'accept-language': 'ko' })).toBeNull();
  });

  it('reads the link through the cached look-up: no query within the TTL, the new default after it; a failure means English', async () => {
    clearFrameAncestorsCache();
    const t0 = Date.now();
    expect(await linkDefaultLanguageFor(`/${ada.alias}`, t0)).toBe('de');
    let queries = 0;
    const counting = async () => {
      queries++;
      return getDb();
    };
    await (await getDb()).update(publicLinks).set({ defaultLanguage: 'it' }).where(eq(publicLinks.id, ada.linkId));
    expect(await linkDefaultLanguageFor(`/${ada.alias}/intro`, t0 + 1000, counting)).toBe('de');
    expect(queries).toBe(0);
    expect(await linkDefaultLanguageFor(`/${ada.alias}`, t0 + CACHE_TTL_MS + 1, counting)).toBe('it');
    expect(queries).toBe(1);
    clearFrameAncestorsCache();
    const failing = async () => {
      throw new Error('database down');
    };
    expect(await linkDefaultLanguageFor(`/${ada.alias}`, Date.now(), failing)).toBeNull();
    expect(await linkDefaultLanguageFor('/signin', Date.now(), failing)).toBeNull();
    await patch(ada.linkId, { default_language: 'de' });
    clearFrameAncestorsCache();
  });

  it('a submission through the pages records the language they showed; the verification page speaks it too', async () => {
    const headers = new Headers({ 'x-forwarded-for': freshIp(), host: 'scheduler.test', 'accept-language': 'ko' });
    const req = new Request('http://scheduler.test/api/trpc', { headers });
    const requester = createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db: await getDb(), now: () => new Date() }).requester;
    const out = await requester.submit({ link: ada.alias, requester_contact: { email: uniqueEmail('sprache') }, attendees: [], message: 'Hallo' });
    expect((await proposalRow(out.status_url.split('/').pop()!)).requesterLocale).toBe('de');

    const created = await submitFirst(ada, 'intro');
    const page = await pubUrl('GET', created.contact_verification_url!, { headers: { 'accept-language': 'ko' } });
    expect(page.text).toContain('<html lang="de" dir="ltr">');
    expect(page.headers.get('content-language')).toBe('de');
    const english = await pubUrl('GET', created.contact_verification_url!, { headers: { 'accept-language': 'en' } });
    expect(english.text).toContain('<html lang="en"');
  });
});
