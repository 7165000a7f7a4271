import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { publicLinks } from '@/db/schema';
import { getDb } from '@/server/db';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { expectEnvelope, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, freshIp, meetingType, ownerCaller, publicOwner, type PublicSetup } from '../public/fixtures';

/**
 * Away redirects (docs/public-scheduling.md "Away: sending requesters to a colleague"): set over the
 * API and the dashboard's tRPC, refused when they would not lead to a colleague or would loop, and
 * followed by the booking pages only while the owner is out of office.
 */
const TZ = 'Europe/Berlin';
// Two adjacent out-of-office ranges: one absence, Monday 3 to Friday 7 March 2031 (Berlin dates).
const AWAY = [
  { start: '2031-03-03', end: '2031-03-05' },
  { start: '2031-03-06', end: '2031-03-07' },
];
const DURING = new Date('2031-03-04T10:00:00Z');
const BEFORE = new Date('2031-03-02T10:00:00Z');
const BACK = new Date('2031-03-07T23:00:00Z'); // midnight of Saturday 8 March in Berlin

let admin: TestCustomer;
let ada: PublicSetup;
let bo: PublicSetup;
let cy: PublicSetup;
let adaSecond: PublicSetup['linkId'];
beforeAll(async () => {
  admin = await newCustomer();
  ada = await publicOwner(admin, { timeZone: TZ, name: 'Ada Away' });
  bo = await publicOwner(admin, { timeZone: TZ, name: 'Bo Colleague' });
  cy = await publicOwner(admin, { timeZone: TZ, name: 'Cy Third' });
  const r = [{ start: '09:00', end: '17:00' }];
  const put = await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: ada.ownerEmail, time_zone: TZ, working_hours: { mon: r, tue: r, wed: r, thu: r, fri: r }, out_of_office: AWAY } });
  expect(put.status, put.text).toBe(200);
  await meetingType(ada, { slug: 'intro' });
  const second = await call('POST', '/v1/public-scheduling/links', { key: admin.key, body: { owner_email: ada.ownerEmail, alias: `ada2-${ada.alias.slice(-8)}` } });
  expect(second.status, second.text).toBe(201);
  adaSecond = second.body.link_id;
});

const patch = (s: PublicSetup, away: string | null, key = admin.key) => call('PATCH', `/v1/public-scheduling/links/${s.linkId}`, { key, body: { away_redirect_link_id: away } });

/** A requester's page calls at a fixed clock. */
async function requester(now: Date) {
  const headers = new Headers({ 'x-forwarded-for': freshIp(), host: 'scheduler.test' });
  const req = new Request('http://scheduler.test/api/trpc', { headers });
  return createCallerFactory(appRouter)({ req, headers, owner: null, resHeaders: new Headers(), db: await getDb(), now: () => now }).requester;
}

describe('setting an away redirect', () => {
  it('PATCH sets and clears it; GET and the list show it; the change is audited', async () => {
    const set = await patch(ada, bo.linkId);
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ link_id: ada.linkId, away_redirect_link_id: bo.linkId });
    expect((await call('GET', `/v1/public-scheduling/links/${ada.linkId}`, { key: admin.key })).body.away_redirect_link_id).toBe(bo.linkId);
    // a change of the title keeps it
    expect((await call('PATCH', `/v1/public-scheduling/links/${ada.linkId}`, { key: admin.key, body: { title: 'Ada' } })).body.away_redirect_link_id).toBe(bo.linkId);
    const audit = await call('GET', `/v1/audit-log?owner_email=${encodeURIComponent(ada.ownerEmail)}&limit=50`, { key: admin.key });
    expect(JSON.stringify(audit.body)).toContain(bo.linkId);
    const cleared = await patch(ada, null);
    expect(cleared.body.away_redirect_link_id).toBeNull();
    expect((await call('GET', `/v1/public-scheduling/links/${bo.linkId}`, { key: admin.key })).body.away_redirect_link_id).toBeNull();
  });

  it("refuses a link that is not a colleague's, an unknown one, and one that would loop", async () => {
    const field = (res: Awaited<ReturnType<typeof patch>>) => {
      expectEnvelope(res, 400, 'invalid_request');
      return JSON.stringify(res.body.error.details.fields);
    };
    expect(field(await patch(ada, ada.linkId))).toContain('body.away_redirect_link_id');
    expect(field(await patch(ada, adaSecond))).toContain("another owner's link");
    expect(field(await patch(ada, '00000000-0000-4000-8000-000000000000'))).toContain('no live link');
    const stranger = await publicOwner(await newCustomer());
    expect(field(await patch(ada, stranger.linkId))).toContain('no live link');
    // a -> b, then b -> a would loop; so would c -> a with b -> c
    expect((await patch(ada, bo.linkId)).status).toBe(200);
    expect(field(await patch(bo, ada.linkId))).toContain('would loop');
    expect((await patch(cy, ada.linkId)).status).toBe(200);
    expect(field(await patch(bo, cy.linkId))).toContain('would loop');
    // a chain without a loop is fine: b -> c while a -> b and c -> a is cleared
    expect((await patch(cy, null)).status).toBe(200);
    expect((await patch(bo, cy.linkId)).status).toBe(200);
    for (const s of [ada, bo, cy]) expect((await patch(s, null)).status).toBe(200);
  });

  it("a user-scoped agent sets its own owner's link only", async () => {
    const scoped = await newAgent(admin, ['manage_public_scheduling'], `user:${bo.ownerEmail}`);
    expectEnvelope(await patch(ada, bo.linkId, scoped.key), 403, 'owner_scope_denied');
    const own = await patch(bo, cy.linkId, scoped.key);
    expect(own.status, own.text).toBe(200);
    expect((await patch(bo, null, scoped.key)).status).toBe(200);
  });

  it("the dashboard's tRPC sets it with the same checks", async () => {
    const caller = await ownerCaller(ada, 'admin');
    const set = await caller.admin.publicScheduling.links.update({ link_id: ada.linkId, patch: { away_redirect_link_id: bo.linkId } });
    expect(set.away_redirect_link_id).toBe(bo.linkId);
    const listed = await caller.admin.publicScheduling.links.list();
    expect(listed.links.find((l) => l.link_id === ada.linkId)?.away_redirect_link_id).toBe(bo.linkId);
    await expect(caller.admin.publicScheduling.links.update({ link_id: ada.linkId, patch: { away_redirect_link_id: adaSecond } })).rejects.toMatchObject({ cause: { code: 'invalid_request' } });
    await expect((await ownerCaller(ada, 'member')).admin.publicScheduling.links.update({ link_id: ada.linkId, patch: { away_redirect_link_id: null } })).rejects.toThrow();
    expect((await patch(ada, null)).status).toBe(200);
  });
});

