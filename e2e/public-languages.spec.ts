import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect, test, type Browser, type TestInfo } from './test';
import { expectAccessible, publicLink, timeLabel, verificationMail, type PublicLink } from './publicFixtures';
import { baseUrls, PROJECT_ROOT } from './servers';

/**
 * The requester pages in other languages (docs/public-scheduling.md "Languages"): a requester
 * whose browser asks for German, Japanese or Arabic books through the public page in that
 * language (Arabic right to left), axe stays clean; the switcher's choice is remembered, and
 * `?lang=` wins over it; a link's default language speaks to a browser whose language we lack.
 */
const ZONE = 'Asia/Tokyo';

/** What each language's pages say at each step (from messages/<locale>/public.json), and its verification mail (mail.json). */
const WORDS = {
  de: { dir: 'ltr', choose: 'Termin auswählen', pick: 'Zeit wählen', details: 'Ihre Angaben', name: 'Ihr Name', email: 'Ihre E-Mail-Adresse', message: 'Nachricht (optional)', send: 'Anfrage senden', sent: 'Prüfen Sie Ihr E-Mail-Postfach', badge: 'Wartet auf Prüfung', zone: 'Ihre Zeitzone', mail: 'Bewahren Sie diesen Link auf' },
  ja: { dir: 'ltr', choose: 'ミーティングを選択', pick: '時間を選択', details: 'お客様情報', name: 'お名前', email: 'メールアドレス', message: 'メッセージ（任意）', send: 'リクエストを送信', sent: 'メールをご確認ください', badge: '確認待ち', zone: 'タイムゾーン', mail: 'このリンクは、リクエストの状況の確認や取り下げに使えますので保管してください' },
  ar: { dir: 'rtl', choose: 'اختر اجتماعًا', pick: 'اختر وقتًا', details: 'بياناتك', name: 'اسمك', email: 'بريدك الإلكتروني', message: 'رسالة (اختيارية)', send: 'إرسال الطلب', sent: 'تحقّق من بريدك الإلكتروني', badge: 'بانتظار المراجعة', zone: 'منطقتك الزمنية', mail: 'احتفظ بهذا الرابط' },
} as const;
type Lang = keyof typeof WORDS;

/** docs/ screenshots of the pages in a language (docs/public-scheduling.md "Languages"), refreshed with E2E_DOCS_SCREENSHOTS=1. */
const DOCS_SHOTS = process.env.E2E_DOCS_SCREENSHOTS === '1' ? path.join(PROJECT_ROOT, 'docs', 'images') : null;

