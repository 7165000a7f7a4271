import { expect, test, type Locator, type Page, type TestInfo } from './test';
import { berlin, berlinDate, dashboardOwner, expectAccessible, signInWithPassword, snap, type DashboardOwner } from './dashboard';

/**
 * issue 45 item 7: moving a meeting on the week (docs/dashboard.md "Moving on the week"). The
 * owner drags a confirmed booking with a mouse or a finger, resizes it by its bottom edge, or
 * moves it with the keyboard; the drop asks calendar.move (the Move dialog's procedure), a move
 * that would bump a lower-priority meeting shows the Move dialog's warning in view, and a refusal
 * puts the block back with its reason. The grid draws an hour as 60 px (a minute a pixel).
 */
const MINUTE_PX = 1;

async function openWeek(page: Page, owner: DashboardOwner, iso: string): Promise<void> {
  await page.goto(`${owner.base}/dashboard/calendar?week=${berlinDate(iso)}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Calendar' })).toBeVisible();
}

const block = (page: Page, title: string) => page.getByRole('link', { name: new RegExp(`^${title}\\s*,`) });
const column = (page: Page, iso: string) => page.locator(`[data-day="${berlinDate(iso)}"]`);

/** Where to grab a block (near its top, or on its bottom edge) and where that point goes: `days` columns over, `minutes` down. */
async function path(page: Page, from: Locator, to: { dayIso: string; minutes: number }, edge = false) {
  await from.scrollIntoViewIfNeeded();
  const box = (await from.boundingBox())!;
  const fromDay = (await from.locator('xpath=..').boundingBox())!;
  const toDay = (await column(page, to.dayIso).boundingBox())!;
  const x = box.x + box.width / 2;
  const y = edge ? box.y + box.height - 3 : box.y + 8;
  return { x, y, tx: x + (toDay.x - fromDay.x), ty: y + to.minutes * MINUTE_PX };
}

/** A mouse drag in small steps, as a hand makes it. */
async function mouseDrag(page: Page, p: { x: number; y: number; tx: number; ty: number }, beforeDrop?: () => Promise<void>): Promise<void> {
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  await page.mouse.move(p.tx, p.ty, { steps: 12 });
  await beforeDrop?.();
  await page.mouse.up();
}

/** A finger's drag through Chromium's touch input (real touch and pointer events, touch-action honoured). */
async function touchDrag(page: Page, p: { x: number; y: number; tx: number; ty: number }): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: p.x, y: p.y }] });
  for (let i = 1; i <= 12; i++) {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: p.x + ((p.tx - p.x) * i) / 12, y: p.y + ((p.ty - p.y) * i) / 12 }] });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** The viewport as the person sees it (not the full page): is the warning on screen? */
async function view(page: Page, info: TestInfo, name: string): Promise<void> {
  await page.screenshot({ path: info.outputPath(`${name}.png`) });
}

test.describe('owner moves meetings on the week', () => {
  // A sign-in, a few moves, axe and screenshots each: more than the default minute on a busy machine.
  test.setTimeout(180_000);
  test('desktop: drag to move across days, drag to resize, a refused drop goes back with its reason', async ({ page }, info) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const owner = await dashboardOwner(page.request, 'drag');
    const booking = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start: berlin(3, '10:00'), end: berlin(3, '11:00'), title: 'Client call' });
    const short = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'internal', start: berlin(2, '15:00'), end: berlin(2, '15:30'), title: 'Interview with Sam Park' });
    await signInWithPassword(page, owner);
    await openWeek(page, owner, berlin(3, '10:00'));

    // A 30-minute block shows its title and its time.
    const shortBlock = block(page, 'Interview with Sam Park');
    await expect(shortBlock.getByText('Interview with Sam Park')).toBeVisible();
    await expect(shortBlock.getByText(/15:00–15:30/)).toBeVisible();
    const clipped = await shortBlock.evaluate((el) => [...el.querySelectorAll(':scope > span')].some((s) => s.getBoundingClientRect().bottom > el.getBoundingClientRect().bottom + 0.5));
    expect(clipped, 'a 30-minute block keeps both lines inside it').toBe(false);
    await snap(page, info, '01-week-desktop');

    // Move: Wed 10:00 → Thu 14:00, the ghost names the new time before the drop.
    const p = await path(page, block(page, 'Client call'), { dayIso: berlin(4, '10:00'), minutes: 240 });
    await mouseDrag(page, p, async () => {
      await expect(page.getByTestId('week-ghost')).toContainText('14:00–15:00');
      await view(page, info, '02-dragging');
    });
    await expect(column(page, berlin(4, '10:00')).getByRole('link', { name: /^Client call\s*, 14:00–15:00/ })).toBeVisible();
    expect((await owner.api('GET', `/v1/bookings/${booking.booking_id}`)).start).toBe(berlin(4, '14:00'));
    await expect(page.getByRole('dialog')).toBeHidden(); // the drop did not open the details

    // Resize by the bottom edge: 14:00–15:00 → 14:00–15:30.
    const r = await path(page, block(page, 'Client call'), { dayIso: berlin(4, '10:00'), minutes: 30 }, true);
    await mouseDrag(page, r);
    await expect(block(page, 'Client call')).toHaveAccessibleName(/^Client call\s*, 14:00–15:30/);
    const resized = await owner.api('GET', `/v1/bookings/${booking.booking_id}`);
    expect([resized.start, resized.end]).toEqual([berlin(4, '14:00'), berlin(4, '15:30')]);

    // Onto Thursday's lunch (a hard block): refused, back in place, the reason beside it.
    const q = await path(page, block(page, 'Interview with Sam Park'), { dayIso: berlin(4, '10:00'), minutes: -180 });
    await mouseDrag(page, q);
    const refusal = column(page, berlin(2, '10:00')).getByRole('alert');
    await expect(refusal).toContainText('Not moved:');
    await expect(refusal).toBeInViewport();
    await expect(column(page, berlin(2, '10:00')).getByRole('link', { name: /^Interview with Sam Park\s*, 15:00–15:30/ })).toBeVisible();
    expect((await owner.api('GET', `/v1/bookings/${short.booking_id}`)).start).toBe(berlin(2, '15:00'));
    await view(page, info, '03-refused');
    await expectAccessible(page, 'week after a refused drop');
    await refusal.getByRole('button', { name: 'Dismiss' }).click();
    await expect(refusal).toBeHidden();
  });

  test('desktop: a drag that would bump a lower-priority meeting asks in view, then moves', async ({ page }, info) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const owner = await dashboardOwner(page.request, 'dragbump');
    const low = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'internal', start: berlin(4, '14:00'), end: berlin(4, '15:00'), title: 'Focus block' });
    const booking = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start: berlin(3, '10:00'), end: berlin(3, '11:00'), title: 'Client call' });
    await signInWithPassword(page, owner);
    await openWeek(page, owner, berlin(3, '10:00'));
    await mouseDrag(page, await path(page, block(page, 'Client call'), { dayIso: berlin(4, '10:00'), minutes: 240 }));

    const ask = page.getByRole('dialog', { name: /^Move “Client call” to .*14:00–15:00\?$/ });
    await expect(ask).toBeVisible();
    const warning = ask.getByTestId('move-preempt-confirm');
    await expect(warning.getByText('Focus block')).toBeVisible();
    await expect(warning.getByRole('button', { name: 'Cancel and move' })).toBeInViewport();
    await expect(warning.getByRole('heading')).toBeFocused();
    // Until confirmed, nothing moved.
    expect((await owner.api('GET', `/v1/bookings/${booking.booking_id}`)).start).toBe(berlin(3, '10:00'));
    await view(page, info, '01-bump-warning');
    await expectAccessible(page, 'drag: bump warning');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'drag: bump warning (dark)');
    await view(page, info, '02-bump-warning-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await warning.getByRole('button', { name: 'Cancel and move' }).click();
    await expect(ask).toBeHidden();
    await expect(column(page, berlin(4, '10:00')).getByRole('link', { name: /^Client call\s*, 14:00–15:00/ })).toBeVisible();
    expect((await owner.api('GET', `/v1/bookings/${booking.booking_id}`)).start).toBe(berlin(4, '14:00'));
    expect((await owner.api('GET', `/v1/bookings/${low.booking_id}`)).status).toBe('preempted');
    await expect(page.getByTestId('week-move-status')).toHaveText(/Moved “Client call” to .*14:00–15:00\./);
  });

  test('keyboard: Alt+arrows move and resize, Escape keeps, Enter moves, told by a live region', async ({ page }, info) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const owner = await dashboardOwner(page.request, 'dragkeys');
    const booking = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start: berlin(3, '10:00'), end: berlin(3, '11:00'), title: 'Client call' });
    await signInWithPassword(page, owner);
    await openWeek(page, owner, berlin(3, '10:00'));
    const call = block(page, 'Client call');
    await call.focus();
    const status = page.getByTestId('week-move-status');

    // Escape keeps the time.
    await page.keyboard.press('Alt+ArrowDown');
    await expect(status).toHaveText(/^Client call: .*10:15–11:15\. Enter to move it there, Escape to keep 10:00–11:00\.$/);
    await page.keyboard.press('Escape');
    await expect(status).toHaveText('“Client call” stays at 10:00–11:00.');
    await expect(page.getByTestId('week-ghost')).toHaveCount(0);

    // Down half an hour, a day later, 15 minutes longer: Thu 10:30–11:45.
    await page.keyboard.press('Alt+ArrowDown');
    await page.keyboard.press('Alt+ArrowDown');
    await page.keyboard.press('Alt+ArrowRight');
    await page.keyboard.press('Shift+Alt+ArrowDown');
    await expect(status).toHaveText(/^Client call: .*10:30–11:45\./);
    await expect(column(page, berlin(4, '10:00')).getByTestId('week-ghost')).toContainText('10:30–11:45');
    expect(page.url()).toContain('/dashboard/calendar'); // Alt+Right was not the browser's Forward
    await view(page, info, '01-keyboard-draft');
    await page.keyboard.press('Enter');
    await expect(status).toHaveText(/^Moved “Client call” to .*10:30–11:45\.$/);
    await expect(column(page, berlin(4, '10:00')).getByRole('link', { name: /^Client call\s*, 10:30–11:45/ })).toBeFocused();
    await expect(page.getByRole('dialog')).toBeHidden(); // Enter moved it; it did not open the details
    const moved = await owner.api('GET', `/v1/bookings/${booking.booking_id}`);
    expect([moved.start, moved.end]).toEqual([berlin(4, '10:30'), berlin(4, '11:45')]);
    await expectAccessible(page, 'week after a keyboard move');
  });

  test('phone: titles readable, a finger drags a meeting, a bump asks in view and can be declined', async ({ browser }, info) => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
    const page = await phone.newPage();
    const owner = await dashboardOwner(page.request, 'dragphone');
    const booking = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start: berlin(3, '10:00'), end: berlin(3, '11:00'), title: 'Interview with Sam Park' });
    const low = await owner.api('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'internal', start: berlin(2, '14:00'), end: berlin(2, '14:30'), title: 'Team sync' });
    await signInWithPassword(page, owner);
    await openWeek(page, owner, berlin(3, '10:00'));

    // The whole title on the phone's week, not "Int…".
    const title = block(page, 'Interview with Sam Park').locator(':scope > span').first();
    await expect(title).toHaveText('Interview with Sam Park');
    expect(await title.evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1), 'the title is not cut').toBe(true);
    await block(page, 'Interview with Sam Park').scrollIntoViewIfNeeded();
    await snap(page, info, '01-phone-week');

    // A finger drags it an hour later on the same day.
    await touchDrag(page, await path(page, block(page, 'Interview with Sam Park'), { dayIso: berlin(3, '10:00'), minutes: 60 }));
    await expect(column(page, berlin(3, '10:00')).getByRole('link', { name: /^Interview with Sam Park\s*, 11:00–12:00/ })).toBeVisible();
    expect((await owner.api('GET', `/v1/bookings/${booking.booking_id}`)).start).toBe(berlin(3, '11:00'));
    await expect(page.getByRole('dialog')).toBeHidden();

    // Onto Tuesday 14:00, where a lower-priority meeting is: the warning on screen; "Keep the time" puts it back.
    await touchDrag(page, await path(page, block(page, 'Interview with Sam Park'), { dayIso: berlin(2, '10:00'), minutes: 180 }));
    const ask = page.getByRole('dialog', { name: /^Move “Interview with Sam Park” to .*14:00–15:00\?$/ });
    await expect(ask).toBeVisible();
    const warning = ask.getByTestId('move-preempt-confirm');
    await expect(warning.getByText('Team sync')).toBeVisible();
    await expect(warning.getByRole('button', { name: 'Cancel and move' })).toBeInViewport();
    await view(page, info, '02-phone-bump-warning');
    await expectAccessible(page, 'phone: bump warning');
    await warning.getByRole('button', { name: 'Keep the time' }).click();
    await expect(ask).toBeHidden();
    await expect(page.getByTestId('week-ghost')).toHaveCount(0);
    await expect(column(page, berlin(3, '10:00')).getByRole('link', { name: /^Interview with Sam Park\s*, 11:00–12:00/ })).toBeVisible();
    expect((await owner.api('GET', `/v1/bookings/${booking.booking_id}`)).start).toBe(berlin(3, '11:00'));
    expect((await owner.api('GET', `/v1/bookings/${low.booking_id}`)).status).toBe('confirmed');
    await expectAccessible(page, 'phone week');
    await phone.close();
  });
});
