import { randomBytes } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, type APIRequestContext, type Browser, type BrowserContext, type Locator, type Page, type TestInfo } from './test';
import { bootstrapKey } from './bootstrapKey';
import { claimJourneyCustomer } from './journeyPool';
import { linksIn, waitForMail } from './mailbox';
import { baseUrls, databaseUrl, PROJECT_ROOT } from './servers';

const run = promisify(execFile);

/** What the public booking pages' journeys set up through the REST API. */
export type PublicLink = { key: string; ownerEmail: string; ownerName: string; alias: string; slug: string; typeTitle: string; linkId: string };

const WORKING = [{ start: '07:00', end: '21:00' }];

/**
 * A calendar owner (Europe/Berlin, every day 07:00-21:00, so suggestions
 * exist whenever the suite runs) with a public link and one meeting type
 * (30 or 60 minutes, up to 3 people).
 */
export async function publicLink(request: APIRequestContext, label: string, existing?: DashboardOwner): Promise<PublicLink> {
  const suffix = randomBytes(4).toString('hex');
  const api_key = existing?.key ?? (await bootstrapKey(`E2E public ${label} ${suffix}`)).api_key;
  const headers = { Authorization: `Bearer ${api_key}` };
  const base = baseUrls[0];
  const ownerEmail = existing?.ownerEmail ?? `pub-owner-${suffix}@e2e.example`;
  const ownerName = existing?.ownerName ?? 'Ada Lovelace';
  const post = async (path: string, data: unknown, ok = [201]) => {
    const res = await request.post(`${base}${path}`, { headers, data });
    expect(ok, `${path}: ${await res.text()}`).toContain(res.status());
    return res.json();
  };
  if (!existing) {
    await post('/v1/owners', { email: ownerEmail, name: ownerName, time_zone: 'Europe/Berlin' });
    const rules = await request.put(`${base}/v1/schedule-rules`, {
      headers,
      data: { owner_email: ownerEmail, working_hours: { mon: WORKING, tue: WORKING, wed: WORKING, thu: WORKING, fri: WORKING, sat: WORKING, sun: WORKING }, hard_blocks: [] },
    });
    expect(rules.status(), await rules.text()).toBe(200);
  }
  await post('/v1/meeting-classes', { name: 'external', priority: 50 }, existing ? [201, 409] : [201]); // an owner's customer may have it already
  const alias = `e2e-${label}-${suffix}`;
  const link = await post('/v1/public-scheduling/links', { owner_email: ownerEmail, alias, title: 'Book time with Ada' });
  const slug = 'intro';
  await post(`/v1/public-scheduling/links/${link.link_id}/meeting-types`, { slug, title: 'Intro call', duration_minutes: [30, 60], meeting_class: 'external', attendee_limit: 3 });
  return { key: api_key, ownerEmail, ownerName, alias, slug, typeTitle: 'Intro call', linkId: link.link_id };
}

/** An owner who may sign in to the dashboard (has a password), with an admin key of their customer. */
export type DashboardOwner = { key: string; ownerEmail: string; ownerName: string };

/**
 * A new customer whose owner (every day 07:00-21:00) may sign in. PostgreSQL: minted with the
 * CLI, which also sets the password. Embedded database (the CLI cannot open it while the server
 * runs): one of the customers made before the server started, its owner's password already set
 * (e2e/journeyPool.ts).
 */
export async function dashboardOwner(request: APIRequestContext, label: string): Promise<DashboardOwner> {
  const claimed = databaseUrl ? null : claimJourneyCustomer();
  const suffix = randomBytes(4).toString('hex');
  const api_key = claimed?.api_key ?? (await bootstrapKey(`E2E owner ${label} ${suffix}`)).api_key;
  const ownerEmail = claimed?.owner_email ?? `dash-owner-${suffix}@e2e.example`;
  const ownerName = claimed?.owner_name ?? 'Ada Lovelace';
  const headers = { Authorization: `Bearer ${api_key}` };
  if (!claimed) expect((await request.post(`${baseUrls[0]}/v1/owners`, { headers, data: { email: ownerEmail, name: ownerName, time_zone: 'Europe/Berlin' } })).status()).toBe(201);
  const rules = await request.put(`${baseUrls[0]}/v1/schedule-rules`, {
    headers,
    data: { owner_email: ownerEmail, working_hours: { mon: WORKING, tue: WORKING, wed: WORKING, thu: WORKING, fri: WORKING, sat: WORKING, sun: WORKING }, hard_blocks: [] },
  });
  expect(rules.status(), await rules.text()).toBe(200);
  if (!claimed) {
    await run('npm', ['run', '-s', 'cli', '--', 'set-password', '--email', ownerEmail, '--password', `pw-${suffix}-${randomBytes(6).toString('hex')}`], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PGLITE_DIR: '', DB_DRIVER: '' },
      timeout: 90_000,
    });
  }
  return { key: api_key, ownerEmail, ownerName };
}

