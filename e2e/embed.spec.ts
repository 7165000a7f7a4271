import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { expect, test, type APIRequestContext, type Page } from './test';
import { dashboardOwner, publicLink, verificationMail, type PublicLink } from './publicFixtures';
import { dashboardOwner as dashboardMember, expectAccessible as expectDashboardAccessible, signInWithPassword } from './dashboard';
import { baseUrls, databaseUrl, usesPostgres } from './servers';

/**
 * Issue 41 items 2 and 3 (docs/public-scheduling.md "Embedding", "For agents"): a page on the
 * customer's own site (a second loopback origin, `shop.localhost`, made a verified domain of the
 * link's customer) embeds the booking page with /embed.js; the frame is sized to its page; the
 * requester books in it, the email is confirmed, the meeting is booked and then cancelled in the
 * frame, and the host page receives `booking.proposed`, `booking.booked` and `booking.cancelled`
 * (a reference, no personal data). The same page on an origin that is not verified
 * (`other.localhost`) is refused by the browser. And the agents' side: llms.txt, its
 * `<link rel="alternate">`, and the JSON-LD of a type's page, over HTTP.
 */
const base = baseUrls[0];

/** An owner who may sign in, made admin (the public scheduling page needs it). */
async function adminDashboardOwner(request: APIRequestContext, label: string) {
  const owner = await dashboardMember(request, label);
  const sql = postgres(databaseUrl!, { max: 1 });
  await sql`update owners set role = 'admin' where email = ${owner.email}`;
  await sql.end();
  return owner;
}
const VERIFIED = 'shop.localhost';
const UNVERIFIED = 'other.localhost';

type Detail = { event: string; proposal_ref: string | null; link?: string; meeting_type?: string };

let link: PublicLink;
let host: http.Server;
let port: number;

