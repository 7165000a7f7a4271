import { randomBytes } from 'node:crypto';
import { expect, test } from './test';
import postgres from 'postgres';
import { AUDIT_ACTIONS } from '../db/schema/audit';
import { AUDIT_ACTION_WORDS, AUDIT_OUTCOME_WORDS } from '../server/domain/audit/words';
import { bootstrapKey } from './bootstrapKey';
import { base, rest, screenshots, setPassword, signIn } from './console';
import { databaseUrl, usesPostgres } from './servers';

/**
 * Issue 23 item 7, issue 22 item 13 (docs/dashboard.md, "Audit log"): the audit page offers
 * every action in words, says who acted and what about, a move's old and new time, times in the
 * owner's zone with UTC on hover, and
 * refuses a reversed date range inline, before submitting and (for an address typed by
 * hand) from the server.
 */
test.describe('the audit page', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets passwords on the database the server uses');

  test('all actions, the actor, local times with UTC on hover, and a reversed range refused inline', async ({ page, request }) => {
    const suffix = randomBytes(4).toString('hex');
    const { api_key: key } = await bootstrapKey(`E2E audit ${suffix}`);
    const admin = { email: `audit-admin-${suffix}@e2e.example`, password: `pw-${randomBytes(9).toString('base64url')}` };
    const auth = { Authorization: `Bearer ${key}` };
    expect((await request.post(`${base}/v1/owners`, { headers: auth, data: { email: admin.email, time_zone: 'America/New_York' } })).status()).toBe(201);
    await setPassword(admin.email, admin.password);
    const sql = postgres(databaseUrl!, { max: 1 });
    await sql`update owners set role = 'admin' where email = ${admin.email}`;
    await sql.end();
    const r = [{ start: '08:00', end: '18:00' }];
    expect((await request.put(`${base}/v1/schedule-rules`, { headers: auth, data: { owner_email: admin.email, working_hours: { mon: r, tue: r, wed: r, thu: r, fri: r }, hard_blocks: [] } })).status()).toBe(200);
    expect((await request.post(`${base}/v1/meeting-classes`, { headers: auth, data: { name: 'internal', priority: 30 } })).status()).toBe(201);
    // Next Monday 15:00 UTC is 10:00 in New York (EST, UTC-5, from November to March).
    const monday = new Date();
    monday.setUTCDate(monday.getUTCDate() + ((8 - monday.getUTCDay()) % 7 || 7));
    const start = `${monday.toISOString().slice(0, 10)}T15:00:00.000Z`;
    const booked = await rest(page, key, 'post', '/v1/bookings', { owner_email: admin.email, meeting_class: 'internal', start, end: start.replace('T15:00', 'T15:30') });
    expect(booked.status(), await booked.text()).toBe(201);
    // Moved an hour later (11:00 in New York): the log says so in words, old time beside new.
    const later = start.replace('T15:00', 'T16:00');
    const moved = await rest(page, key, 'post', `/v1/bookings/${(await booked.json()).booking_id}/reschedule`, { start: later, end: later.replace('T16:00', 'T16:30') });
    expect(moved.status(), await moved.text()).toBe(200);

    await signIn(page, admin);
    await page.goto(`${base}/dashboard/admin/audit`);
    // Every action of the one list, in words, and nothing else.
    const actions = page.getByLabel('Action').locator('option');
    expect(await actions.allTextContents()).toEqual(['Any', ...AUDIT_ACTIONS.map((a) => AUDIT_ACTION_WORDS[a])]);
    expect(await actions.evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['', ...AUDIT_ACTIONS]);
    await expect(page.getByLabel('Outcome').locator('option')).toHaveText(['Any', ...Object.values(AUDIT_OUTCOME_WORDS)]);
    await expect(page.getByText('America/New_York').first()).toBeVisible();

    await page.getByLabel('Action').selectOption('booking.create');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page).toHaveURL(/action=booking\.create/);
    const row = page.getByTestId('audit-row');
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('audit-actor')).toHaveText(/^Agent /);
    // The meeting's start: 10:00 local, the UTC instant in the markup and on hover.
    const when = row.locator(`time[datetime="${start}"]`);
    await expect(when).toHaveText(/10:00/);
    await expect(when).toHaveAttribute('title', `${start.slice(0, 16).replace('T', ' ')} UTC`);

    await page.goto(`${base}/dashboard/admin/audit?action=booking.reschedule`);
    const move = page.getByTestId('audit-row');
    await expect(move.getByTestId('audit-what')).toHaveText('Meeting moved');
    await expect(move.getByTestId('audit-moved')).toContainText(/from .*10:00.*to .*11:00/);
    await expect(move.locator(`time[datetime="${later}"]`)).toBeVisible();

    // The owner's own change in the dashboard names the owner.
    await page.goto(`${base}/dashboard/admin/meeting-classes`);
    await page.getByLabel('Name').fill('board');
    await page.getByRole('spinbutton', { name: 'Priority' }).fill('80');
    await page.getByRole('button', { name: 'Create class' }).click();
    await expect(page.getByText('board').first()).toBeVisible();
    await page.goto(`${base}/dashboard/admin/audit?action=meeting_class.create&actor_kind=owner`);
    await expect(page.getByTestId('audit-actor')).toHaveText([`Owner ${admin.email} (dashboard)`]);
    await expect(page.getByTestId('audit-what')).toHaveText(['Meeting class added: board']);

    // A reversed range: refused in the form before anything is sent.
    await page.goto(`${base}/dashboard/admin/audit`);
    await page.getByLabel('From').fill('2027-01-10');
    await page.getByLabel('To').fill('2027-01-09');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'from must not be after to' })).toBeVisible();
    await expect(page.getByLabel('From')).toHaveAttribute('aria-invalid', 'true');
    expect(new URL(page.url()).search).toBe('');
    await screenshots(page, 'audit-reversed-range');

    // Typed into the address: the server refuses it, shown in the same place.
    await page.goto(`${base}/dashboard/admin/audit?from=2027-01-10&to=2027-01-09`);
    await expect(page.getByRole('alert').filter({ hasText: 'from must not be after to' })).toBeVisible();
    await expect(page.getByText('These filters cannot be applied')).toBeVisible();

    await page.goto(`${base}/dashboard/admin/audit?action=booking.create`);
    await screenshots(page, 'audit-local-times');
  });
});