/** A browser context signed in as `email` through the emailed sign-in link (Auth.js email provider, real SMTP). */
export async function ownerSignedIn(browser: Browser, email: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: baseUrls[0] });
  const since = Date.now();
  const { csrfToken } = await (await context.request.get('/api/auth/csrf')).json();
  const asked = await context.request.post('/api/auth/signin/email', { form: { email, csrfToken, callbackUrl: '/dashboard', json: 'true' } });
  expect(asked.ok(), await asked.text()).toBe(true);
  // the sign-in mail, not the owner's other mail ("New meeting request from ...")
  const mail = await waitForMail(email, { after: since - 1000, subject: /sign-in link/i });
  const link = linksIn(mail).find((l) => l.includes('/api/auth/callback/email'));
  expect(link, mail.text).toBeTruthy();
  await context.request.get(link!);
  const me = await context.request.get('/api/trpc/session.me');
  expect(me.status(), await me.text()).toBe(200);
  return context;
}

/** A structured proposal for the `nth` suggested time, its email confirmed; answers status_url and the requester's email. */
export async function verifiedProposal(request: APIRequestContext, link: PublicLink, nth: number): Promise<{ statusUrl: string; email: string; slot: { start: string; end: string } }> {
  const base = baseUrls[0];
  const times = await (await request.get(`${base}/public/schedules/${link.alias}/meeting-types/${link.slug}/suggested-times?duration_minutes=30`)).json();
  const slot = times.suggested_times[nth];
  expect(slot, JSON.stringify(times)).toBeTruthy();
  const email = `req-${randomBytes(4).toString('hex')}@e2e.example`;
  const res = await request.post(`${base}/public/schedules/${link.alias}/booking-proposals`, {
    data: { requester_contact: { email, name: 'Rhea' }, attendees: [], public_meeting_type: link.slug, duration_minutes: 30, requested_window: slot },
  });
  expect(res.status(), await res.text()).toBe(201);
  const mail = await verificationMail(email);
  const confirmed = await request.post(mail.verify, { headers: { accept: 'application/json' } });
  expect(confirmed.status(), await confirmed.text()).toBe(200);
  return { statusUrl: (await res.json()).status_url, email, slot };
}

/** The verification link and the status link of the mail a submission sent to `email`. */
export async function verificationMail(email: string): Promise<{ verify: string; status: string; text: string }> {
  const mail = await waitForMail(email);
  const links = linksIn(mail);
  const verify = links.find((l) => l.includes('/public/contact-verifications/'));
  const status = links.find((l) => l.includes('/public/booking-proposals/'));
  expect(verify, mail.text).toBeTruthy();
  expect(status, mail.text).toBeTruthy();
  return { verify: verify!, status: status!, text: mail.text };
}

/** No serious or critical accessibility violation on the page as it is now. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${what}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
// Not preceded by a letter: the framework's own `fetchPriority` is no leak.
const PRIVATE_WORDS = /(?<![a-z])(working_hours|hard_blocks|max_daily|priority|preempt|owner_email|owner_id|customer_id|link_id|proposal_id|booking_id|meeting_class|free_busy|freebusy|free\/busy)/i;

/**
 * Nothing private in the HTML a requester receives: the server's HTML for
 * `url` (with its React payload) and the page as rendered now. No internal id
 * (any UUID), the owner's email, owner-rule or free/busy words.
 */
export async function expectNoLeaks(page: Page, link: PublicLink, url: string): Promise<void> {
  const served = await page.request.get(url, { headers: { accept: 'text/html' } });
  expect(served.headers()['content-type']).toContain('text/html');
  for (const [where, html] of [
    [`served ${url}`, await served.text()],
    [`rendered ${page.url()}`, await page.content()],
  ]) {
    expect(UUID.exec(html)?.[0], `${where}: an internal id`).toBeUndefined();
    expect(html.toLowerCase().includes(link.ownerEmail), `${where}: the owner's email`).toBe(false);
    expect(PRIVATE_WORDS.exec(html)?.[0], `${where}: a private word`).toBeUndefined();
  }
}

/** Press Tab until `target` has focus (proves it is reachable by keyboard), at most `max` times. */
export async function tabTo(page: Page, target: Locator, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`could not reach ${target} with Tab`);
}

export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
}

/** The local wall-clock label the page should show for `iso` in `timeZone` (same Intl call as the page). */
export function timeLabel(iso: string, timeZone: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { timeZone, hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
}

/** A meeting type only an audience sees, and an rc_ credential of one of its members. */
export async function audienceType(request: APIRequestContext, link: PublicLink): Promise<{ title: string; credential: string }> {
  const suffix = randomBytes(4).toString('hex');
  const headers = { Authorization: `Bearer ${link.key}` };
  const post = async (path: string, data: unknown) => {
    const res = await request.post(`${baseUrls[0]}${path}`, { headers, data });
    expect(res.status(), `${path}: ${await res.text()}`).toBe(201);
    return res.json();
  };
  const member = `insider-${suffix}@partner.example`;
  await post('/v1/public-scheduling/audiences', { name: `insiders-${suffix}`, members: [{ email: member }] });
  const title = 'Partner review';
  await post(`/v1/public-scheduling/links/${link.linkId}/meeting-types`, { slug: `partners-${suffix}`, title, duration_minutes: [45], meeting_class: 'external', visibility: 'audience', audience: `insiders-${suffix}` });
  const identity = await post('/v1/public-scheduling/requester-identities', { email: member });
  const cred = await post(`/v1/public-scheduling/requester-identities/${identity.identity_id}/credentials`, {});
  return { title, credential: cred.requester_credential };
}
