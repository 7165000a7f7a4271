import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { expect, test } from './test';
import postgres from 'postgres';
import { bootstrapKey } from './bootstrapKey';
import { base, expectAccessible, rest, screenshots, setPassword, signIn } from './console';
import { linksIn, waitForMail } from './mailbox';
import { verifiedProposal, type PublicLink } from './publicFixtures';
import { databaseUrl, usesPostgres } from './servers';

/**
 * The administration console, second part (docs/dashboard.md): inviting an
 * owner by email, editing a meeting type after creation, allocation usage,
 * and an agent's webhooks. One customer; its admin owns the public link.
 */
type Who = { email: string; password: string };
let key: string;
let admin: Who;
let suffix: string;
const WORKING = [{ start: '07:00', end: '21:00' }];

test.describe('administration console: invitations, meeting types, allocations, webhooks', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets passwords on the database the server uses');
  test.describe.configure({ mode: 'serial' });

  test.beforeAll(async ({ request }) => {
    suffix = randomBytes(4).toString('hex');
    key = (await bootstrapKey(`E2E console extras ${suffix}`)).api_key;
    admin = { email: `extras-admin-${suffix}@e2e.example`, password: `pw-${randomBytes(9).toString('base64url')}` };
    const auth = { Authorization: `Bearer ${key}` };
    expect((await request.post(`${base}/v1/owners`, { headers: auth, data: { email: admin.email, name: 'Ada Admin', time_zone: 'Europe/Berlin' } })).status()).toBe(201);
    await setPassword(admin.email, admin.password);
    const sql = postgres(databaseUrl!, { max: 1 });
    await sql`update owners set role = 'admin' where email = ${admin.email}`;
    await sql.end();
    const rules = await request.put(`${base}/v1/schedule-rules`, {
      headers: auth,
      data: { owner_email: admin.email, working_hours: { mon: WORKING, tue: WORKING, wed: WORKING, thu: WORKING, fri: WORKING, sat: WORKING, sun: WORKING }, hard_blocks: [] },
    });
    expect(rules.status(), await rules.text()).toBe(200);
    for (const c of [
      { name: 'customer', priority: 60 },
      { name: 'guarded', priority: 40, preempt_policy: 'never' },
    ]) {
      expect((await request.post(`${base}/v1/meeting-classes`, { headers: auth, data: c })).status()).toBe(201);
    }
  });

  test('a new owner starts in the admin\'s browser zone with Mon-Fri 09:00-17:00, which the form can change (issue 45 item 1)', async ({ browser, request }) => {
    const context = await browser.newContext({ timezoneId: 'America/Chicago' });
    const page = await context.newPage();
    await signIn(page, admin);
    await page.goto(`${base}/dashboard/admin/owners`);
    await expect(page.getByLabel('Time zone')).toHaveValue('America/Chicago');
    await expect(page.getByLabel('Monday to Friday')).toBeChecked();
    await expect(page.getByLabel('Working from')).toHaveValue('09:00');
    await page.getByLabel('Working until').fill('08:00');
    const email = `hours-${suffix}@e2e.example`;
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Email an invitation').uncheck();
    await page.getByRole('button', { name: 'Add owner' }).click();
    await expect(page.getByText('must be after the start')).toBeVisible();
    await page.getByLabel('Working until').fill('16:30');
    await page.getByRole('button', { name: 'Add owner' }).click();
    await expect(page.getByTestId(`owner-${email}`)).toContainText('America/Chicago');
    const rules = await request.get(`${base}/v1/schedule-rules?owner_email=${encodeURIComponent(email)}`, { headers: { Authorization: `Bearer ${key}` } });
    expect(rules.status(), await rules.text()).toBe(200);
    const body = await rules.json();
    const day = [{ start: '09:00', end: '16:30' }];
    expect(body).toMatchObject({ time_zone: 'America/Chicago', working_hours: { mon: day, tue: day, wed: day, thu: day, fri: day } });
    expect(body.working_hours.sat ?? []).toEqual([]);
    await context.close();
  });

  test('an admin invites an owner; the mail arrives and its link signs the new owner in as a member, once', async ({ page, browser }) => {
    await signIn(page, admin);
    await page.goto(`${base}/dashboard/admin/owners`);
    const invited = `invited-${suffix}@e2e.example`;
    await page.getByLabel('Email', { exact: true }).fill(invited);
    await page.getByLabel('Name (optional)').fill('Ivy Invited');
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await expect(page.getByLabel('Email an invitation')).toBeChecked();
    const since = Date.now();
    await page.getByRole('button', { name: 'Add and invite' }).click();
    await expect(page.getByTestId('invitation-sent')).toContainText(`Invitation sent to ${invited}`);
    const row = page.getByTestId(`owner-${invited}`);
    await expect(row).toContainText(/invited \d{1,2} \w{3} \d{4}/);
    await expect(row.getByRole('button', { name: `Re-send invitation to ${invited}` })).toBeVisible();
    // The same rule as POST /v1/owners, inline under Email.
    await page.getByLabel('Email', { exact: true }).fill(invited);
    await page.getByLabel('Time zone').fill('UTC');
    await page.getByRole('button', { name: 'Add and invite' }).click();
    await expect(page.getByText(`A calendar owner with email ${invited} already exists`)).toBeVisible();
    await screenshots(page, 'owners-invite');

    const mail = await waitForMail(invited, { subject: /invited/i, after: since - 1000 });
    expect(mail.text).toContain(admin.email);
    const link = linksIn(mail).find((l) => l.includes('/api/auth/callback/email'));
    expect(link, mail.text).toBeTruthy();

    // The new owner, in a browser of their own, opens the link and lands signed in on the dashboard.
    const theirs = await browser.newContext();
    const p2 = await theirs.newPage();
    await p2.goto(link!);
    await expect(p2).toHaveURL(/\/dashboard$/);
    await expect(p2.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
    const me = await (await p2.request.get(`${base}/api/trpc/session.me`)).json();
    expect(me.result.data).toEqual({ owner_email: invited, role: 'member' });
    await expect(p2.getByRole('link', { name: 'Admin' })).toHaveCount(0);
    await p2.screenshot({ path: test.info().outputPath('invited-owner-inbox.png'), fullPage: true });
    // The link works once.
    await p2.getByRole('button', { name: 'Sign out' }).click();
    await expect(p2).toHaveURL(/\/signin/);
    await p2.goto(link!);
    await expect(p2).toHaveURL(/\/signin\?error=Verification/);
    await theirs.close();

    // Re-sending mails a fresh link.
    const again = Date.now();
    await row.getByRole('button', { name: `Re-send invitation to ${invited}` }).click();
    await expect(page.getByTestId('invitation-sent')).toBeVisible();
    const second = await waitForMail(invited, { subject: /invited/i, after: again - 500 });
    expect(linksIn(second).find((l) => l.includes('/api/auth/callback/email'))).not.toBe(link);
  });

  test('an admin sees an allocation fill up, edits a meeting type and sees it on the public page; an invalid preempt policy shows inline', async ({ page }) => {
    const alias = `extras-${suffix}`;
    const created = await rest(page, key, 'post', '/v1/public-scheduling/links', { owner_email: admin.email, alias, title: 'Book time with Ada' });
    expect(created.status(), await created.text()).toBe(201);
    const linkId = (await created.json()).link_id as string;
    const type = await rest(page, key, 'post', `/v1/public-scheduling/links/${linkId}/meeting-types`, { slug: 'intro', title: 'Intro call', duration_minutes: [30], meeting_class: 'customer' });
    expect(type.status(), await type.text()).toBe(201);
    const alloc = await rest(page, key, 'post', '/v1/public-scheduling/allocations', { link_id: linkId, slug: 'intro', limit: 2, period: 'month' });
    expect(alloc.status(), await alloc.text()).toBe(201);

    // A requester's proposal through the type, approved by the admin (the link's owner).
    const link: PublicLink = { key, ownerEmail: admin.email, ownerName: 'Ada Admin', alias, slug: 'intro', typeTitle: 'Intro call', linkId };
    const proposal = await verifiedProposal(page.request, link, 0);
    await signIn(page, admin);
    await page.goto(`${base}/dashboard/admin/requesters`);
    await expect(page.getByTestId('allocation-usage-intro')).toContainText('0 of 2 used this month');
    await page.goto(`${base}/dashboard`);
    await page.getByTestId('proposal-card').filter({ hasText: proposal.email }).getByRole('link').first().click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByTestId('review-outcome')).toContainText('Approved and booked');
    await page.goto(`${base}/dashboard/admin/requesters`);
    await expect(page.getByTestId('allocation-usage-intro')).toContainText('1 of 2 used this month');
    await screenshots(page, 'requesters-usage');

    await page.goto(`${base}/dashboard/admin/public-scheduling`);
    const card = page.getByTestId(`link-${alias}`);
    await expect(card.getByTestId('type-allocation-intro')).toContainText('Allocation: 1 of 2 used this month');
    await card.getByRole('button', { name: 'Edit Intro call' }).click();
    let dialog = page.getByRole('dialog');
    await expect(dialog.getByLabel('Title')).toHaveValue('Intro call');
    await dialog.getByLabel('Title').fill('Intro chat');
    await dialog.getByLabel('Lengths (minutes)').fill('30, 45');
    await dialog.getByLabel('Attendee limit (optional)').fill('4');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog).toBeHidden();
    await expect(card).toContainText('Intro chat');
    await expect(card).toContainText('30 / 45 min');
    await expect(card).toContainText('up to 4 people');

    // The same rule as PATCH .../meeting-types/{slug}: a type may not be looser than its class.
    await card.getByRole('button', { name: 'Edit Intro chat' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox', { name: 'Meeting class' }).selectOption('guarded');
    await dialog.getByLabel('Preempt policy').selectOption('preempt_lower');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await expect(dialog.getByText('public_preempt_policy preempt_lower is more flexible than meeting class guarded (never); use inherit or never')).toBeVisible();
    await expect(dialog.getByLabel('Preempt policy')).toHaveAttribute('aria-invalid', 'true');
    await page.screenshot({ path: test.info().outputPath('meeting-type-edit-error-desktop.png'), fullPage: true });
    await page.keyboard.press('Escape');

    // The public page shows the change.
    await page.goto(`${base}/${alias}/intro`);
    await expect(page.getByRole('heading', { name: /Intro chat/ })).toBeVisible();
    await expect(page.getByText('45 minutes')).toBeVisible();
    const api = await rest(page, key, 'get', `/v1/public-scheduling/links/${linkId}/meeting-types/intro`);
    expect(await api.json()).toMatchObject({ title: 'Intro chat', duration_minutes: [30, 45], attendee_limit: 4, meeting_class: 'customer', public_preempt_policy: 'inherit' });
  });

  test("an admin manages an agent's webhooks: create, test with a 2xx in the log, disable, enable, delete", async ({ page }) => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/scheduler`;
    try {
      const agentRes = await rest(page, key, 'post', '/v1/agents', { name: `Hooked ${suffix}`, owner_scope: 'org:*', permissions: ['read_availability'] });
      expect(agentRes.status(), await agentRes.text()).toBe(201);
      await signIn(page, admin);
      await page.goto(`${base}/dashboard/admin/agents`);
      await page.getByRole('link', { name: `Webhooks of Hooked ${suffix}` }).click();
      await expect(page.getByRole('heading', { level: 1, name: `Webhooks of Hooked ${suffix}` })).toBeVisible();
      await expect(page.getByText('No webhook endpoints yet')).toBeVisible();
      await expectAccessible(page);

      await page.getByLabel('URL').fill('ftp://example.com/x');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      // The domain's refusal (WEBHOOK_URL_REFUSED, as on POST /v1/webhooks), under URL.
      await expect(page.getByText(/Only http and https URLs/)).toBeVisible();
      await expect(page.getByLabel('URL')).toHaveAttribute('aria-invalid', 'true');
      await page.getByLabel('URL').fill(url);
      await page.getByLabel('Description (optional)').fill('Loopback receiver');
      await page.getByRole('checkbox', { name: /proposal\.created/ }).check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect(page.getByTestId('webhook-secret')).toHaveText(/^whsec_/);
      await page.keyboard.press('Escape');
      const card = page.getByTestId(`webhook-${url}`);
      await expect(card).toContainText('proposal.created');
      await expect(card.getByText('Active')).toBeVisible();

      await card.getByRole('button', { name: 'Send test' }).click();
      const row = card.getByTestId('delivery-row').first();
      await expect(row).toContainText('webhook.test');
      await expect(row).toContainText('delivered', { timeout: 20_000 });
      await expect(row).toContainText('HTTP 204');
      expect(received.some((r) => JSON.parse(r.body).type === 'webhook.test')).toBe(true);
      await screenshots(page, 'webhooks');

      await card.getByRole('button', { name: `Disable endpoint ${url}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Disable endpoint' }).click();
      await expect(card.getByTestId('webhook-disabled')).toBeVisible();
      await card.getByRole('button', { name: 'Enable' }).click();
      await expect(card.getByText('Active')).toBeVisible();

      // An endpoint the delivery worker disabled shows why, plainly.
      const sql = postgres(databaseUrl!, { max: 1 });
      await sql`update webhook_endpoints set status = 'disabled', consecutive_failures = 15, disabled_at = now(),
        disabled_reason = '15 consecutive failed deliveries; last: HTTP 500' where url = ${url}`;
      await sql.end();
      await page.reload();
      await expect(card.getByTestId('webhook-disabled')).toContainText('Disabled automatically');
      await expect(card.getByTestId('webhook-disabled')).toContainText('15 consecutive failed deliveries; last: HTTP 500');
      await page.screenshot({ path: test.info().outputPath('webhooks-auto-disabled-desktop.png'), fullPage: true });

      await card.getByRole('button', { name: `Delete endpoint ${url}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
      await expect(page.getByText('No webhook endpoints yet')).toBeVisible();
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });
});