test.describe('embedding a booking page on the customer site', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the verified domain is seeded in the database the server uses');

  test.beforeAll(async ({ request }) => {
    test.setTimeout(180_000);
    const owner = await dashboardOwner(request, 'embed');
    link = await publicLink(request, 'embed', owner);
    const headers = { Authorization: `Bearer ${link.key}` };
    // Booked as soon as the email is confirmed, so the frame sees the booking without the owner.
    const patched = await request.patch(`${base}/v1/public-scheduling/links/${link.linkId}/meeting-types/${link.slug}`, { headers, data: { book_instantly: true } });
    expect(patched.status(), await patched.text()).toBe(200);
    // The customer claims both names; only one is verified (seeded as verified, as the integration tests do).
    for (const domain of [VERIFIED, UNVERIFIED]) {
      const res = await request.post(`${base}/v1/public-scheduling/domains`, { headers, data: { domain } });
      expect(res.status(), await res.text()).toBe(201);
    }
    const sql = postgres(databaseUrl!, { max: 1 });
    await sql`update verified_domains set status = 'verified', verified_at = now()
              where domain = ${VERIFIED} and customer_id = (select customer_id from public_links where alias = ${link.alias})`;
    await sql.end();

    // The customer's site: one page with the inline snippet and the pop-up button, recording the events.
    host = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><title>Shop</title><h1>Our shop</h1>
<div id="inline" data-scheduler-embed="${base}/${link.alias}/${link.slug}" data-scheduler-title="Book a call"></div>
<button id="pop" data-scheduler-popup="${base}/${link.alias}" data-scheduler-title="Book from the pop-up">Book (pop-up)</button>
<script>window.__events = []; document.addEventListener('scheduler:event', function (e) { window.__events.push(e.detail); });</script>
<script src="${base}/embed.js" async></script>`);
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    port = (host.address() as AddressInfo).port;
  });
  test.afterAll(async () => {
    if (host) await new Promise((resolve) => host.close(resolve));
  });

  const events = (page: Page) => page.evaluate(() => (window as unknown as { __events: Detail[] }).__events);

  test("the page's policy names the verified domain only; other pages stay unframable", async ({ request }) => {
    for (const path of [`/${link.alias}`, `/${link.alias}/${link.slug}`]) {
      const res = await request.get(`${base}${path}`, { headers: { accept: 'text/html' } });
      const fa = /frame-ancestors ([^;]*)/.exec(res.headers()['content-security-policy'] ?? '')?.[1].split(' ');
      expect(fa, path).toEqual(["'self'", `https://${VERIFIED}:*`, `http://${VERIFIED}:*`]);
      expect(res.headers()['x-frame-options']).toBe('SAMEORIGIN');
    }
    const signin = await request.get(`${base}/signin`, { headers: { accept: 'text/html' } });
    expect(signin.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(signin.headers()['x-frame-options']).toBe('DENY');
  });

  test('on the verified domain: embedded, sized to its page, booked and cancelled in the frame, and the host hears each step', async ({ page, request }, info) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.goto(`http://${VERIFIED}:${port}/`);
    const iframe = page.locator('iframe[title="Book a call"]');
    const frame = page.frameLocator('iframe[title="Book a call"]');
    await expect(frame.getByRole('heading', { level: 1 })).toHaveText(link.typeTitle);
    // no header of ours inside the customer's page; the frame takes the page's height (not the snippet's 480 px)
    await expect(frame.locator('header')).toBeHidden();
    await expect.poll(async () => Math.abs((await iframe.evaluate((f: HTMLIFrameElement) => f.getBoundingClientRect().height)) - (await frame.locator('body').evaluate((b) => b.getBoundingClientRect().height)))).toBeLessThanOrEqual(2);
    expect(await iframe.evaluate((f: HTMLIFrameElement) => f.style.height)).not.toBe('480px');
    await page.screenshot({ path: info.outputPath('embed-host-page.png') });

    // a message that claims to be ours but comes from the host page itself is ignored by the snippet
    await page.evaluate(() => window.postMessage({ source: 'scheduler', type: 'scheduler:event', event: 'booking.booked', proposal_ref: null }, '*'));

    // book
    const email = `embed-${randomBytes(4).toString('hex')}@e2e.example`;
    await frame.locator('button[data-start]').first().click();
    await frame.getByLabel('Your name').fill('Emma Bedded');
    await frame.getByLabel('Your email').fill(email);
    await frame.getByRole('button', { name: 'Send request' }).click();
    await expect(frame.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    await expect.poll(() => events(page)).toHaveLength(1);
    const [proposed] = await events(page);
    expect(proposed).toEqual({ event: 'booking.proposed', proposal_ref: expect.stringMatching(/^pr_[0-9a-f]{32}$/), link: link.alias, meeting_type: link.slug });

    // the status page, in the frame; the requester confirms from the mail; the page sees the booking
    await frame.getByRole('link', { name: 'See the status of your request' }).click();
    await expect(frame.getByRole('heading', { name: 'Waiting for you to confirm your email' })).toBeVisible();
    const mail = await verificationMail(email);
    const confirmed = await request.post(mail.verify, { headers: { accept: 'application/json' } });
    expect(confirmed.status(), await confirmed.text()).toBe(200);
    await expect(frame.getByRole('heading', { name: 'Your meeting is booked' })).toBeVisible({ timeout: 20_000 });
    await expect.poll(() => events(page)).toHaveLength(2);

    // cancel in the frame
    await frame.getByRole('button', { name: 'Cancel this meeting' }).click();
    await frame.getByRole('button', { name: 'Yes, cancel the meeting' }).click();
    await expect(frame.getByRole('heading', { name: 'This meeting was cancelled' })).toBeVisible();
    await expect.poll(() => events(page)).toHaveLength(3);

    const all = await events(page);
    expect(all.map((e) => e.event)).toEqual(['booking.proposed', 'booking.booked', 'booking.cancelled']);
    expect(new Set(all.map((e) => e.proposal_ref))).toEqual(new Set([proposed.proposal_ref]));
    const said = JSON.stringify(all);
    for (const personal of [email, 'Emma', link.ownerEmail, link.ownerName]) expect(said).not.toContain(personal);
    expect(said).not.toMatch(/pt_|[0-9a-f]{8}-[0-9a-f]{4}-/);

    // the pop-up: a dialog with the link page
    await page.getByRole('button', { name: 'Book (pop-up)' }).click();
    const popup = page.frameLocator('dialog iframe[title="Book from the pop-up"]');
    await expect(popup.getByRole('heading', { name: 'Choose a meeting' })).toBeVisible();
  });

  test.describe('elsewhere', () => {
    // The refusal below is what this test provokes: Chromium logs it.
    test.use({ consoleErrorsAllowed: [/frame-ancestors|Refused to frame|X-Frame-Options/i] });

    test('the same page on an origin that is not verified is refused by the browser', async ({ page }) => {
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/frame-ancestors/i.test(m.text())) refused.push(m.text());
      });
      const target = `${base}/${link.alias}/${link.slug}`;
      const served = page.waitForResponse((r) => r.url() === target);
      await page.goto(`http://${UNVERIFIED}:${port}/`);
      expect((await served).status(), 'the page was served').toBe(200);
      await expect.poll(() => refused.length).toBeGreaterThan(0);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(frame?.url()).not.toBe(target);
      expect(await page.frameLocator('iframe[title="Book a call"]').getByRole('heading', { level: 1 }).count()).toBe(0);
      await page.waitForTimeout(500);
      expect(await events(page)).toEqual([]);
    });
  });
});

