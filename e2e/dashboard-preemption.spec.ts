import fs from 'node:fs';
import { expect, test } from './test';
import { berlin, berlinDate, dashboardOwner, expectAccessible, signInWithPassword, snap, docShot } from './dashboard';
import { waitForMail } from './mailbox';
import { usesPostgres } from './servers';

/** Screenshots the docs show (docs/dashboard.md). */
test.describe('issue 23 items 1 and 5: no silent preemption; approved meetings keep their title', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');
  test.setTimeout(150_000);

  test('approve defaults to a free time, asks before cancelling a meeting, tells its attendees why, and keeps the title', async ({ page }, info) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const owner = await dashboardOwner(page.request, 'preempt');
    const sam = `sam-${Date.now()}@e2e.example`;
    const gavin = `gavin-${Date.now()}@e2e.example`;
    // Tuesday next week: "1:1 with Sam" (internal, lower priority) 09:00-10:00; an external request for an hour in 09:00-11:30.
    const oneOnOne = await owner.api('POST', '/v1/bookings', {
      owner_email: owner.email,
      meeting_class: 'internal',
      start: berlin(2, '09:00'),
      end: berlin(2, '10:00'),
      title: '1:1 with Sam',
      attendees: [{ email: sam, name: 'Sam' }],
    });
    // Sam holds the 1:1's invitation before anything moves it: a booking ended before its
    // invitation went out mails no one (docs/dashboard.md, proposal review), so the CANCEL below needs it.
    await waitForMail(sam, { subject: /Invitation/, timeoutMs: 60_000 });
    const title = 'Intro call with Hooli about the pilot';
    const proposal = await owner.api('POST', '/v1/booking-proposals', {
      owner_email: owner.email,
      meeting_class: 'external',
      duration_minutes: 60,
      window: { start: berlin(2, '09:00'), end: berlin(2, '11:30') },
      title,
      attendees: [{ email: gavin, name: 'Gavin Belson' }],
      message: 'Gavin would like to walk through the pilot plan.',
    });
    const candidates: { start: string; end: string }[] = proposal.candidates;
    const free = candidates.findIndex((c) => Date.parse(c.start) >= Date.parse(berlin(2, '10:00')));
    const clash = candidates.findIndex((c) => Date.parse(c.start) < Date.parse(berlin(2, '10:00')));
    expect(free, 'a candidate after the 1:1').toBeGreaterThanOrEqual(0);
    expect(clash, 'a candidate over the 1:1').toBeGreaterThanOrEqual(0);
    const clashing = page.getByTestId(`option-${clash + 1}`);

    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/proposals/${proposal.proposal_id}`);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    // The first time that cancels nothing is chosen; the ones before it say what they would cancel.
    await expect(page.getByTestId(`option-${free + 1}`)).toHaveAttribute('aria-checked', 'true');
    await expect(clashing).toHaveAttribute('aria-checked', 'false');
    await expect(clashing).toContainText('Would cancel “1:1 with Sam”');
    await expect(page.getByTestId(`option-${free + 1}`)).toContainText('Free: moves nothing');

    // Choosing a preempting time and approving asks first, naming exactly what goes.
    await clashing.click();
    await page.getByRole('button', { name: 'Approve' }).click();
    const ask = page.getByTestId('preempt-confirm');
    await expect(ask).toBeVisible();
    await expect(ask.getByRole('heading')).toHaveText(/Approving at this time cancels this meeting/);
    await expect(ask.getByRole('heading')).toBeFocused();
    await expect(ask).toContainText('1:1 with Sam');
    await expect(ask).toContainText('09:00–10:00');
    await expect(ask).toContainText(`Sam <${sam}>`);
    await expect(ask).toContainText('Class: internal');
    await expectAccessible(page, 'preemption confirmation');
    await snap(page, info, '01-preempt-confirm');
    await docShot(page, 'dashboard-preempt-confirm');
    // Nothing happened yet.
    expect((await owner.api('GET', `/v1/bookings/${oneOnOne.booking_id}`)).status).toBe('confirmed');
    await ask.getByRole('button', { name: 'Choose another time' }).click();
    await expect(ask).toHaveCount(0);

    // Confirmed: the 1:1 is cancelled with a reason in words, and the booking keeps the proposal's title.
    await clashing.click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Cancel it and approve' }).click();
    await expect(page.getByTestId('review-outcome')).toContainText('Approved and booked');
    const booked = await owner.api('GET', `/v1/booking-proposals/${proposal.proposal_id}`);
    const booking = await owner.api('GET', `/v1/bookings/${booked.booking_id}`);
    expect(booking).toMatchObject({ title, start: candidates[clash].start });
    expect((await owner.api('GET', `/v1/bookings/${oneOnOne.booking_id}`)).status).toBe('preempted');
    const notes = await owner.api('GET', '/v1/notifications');
    const note = notes.notifications.find((n: { kind: string; data: { booking_id?: string } }) => n.kind === 'booking.preempted' && n.data.booking_id === oneOnOne.booking_id);
    expect(note.data.reason).toContain(`approved "${title}"`);

    // On the calendar under its own title; the attendees' mail says so too.
    await page.goto(`${owner.base}/dashboard/calendar?week=${berlinDate(candidates[clash].start)}`);
    await expect(page.getByRole('region', { name: /Week of/ }).getByRole('link', { name: new RegExp(`^${title}`) })).toBeVisible();
    await snap(page, info, '02-calendar-title');
    const invitation = await waitForMail(gavin, { subject: /Invitation/, timeoutMs: 60_000 });
    expect(invitation.subject).toBe(`Invitation: ${title}`);
    const cancelled = await waitForMail(sam, { subject: /Cancelled/, timeoutMs: 60_000 });
    expect(cancelled.subject).toBe('Cancelled: 1:1 with Sam');
    expect(cancelled.text).toMatch(/Reason: .*approved "Intro call with Hooli about the pilot"/);
    fs.writeFileSync(info.outputPath('cancel-mail.txt'), cancelled.text);
  });

  test('a stale page cannot bump silently: the server refuses and the page asks (phone)', async ({ page }, info) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const owner = await dashboardOwner(page.request, 'stale');
    const proposal = await owner.api('POST', '/v1/booking-proposals', {
      owner_email: owner.email,
      meeting_class: 'external',
      duration_minutes: 30,
      window: { start: berlin(3, '14:00'), end: berlin(3, '15:00') },
      attendees: [{ email: 'x@partner.example' }],
    });
    await signInWithPassword(page, owner);
    await page.goto(`${owner.base}/dashboard/proposals/${proposal.proposal_id}`);
    await expect(page.getByTestId('option-1')).toHaveAttribute('aria-checked', 'true');
    await expect(page.getByTestId('option-1')).toContainText('Free: moves nothing');
    // Meanwhile a lower-priority meeting lands on the chosen time.
    const c = proposal.candidates[0];
    const later = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'internal', start: c.start, end: c.end, title: 'Design sync', attendees: [{ email: 'lee@e2e.example', name: 'Lee' }] });
    await page.getByRole('button', { name: 'Approve' }).click();
    const ask = page.getByTestId('preempt-confirm');
    await expect(ask).toContainText('Design sync');
    await expect(ask).toContainText('Lee <lee@e2e.example>');
    await expectAccessible(page, 'preemption confirmation on a phone');
    await snap(page, info, '03-stale-confirm-phone');
    expect((await owner.api('GET', `/v1/bookings/${later.booking_id}`)).status).toBe('confirmed');
    await ask.getByRole('button', { name: 'Cancel it and approve' }).click();
    await expect(page.getByTestId('review-outcome')).toContainText('Approved and booked');
    expect((await owner.api('GET', `/v1/bookings/${later.booking_id}`)).status).toBe('preempted');
  });
});
