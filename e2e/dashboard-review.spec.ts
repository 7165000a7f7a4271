import { expect, test } from './test';
import { berlin, dashboardOwner, expectAccessible, signInWithPassword, snap } from './dashboard';
import { usesPostgres } from './servers';

test.describe('journey 3 (owner): review proposals on the week view', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');
  test.setTimeout(150_000);

  test('the conflict overlay shows; a candidate is approved; a second proposal is declined', async ({ page }, info) => {
    const owner = await dashboardOwner(page.request, 'review');
    // Tuesday next week: an internal 1:1 at 10:00-10:30, and an external request for an hour between 09:30 and 11:30.
    await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'internal', start: berlin(2, '10:00'), end: berlin(2, '10:30'), title: '1:1 with Sam' });
    const first = await owner.api('POST', '/v1/booking-proposals', {
      owner_email: owner.email,
      meeting_class: 'external',
      duration_minutes: 60,
      window: { start: berlin(2, '09:30'), end: berlin(2, '11:30') },
      attendees: [{ email: 'gavin@hooli.example', name: 'Gavin Belson' }],
      title: 'Intro call about the pilot',
      message: 'Gavin would like to walk through the pilot plan.',
    });
    const second = await owner.api('POST', '/v1/booking-proposals', {
      owner_email: owner.email,
      meeting_class: 'internal',
      duration_minutes: 30,
      window: { start: berlin(3, '14:00'), end: berlin(3, '15:00') },
      attendees: [{ email: 'lee@demo.example' }],
      title: 'Roadmap sync',
    });

    await signInWithPassword(page, owner);
    await page.getByRole('link', { name: /Review on your week\s*: Intro call about the pilot/ }).click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/proposals/${first.proposal_id}$`));
    await expect(page.getByRole('heading', { level: 1, name: 'Intro call about the pilot' })).toBeVisible();
    // The 1:1 is on the week; candidates that run into it are drawn in red and say so in the list.
    await expect(page.getByRole('region', { name: /Week of/ }).getByText('1:1 with Sam')).toBeVisible();
    const overlays = page.locator('[data-testid^="candidate-overlay-"]');
    await expect(overlays).toHaveCount(first.candidates.length);
    await expect(page.locator('[data-testid^="candidate-overlay-"][data-conflict="true"]').first()).toBeVisible();
    await expect(page.getByTestId('option-1')).toContainText('Would cancel “1:1 with Sam”');
    await expectAccessible(page, 'week view with a proposal');
    await snap(page, info, '01-review-conflict');

    // Keyboard alone: into the options, arrow to a free candidate, then Tab to Approve.
    const free = first.candidates.findIndex((c: { start: string }) => Date.parse(c.start) >= Date.parse(berlin(2, '10:30')));
    expect(free).toBeGreaterThan(0);
    await page.getByTestId('option-1').focus();
    await expect(page.getByTestId('option-1')).toBeFocused();
    for (let i = 1; i <= free; i++) {
      await page.keyboard.press('ArrowDown');
      await expect(page.getByTestId(`option-${i + 1}`)).toBeFocused();
    }
    await page.keyboard.press('Space');
    await expect(page.getByTestId(`option-${free + 1}`)).toHaveAttribute('aria-checked', 'true');
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Approve' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('review-outcome')).toContainText('Approved and booked');
    await snap(page, info, '02-approved');
    // "See the booking" reads as a link in the green box, in light and dark (axe link-in-text-block, issue 45 item 5).
    await expectAccessible(page, 'approved');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'approved (dark)');
    await page.emulateMedia({ colorScheme: 'light' });
    const approved = await owner.api('GET', `/v1/booking-proposals/${first.proposal_id}`);
    expect(approved).toMatchObject({ status: 'booked', booking_id: expect.any(String) });
    const booking = await owner.api('GET', `/v1/bookings/${approved.booking_id}`);
    expect(booking.start).toBe(first.candidates[free].start);

    // The second proposal is declined with a reason.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('link', { name: /Review on your week\s*: Roadmap sync/ }).click();
    await page.getByRole('button', { name: 'Decline' }).click();
    const dialog = page.getByRole('dialog', { name: 'Decline this request?' });
    await dialog.getByLabel('Reason (optional)').fill('Out that week; could we try after the 5th?');
    await snap(page, info, '03-decline-dialog');
    await dialog.getByRole('button', { name: 'Decline request' }).click();
    // The reason's own question mark ends the sentence: no "?." (issue 45 item 9).
    await expect(page.getByTestId('review-outcome')).toHaveText('Declined: Out that week; could we try after the 5th?');
    expect(await owner.api('GET', `/v1/booking-proposals/${second.proposal_id}`)).toMatchObject({ status: 'declined' });
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Inbox' }).click();
    await expect(page.getByText('Nothing waits for your review.')).toBeVisible();
  });

  test('a refused approval shows the reason and alternatives, and one of them can be approved (phone)', async ({ page }, info) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const owner = await dashboardOwner(page.request, 'refusal');
    await owner.api('POST', '/v1/booking-proposals', {
      owner_email: owner.email,
      meeting_class: 'internal',
      duration_minutes: 30,
      window: { start: berlin(4, '14:00'), end: berlin(4, '15:00') },
      attendees: [],
      title: 'Quick check-in',
    });
    // After the proposal was made, a higher-priority meeting takes the whole window.
    await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start: berlin(4, '14:00'), end: berlin(4, '15:00'), title: 'Board call' });

    await signInWithPassword(page, owner);
    await page.getByRole('link', { name: /Review on your week\s*: Quick check-in/ }).click();
    await expect(page.getByTestId('option-1')).toContainText('overlaps Board call (external)');
    await page.getByRole('button', { name: 'Approve' }).click();
    const refused = page.getByTestId('approve-refused');
    await expect(refused).toContainText('Not booked');
    await expect(refused).toContainText('alternatives');
    const alternative = page.getByRole('radio', { name: /^Alternative:/ }).first();
    await expect(alternative).toBeChecked();
    await snap(page, info, '01-refused-with-alternatives');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByTestId('review-outcome')).toContainText('Approved and booked');
    await snap(page, info, '02-alternative-approved');
  });
});

test.describe('issue 23 item 3: five candidates over one meeting stay legible', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');
  test.setTimeout(150_000);

  for (const [name, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`each candidate is its own marker; the chosen one is drawn and named; hover and focus name the conflict (${name})`, async ({ page }, info) => {
      await page.setViewportSize(viewport);
      const owner = await dashboardOwner(page.request, `five-${name}`);
      // Candidates 1-4 run into the 1:1; 5 is free (the issue's own example).
      await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'internal', start: berlin(2, '10:00'), end: berlin(2, '10:30'), title: '1:1 with Sam' });
      const proposal = await owner.api('POST', '/v1/booking-proposals', {
        owner_email: owner.email,
        meeting_class: 'external',
        duration_minutes: 60,
        window: { start: berlin(2, '09:30'), end: berlin(2, '11:30') },
        attendees: [{ email: 'gavin@hooli.example', name: 'Gavin Belson' }],
        title: 'Intro call with Hooli about the pilot',
      });
      expect(proposal.candidates).toHaveLength(5);
      const free = proposal.candidates.findIndex((c: { start: string }) => Date.parse(c.start) >= Date.parse(berlin(2, '10:30'))) + 1;
      expect(free).toBe(5);

      await signInWithPassword(page, owner);
      await page.goto(`${owner.base}/dashboard/proposals/${proposal.proposal_id}`);
      const markers = page.locator('[data-testid^="candidate-overlay-"]');
      await expect(markers).toHaveCount(5);
      // Five distinct markers, none on top of another, each wide enough to see and point at.
      const boxes = await Promise.all([1, 2, 3, 4, 5].map(async (n) => (await page.getByTestId(`candidate-overlay-${n}`).boundingBox())!));
      for (const [i, a] of boxes.entries()) {
        expect(a.width, `marker ${i + 1} width`).toBeGreaterThanOrEqual(5);
        for (const b of boxes.slice(i + 1)) {
          const overlapX = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
          const overlapY = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
          expect(overlapX <= 0 || overlapY <= 0, 'markers do not overlap').toBe(true);
        }
      }
      // The free one is chosen and drawn; the caption names it.
      const drawn = page.getByTestId('candidate-active');
      await expect(drawn).toHaveAttribute('data-n', String(free));
      await expect(drawn).toHaveAttribute('data-conflict', 'false');
      const caption = page.getByTestId('candidate-caption');
      await expect(caption).toContainText(`Option ${free} of 5`);
      await expect(caption).toContainText('Free: moves nothing');
      // On a phone the week scrolled sideways to the drawn candidate's day.
      const region = await page.getByRole('region', { name: /Week of/ }).boundingBox();
      const box = await drawn.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(region!.x);
      expect(box!.x + box!.width).toBeLessThanOrEqual(region!.x + region!.width);
      await snap(page, info, `03-five-candidates-${name}`);
      await expectAccessible(page, `five candidates (${name})`);
      await page.emulateMedia({ colorScheme: 'dark' });
      await snap(page, info, `03-five-candidates-${name}-dark`);
      await expectAccessible(page, `five candidates (${name}, dark)`);
      await page.emulateMedia({ colorScheme: 'light' });

      // Hover: the marker names its conflict (title), the week draws it, the caption says it.
      const one = page.getByTestId('candidate-overlay-1');
      await one.hover();
      await expect(one).toHaveAttribute('title', /Option 1, .*Would cancel “1:1 with Sam”/);
      await expect(drawn).toHaveAttribute('data-n', '1');
      await expect(drawn).toHaveAttribute('data-conflict', 'true');
      await expect(caption).toContainText('Option 1 of 5');
      await expect(caption).toContainText('Would cancel “1:1 with Sam”');
      await snap(page, info, `03-five-candidates-${name}-hover`);
      await page.mouse.move(0, 0);
      await expect(drawn).toHaveAttribute('data-n', String(free));

      // Keyboard: focusing a marker names it (its accessible name and the caption); Enter chooses it.
      const two = page.getByTestId('candidate-overlay-2');
      await two.focus();
      await expect(two).toHaveAccessibleName(/^Option 2, .*Would cancel “1:1 with Sam”/);
      await expect(caption).toContainText('Option 2 of 5');
      await expect(drawn).toHaveAttribute('data-n', '2');
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('option-2')).toHaveAttribute('aria-checked', 'true');
      await expect(two).toHaveAttribute('aria-pressed', 'true');
      await snap(page, info, `03-five-candidates-${name}-focus`);
      // Focusing an option in the list shows it on the week as well.
      await page.getByTestId('option-4').focus();
      await expect(caption).toContainText('Option 4 of 5');
      await expect(drawn).toHaveAttribute('data-n', '4');
    });
  }
});
