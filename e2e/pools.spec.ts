import { randomBytes } from 'node:crypto';
import { expect, test, type Page } from './test';
import postgres from 'postgres';
import { bootstrapKey } from './bootstrapKey';
import { base, expectAccessible, rest as restCall, screenshots, setPassword, signIn } from './console';
import { databaseUrl, usesPostgres } from './servers';

/**
 * Issue 25: the pool page (docs/dashboard.md, "Pools"; docs/groups.md, "Pools"). An admin creates
 * a pool, edits its weights, and after bookings made through the pool over REST sees the
 * assignments against the weights; axe in light and dark.
 */
type Setup = { key: string; admin: { email: string; password: string }; hosts: string[]; suffix: string };
let s: Setup;

const rest = (page: Page, method: 'get' | 'post' | 'patch', path: string, data?: unknown) => restCall(page, s.key, method, path, data);

test.describe('the pool page', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets passwords on the database the server uses');
  test.describe.configure({ mode: 'serial' });

  test.beforeAll(async ({ request }) => {
    const suffix = randomBytes(4).toString('hex');
    const { api_key } = await bootstrapKey(`E2E pools ${suffix}`);
    const admin = { email: `pools-admin-${suffix}@e2e.example`, password: `pw-${randomBytes(9).toString('base64url')}` };
    const hosts = [`pools-dana-${suffix}@e2e.example`, `pools-lee-${suffix}@e2e.example`];
    const auth = { Authorization: `Bearer ${api_key}` };
    for (const email of [admin.email, ...hosts]) {
      const res = await request.post(`${base}/v1/owners`, { headers: auth, data: { email, time_zone: 'UTC' } });
      expect(res.status(), await res.text()).toBe(201);
    }
    await setPassword(admin.email, admin.password);
    const sql = postgres(databaseUrl!, { max: 1 });
    await sql`update owners set role = 'admin' where email = ${admin.email}`;
    await sql.end();
    expect((await request.post(`${base}/v1/meeting-classes`, { headers: auth, data: { name: 'demo', priority: 50 } })).status()).toBe(201);
    s = { key: api_key, admin, hosts, suffix };
  });

  test('an admin creates a pool, edits the weights, and sees bookings made through it against the weights', async ({ page }) => {
    const [dana, lee] = s.hosts;
    const name = `sales-${s.suffix}`;
    await signIn(page, s.admin);
    await page.goto(`${base}/dashboard/admin/pools`);
    await expect(page.getByRole('heading', { name: 'Pools', level: 1 })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Pools' })).toHaveAttribute('aria-current', 'page');

    // Create: the form's own check first, then the pool.
    const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Create pool' }) });
    await form.getByLabel('Name').fill(name);
    await form.getByRole('button', { name: 'Create pool' }).click();
    await expect(form.getByText('Pick at least one member.')).toBeVisible();
    await form.getByLabel(dana, { exact: true }).check();
    await form.getByLabel(lee, { exact: true }).check();
    await form.getByRole('button', { name: 'Create pool' }).click();
    const card = page.getByRole('region', { name, exact: true });
    await expect(card.getByRole('row', { name: new RegExp(dana) })).toBeVisible();

    // A duplicate name is refused with the server's message.
    await form.getByLabel('Name').fill(name);
    await form.getByLabel(dana, { exact: true }).check();
    await form.getByRole('button', { name: 'Create pool' }).click();
    await expect(form.getByText(`A pool named ${name} already exists`)).toBeVisible();

    // Edit: dana weight 3, lee weight 1.
    await card.getByRole('button', { name: `Edit pool ${name}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(`Weight of ${dana}`).fill('3');
    await dialog.getByLabel(`Weight of ${lee}`).fill('1');
    await dialog.getByRole('button', { name: 'Save pool' }).click();
    await expect(dialog).toBeHidden();
    await expect(card.getByRole('row', { name: new RegExp(`${dana}.*3.*75 %`) })).toBeVisible();

    // Four one-hour bookings through the pool over REST: dana (weight 3) takes three, lee one.
    const pools = await (await rest(page, 'get', '/v1/pools')).json();
    const pool = pools.pools.find((p: { name: string }) => p.name === name);
    const day = new Date(Date.now() + 14 * 86_400_000);
    day.setUTCHours(0, 0, 0, 0);
    const chosen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const start = new Date(day.getTime() + (9 + i) * 3_600_000).toISOString();
      const end = new Date(day.getTime() + (10 + i) * 3_600_000).toISOString();
      const res = await rest(page, 'post', '/v1/bookings', { pool: pool.pool_id, meeting_class: 'demo', start, end });
      expect(res.status(), await res.text()).toBe(201);
      const body = await res.json();
      expect(body.assignment.pool_id).toBe(pool.pool_id);
      chosen.push(body.owner_email);
    }
    expect(chosen.filter((c) => c === dana)).toHaveLength(3);

    await page.reload();
    await expect(card.getByRole('row', { name: new RegExp(`${dana}.*180 min.*75 %`) })).toBeVisible();
    await expect(card.getByRole('row', { name: new RegExp(`${lee}.*60 min.*25 %`) })).toBeVisible();
    await expect(card).toContainText('240 minutes booked through the pool in the last 30 days');
    await screenshots(page, 'pools');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: test.info().outputPath('pools-dark.png'), fullPage: true });
    await expectAccessible(page);
    await page.emulateMedia({ colorScheme: 'light' });

    // Delete asks first, then the pool is gone (REST agrees).
    await card.getByRole('button', { name: `Delete pool ${name}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete pool' }).click();
    await expect(page.getByText(name, { exact: true })).toHaveCount(0);
    expect((await rest(page, 'get', `/v1/pools/${pool.pool_id}`)).status()).toBe(404);
  });
});