async function bookIn(browser: Browser, link: PublicLink, lang: Lang, testInfo: TestInfo): Promise<void> {
  const w = WORDS[lang];
  const context = await browser.newContext({ baseURL: baseUrls[0], locale: lang, timezoneId: ZONE, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto(`/${link.alias}`);
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
  await expect(page.locator('html')).toHaveAttribute('dir', w.dir);
  await expect(page.getByRole('heading', { level: 2, name: w.choose })).toBeVisible();
  await expectAccessible(page, `${lang} link page`);

  await page.getByRole('link', { name: /Intro call/ }).click();
  await expect(page.getByRole('heading', { name: w.pick })).toBeVisible();
  await expect(page.getByLabel(w.zone)).toHaveValue(ZONE);
  const first = page.locator('button[data-start]').first();
  await expect(first).toBeVisible();
  const start = (await first.getAttribute('data-start'))!;
  // The time as the language writes it, in the requester's zone.
  expect(await first.textContent()).toBe(timeLabel(start, ZONE, lang));
  await expectAccessible(page, `${lang} meeting type page`);
  await page.screenshot({ path: testInfo.outputPath(`public-page-${lang}.png`) });
  if (DOCS_SHOTS) {
    fs.mkdirSync(DOCS_SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(DOCS_SHOTS, `public-page-${lang}.png`) });
  }

  await first.click();
  await expect(page.getByRole('heading', { name: w.details })).toBeFocused();
  const email = `lang-${lang}-${randomBytes(4).toString('hex')}@e2e.example`;
  await page.getByLabel(w.name).fill('Rhea');
  await page.getByLabel(w.email).fill(email);
  await page.getByLabel(w.message).fill('…');
  await expectAccessible(page, `${lang} request form`);
  await page.getByRole('button', { name: w.send }).click();
  await expect(page.getByRole('heading', { name: w.sent })).toBeFocused();

  const mail = await verificationMail(email);
  // The mail is in the page's language too (docs/public-scheduling.md "Languages").
  expect(mail.text).toContain(w.mail);
  const confirmed = await page.request.post(mail.verify, { headers: { accept: 'application/json' } });
  expect(confirmed.status(), await confirmed.text()).toBe(200);
  await page.goto(mail.status);
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
  await expect(page.locator('[data-status]')).toHaveAttribute('data-status', 'pending_review');
  await expect(page.getByText(w.badge, { exact: true })).toBeVisible();
  await expectAccessible(page, `${lang} status page`);
  expect(errors, 'browser errors').toEqual([]);
  await context.close();
}

test.describe('requester pages in other languages', () => {
  // A whole booking with axe at each step, on a loaded CI machine.
  test.setTimeout(240_000);
  test('Accept-Language picks the language of the HTML: German, with <html lang="de">', async ({ request }) => {
    const link = await publicLink(request, 'lang-curl');
    const de = await request.get(`${baseUrls[0]}/${link.alias}`, { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } });
    const html = await de.text();
    expect(html).toMatch(/<html lang="de" dir="ltr"/);
    expect(html).toContain('Termin auswählen');
    expect(html).not.toContain('Choose a meeting');
    expect(de.headers()['content-language']).toBe('de');
    // A language we do not have: English. The dashboard's sign-in page stays English for everyone.
    expect(await (await request.get(`${baseUrls[0]}/${link.alias}`, { headers: { 'accept-language': 'ko' } })).text()).toMatch(/<html lang="en" dir="ltr"/);
    expect(await (await request.get(`${baseUrls[0]}/signin`, { headers: { 'accept-language': 'de' } })).text()).toMatch(/<html lang="en"/);
  });

  for (const lang of Object.keys(WORDS) as Lang[]) {
    test(`a requester whose browser asks for ${lang} books through the public page in ${lang}`, async ({ browser, request }, testInfo) => {
      const link = await publicLink(request, `lang-${lang}`);
      await bookIn(browser, link, lang, testInfo);
    });
  }

  test("a link's default language: German for a browser whose language we lack (ko); an English browser still gets English", async ({ browser }) => {
    const korean = await browser.newContext({ baseURL: baseUrls[0], locale: 'ko-KR', timezoneId: ZONE });
    const page = await korean.newPage();
    const link = await publicLink(page.request, 'lang-default');
    const set = await page.request.patch(`${baseUrls[0]}/v1/public-scheduling/links/${link.linkId}`, { headers: { Authorization: `Bearer ${link.key}` }, data: { default_language: 'de' } });
    expect(set.status(), await set.text()).toBe(200);
    expect((await set.json()).default_language).toBe('de');
    await page.goto(`/${link.alias}`);
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect(page.getByRole('heading', { level: 2, name: WORDS.de.choose })).toBeVisible();
    await expectAccessible(page, 'link page in its default language');
    await page.goto(`/${link.alias}/${link.slug}`);
    await expect(page.getByRole('heading', { name: WORDS.de.pick })).toBeVisible();
    // The requester's own choice still wins over the link's default.
    await page.getByLabel('Sprache').selectOption('ja');
    await expect(page.getByRole('heading', { name: WORDS.ja.pick })).toBeVisible();
    await korean.close();

    const english = await browser.newContext({ baseURL: baseUrls[0], locale: 'en-US', timezoneId: ZONE });
    const en = await english.newPage();
    await en.goto(`/${link.alias}`);
    await expect(en.locator('html')).toHaveAttribute('lang', 'en');
    await expect(en.getByRole('heading', { level: 2, name: 'Choose a meeting' })).toBeVisible();
    await english.close();
  });

  test('the switcher is remembered across pages, and ?lang= overrides it', async ({ browser }) => {
    const context = await browser.newContext({ baseURL: baseUrls[0], locale: 'de-DE', timezoneId: ZONE });
    const page = await context.newPage();
    const link = await publicLink(page.request, 'lang-switch');
    await page.goto(`/${link.alias}`);
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await page.getByLabel('Sprache').selectOption('ar');
    await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
    await expect(page.getByRole('heading', { level: 2, name: WORDS.ar.choose })).toBeVisible();
    await expect(page.getByLabel('اللغة')).toHaveValue('ar');
    // Remembered: the next page is Arabic too, whatever the browser asks for.
    await page.goto(`/${link.alias}/${link.slug}`);
    await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
    await expect(page.getByRole('heading', { name: WORDS.ar.pick })).toBeVisible();
    // ?lang= wins over the cookie.
    await page.goto(`/${link.alias}/${link.slug}?lang=ja`);
    await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
    await expect(page.getByRole('heading', { name: WORDS.ja.pick })).toBeVisible();
    // A 404 of the booking pages speaks the language too.
    await page.goto(`/${link.alias}-missing-${randomBytes(2).toString('hex')}?lang=de`);
    await expect(page.getByRole('heading', { name: 'Diese Seite gibt es nicht' })).toBeVisible();
    await context.close();
  });
});
