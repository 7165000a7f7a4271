import { expect, test } from './test';
import { dashboardOwner, expectAccessible, signInWithPassword, TZ } from './dashboard';
import { waitForMail } from './mailbox';

/**
 * Issue 39 item 4: a meeting class with a 5-minute reminder; a meeting booked to start five
 * minutes and a few seconds from now; the owner sees the reminder due on the inbox and in the
 * booking's details; its attendee's reminder mail arrives in the e2e mailbox a few seconds later,
 * with the time in the organizing owner's zone, and the booking's reminders then read "sent".
 */
test.describe('reminders', () => {
  test.setTimeout(120_000);

  test('a reminder is listed as due, then its mail arrives and it reads sent', async ({ page }) => {
    const owner = await dashboardOwner(page.request, 'reminders');
    // Any time is bookable: the meeting starts a few minutes from now, whatever the day.
    await owner.api('PUT', '/v1/schedule-rules', { owner_email: owner.email, working_hours: null, hard_blocks: [], max_daily_meeting_hours: null });
    await owner.api('POST', '/v1/meeting-classes', { name: 'reminded', priority: 40, reminder_offsets_minutes: [5, 60] });
    const guest = `reminded-${Date.now()}@e2e.example`;
    const start = Date.now() + 5 * 60_000 + 20_000;
    const booking = await owner.api('POST', '/v1/bookings', {
      owner_email: owner.email,
      meeting_class: 'reminded',
      start: new Date(start).toISOString(),
      end: new Date(start + 30 * 60_000).toISOString(),
      title: 'Reminder check',
      attendees: [{ email: guest, name: 'Guest' }],
    });
    // The 60-minute reminder would be due already: only the 5-minute one is scheduled.
    const before = await owner.api('GET', `/v1/bookings/${booking.booking_id}/reminders`);
    expect(before.reminders.map((r: { offset_minutes: number; status: string }) => [r.offset_minutes, r.status])).toEqual([[5, 'pending']]);

    await signInWithPassword(page, owner);
    const upcoming = page.getByTestId('upcoming-reminders');
    await expect(upcoming.getByRole('listitem').filter({ hasText: 'Reminder check' })).toBeVisible();
    await expectAccessible(page, 'inbox with upcoming reminders');

    const mail = await waitForMail(guest, { subject: /^Reminder: Reminder check in 5 minutes$/, timeoutMs: 60_000 });
    expect(mail.text).toContain(`(${TZ})`);
    expect(mail.text).toContain('"Reminder check"');
    const after = await owner.api('GET', `/v1/bookings/${booking.booking_id}/reminders`);
    expect(after.reminders.map((r: { status: string }) => r.status)).toEqual(['sent']);

    await page.reload();
    await expect(page.getByRole('heading', { name: 'Upcoming reminders' })).toBeVisible();
    await expect(upcoming.getByRole('listitem').filter({ hasText: 'Reminder check' })).toHaveCount(0);
  });
});