test('for agents: llms.txt in plain text, linked from the page; JSON-LD on a type page', async ({ request }) => {
  const owner = await dashboardOwner(request, 'agents');
  const l = await publicLink(request, 'agents', owner);
  const headers = { Authorization: `Bearer ${l.key}` };
  const hidden = await request.post(`${base}/v1/public-scheduling/links/${l.linkId}/meeting-types`, { headers, data: { slug: 'hidden-one', title: 'Hidden chat', duration_minutes: [15], meeting_class: 'external', visibility: 'unlisted' } });
  expect(hidden.status(), await hidden.text()).toBe(201);

  const html = await (await request.get(`${base}/${l.alias}`, { headers: { accept: 'text/html' } })).text();
  const alternate = /<link rel="alternate" type="text\/plain" href="([^"]+)"/.exec(html)?.[1];
  expect(alternate).toBe(`/${l.alias}/llms.txt`);
  const txt = await request.get(`${base}${alternate}`);
  expect(txt.status()).toBe(200);
  expect(txt.headers()['content-type']).toBe('text/plain; charset=utf-8');
  const text = await txt.text();
  expect(text).toContain(`Owner: ${l.ownerName}`);
  expect(text).toContain(`### ${l.typeTitle}`);
  expect(text).toContain(`${base}/public/schedules/${l.alias}/booking-proposals`);
  expect(text).toContain(`${base}/mcp`);
  expect(text).not.toContain('Hidden chat');
  expect(text).not.toContain(l.ownerEmail);

  const typePage = await (await request.get(`${base}/${l.alias}/${l.slug}`, { headers: { accept: 'text/html' } })).text();
  const ld = /<script type="application\/ld\+json" nonce="[^"]+">(.*?)<\/script>/.exec(typePage)?.[1];
  expect(ld, 'a JSON-LD block with the nonce').toBeTruthy();
  expect(JSON.parse(ld!)).toMatchObject({ '@type': 'Service', name: l.typeTitle, url: `${base}/${l.alias}/${l.slug}`, provider: { '@type': 'Person', name: l.ownerName } });
});

test('the dashboard offers the snippet on each link, inline and pop-up, naming the verified domains', async ({ page, request }, info) => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the owner is made an admin and the domain verified in the database');
  test.setTimeout(120_000);
  const owner = await adminDashboardOwner(request, 'embed-snip');
  const alias = `embed-snip-${randomBytes(3).toString('hex')}`;
  await owner.api('POST', '/v1/public-scheduling/links', { owner_email: owner.email, alias, title: 'Book time with Erin' });
  await owner.api('POST', '/v1/public-scheduling/domains', { domain: 'shop.example' });
  const sql = postgres(databaseUrl!, { max: 1 });
  await sql`update verified_domains set status = 'verified', verified_at = now() where domain = 'shop.example' and customer_id = (select customer_id from public_links where alias = ${alias})`;
  await sql.end();

  await page.setViewportSize({ width: 1280, height: 900 });
  await signInWithPassword(page, owner);
  await page.goto(`${owner.base}/dashboard/admin/public-scheduling`);
  const snippet = page.getByTestId(`embed-${alias}`);
  await snippet.getByText('Embed on your site').click();
  const code = snippet.getByTestId('embed-code');
  await expect(code).toHaveText(`<div data-scheduler-embed="${owner.base}/${alias}"></div>\n<script src="${owner.base}/embed.js" async></script>`);
  await expect(snippet).toContainText('Works on https://shop.example');
  await expectDashboardAccessible(page, 'the embed snippet');
  await snippet.screenshot({ path: info.outputPath('embed-snippet.png') });
  await snippet.getByLabel('Pop-up').check();
  await expect(code).toContainText(`<button type="button" data-scheduler-popup="${owner.base}/${alias}">Book a meeting</button>`);
});