describe('the booking pages while the owner is away', () => {
  it('send requesters to the colleague only during the absence, with who is away and until when', async () => {
    expect((await patch(ada, bo.linkId)).status).toBe(200);
    // before and after the absence: Ada's own page
    for (const now of [BEFORE, BACK]) {
      expect((await (await requester(now)).schedule({ link: ada.alias })).redirect_to).toBeNull();
      expect((await (await requester(now)).meetingType({ link: ada.alias, slug: 'intro' })).redirect_to).toBeUndefined();
    }
    const during = await requester(DURING);
    expect((await during.schedule({ link: ada.alias })).redirect_to).toBe(bo.alias);
    const typePage = await during.meetingType({ link: ada.alias, slug: 'intro', suggested_times: true });
    expect(typePage).toMatchObject({ redirect_to: bo.alias });
    expect(typePage.suggested_times).toBeUndefined();
    // the colleague's page, arrived at from Ada's: the note (display name, never the email)
    const there = await during.schedule({ link: bo.alias, away_from: ada.alias });
    expect(there).toMatchObject({ redirect_to: null, owner_name: 'Bo Colleague', away_note: { owner_name: 'Ada Away', away_until: '2031-03-07', back_at: BACK.toISOString() } });
    expect(JSON.stringify(there)).not.toContain(ada.ownerEmail);
    // a made-up away_from, or one that does not send here, shows nothing
    expect((await during.schedule({ link: bo.alias, away_from: cy.alias })).away_note).toBeNull();
    expect((await (await requester(BEFORE)).schedule({ link: bo.alias, away_from: ada.alias })).away_note).toBeNull();
    expect((await during.schedule({ link: bo.alias })).away_note).toBeNull();
  });

  it('follows a colleague who is away too, never round a loop, and ignores a deleted target', async () => {
    const db = await getDb();
    const r = [{ start: '09:00', end: '17:00' }];
    const put = await call('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: bo.ownerEmail, time_zone: TZ, working_hours: { mon: r, tue: r, wed: r, thu: r, fri: r }, out_of_office: [{ start: '2031-03-04', end: '2031-03-04' }] } });
    expect(put.status, put.text).toBe(200);
    expect((await patch(ada, bo.linkId)).status).toBe(200);
    expect((await patch(bo, cy.linkId)).status).toBe(200);
    const during = await requester(DURING);
    expect((await during.schedule({ link: ada.alias })).redirect_to).toBe(cy.alias);
    expect((await during.schedule({ link: cy.alias, away_from: ada.alias })).away_note).toMatchObject({ owner_name: 'Ada Away' });
    // a loop written past the check (two concurrent changes): the walk stops at the last link not yet passed
    await db.update(publicLinks).set({ awayRedirectLinkId: ada.linkId }).where(eq(publicLinks.id, bo.linkId));
    expect((await during.schedule({ link: ada.alias })).redirect_to).toBe(bo.alias);
    expect((await during.schedule({ link: bo.alias })).redirect_to).toBe(ada.alias);
    // a deleted colleague's link: the requester stays
    expect((await patch(bo, null)).status).toBe(200);
    expect((await call('DELETE', `/v1/public-scheduling/links/${bo.linkId}`, { key: admin.key })).status).toBe(200);
    expect((await during.schedule({ link: ada.alias })).redirect_to).toBeNull();
  });
});
