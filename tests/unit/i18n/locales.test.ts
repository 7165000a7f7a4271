import { describe, expect, it } from 'vitest';
import { direction, formattingLocale, fromAcceptLanguage, isRequesterPath, matchLocale, resolveLocale } from '@/i18n/locales';
import { formatCalendarDate, formatLongDay, formatViewerClock, formatViewerSlot, zoneName } from '@/components/ui/time-format';

describe('choosing the requester pages\' language (i18n/locales.ts)', () => {
  it('matches a tag exactly, then by its language; traditional Chinese is not answered with simplified', () => {
    expect(matchLocale('de-AT')).toBe('de');
    expect(matchLocale('PT-pt')).toBe('pt-BR');
    expect(matchLocale('zh-Hans-SG')).toBe('zh-CN');
    expect(matchLocale('zh-TW')).toBeUndefined();
    expect(matchLocale('ko')).toBeUndefined();
    expect(matchLocale('<script>')).toBeUndefined();
  });
  it('reads Accept-Language by q-value, skipping what it does not have', () => {
    expect(fromAcceptLanguage('ko;q=1, ja;q=0.8, de;q=0.9')).toBe('de');
    expect(fromAcceptLanguage('fr-CA,fr;q=0.9,en;q=0.5')).toBe('fr');
    expect(fromAcceptLanguage('*, ar;q=0')).toBeUndefined();
    expect(fromAcceptLanguage(undefined)).toBeUndefined();
  });
  it('?lang= beats the cookie, which beats Accept-Language, which beats the link\'s default; English last', () => {
    expect(resolveLocale({ query: 'ja', cookie: 'de', acceptLanguage: 'fr' })).toBe('ja');
    expect(resolveLocale({ query: 'xx', cookie: 'de', acceptLanguage: 'fr' })).toBe('de');
    expect(resolveLocale({ acceptLanguage: 'fr', linkDefault: 'it' })).toBe('fr');
    expect(resolveLocale({ acceptLanguage: 'ko', linkDefault: 'it' })).toBe('it');
    expect(resolveLocale({})).toBe('en');
  });
  it('writes Arabic right to left, and leaves the dashboard, sign-in and docs English', () => {
    expect(direction('ar')).toBe('rtl');
    expect(direction('ja')).toBe('ltr');
    expect(isRequesterPath('/ada')).toBe(true);
    expect(isRequesterPath('/public/booking-proposals/tok')).toBe(true);
    for (const p of ['/', '/dashboard', '/dashboard/calendar', '/signin', '/docs/agents']) expect(isRequesterPath(p), p).toBe(false);
  });
  it('writes dates in the browser\'s own variant of the page\'s language', () => {
    expect(formattingLocale('en', ['en-GB', 'de'])).toBe('en-GB');
    expect(formattingLocale('de', ['en-GB', 'de-CH'])).toBe('de-CH');
    expect(formattingLocale('ja', ['en-US'])).toBe('ja');
  });
});

describe('the viewer functions of components/ui/time-format.ts take the page\'s locale', () => {
  const start = '2026-12-02T13:30:00Z';
  const end = '2026-12-02T14:00:00Z';
  it('formats days, clocks, ranges and zones in that locale', () => {
    expect(formatLongDay(start, 'Europe/Berlin', 'de')).toBe('Mittwoch, 2. Dezember');
    expect(formatViewerClock(start, 'Europe/Berlin', 'de')).toBe('14:30');
    expect(formatViewerClock(start, 'Europe/Berlin', 'en-US')).toMatch(/^2:30\sPM$/);
    expect(formatViewerSlot(start, end, 'Europe/Berlin', 'de')).toBe('Mittwoch, 2. Dezember, 14:30 – 15:00');
    expect(formatViewerSlot(start, end, 'Asia/Tokyo', 'ja')).toContain('22:30 – 23:00');
    expect(zoneName('Asia/Tokyo', new Date(start), 'ja')).toBe('日本標準時');
    expect(formatCalendarDate('2026-12-04', 'fr')).toBe('vendredi 4 décembre 2026');
    expect(formatLongDay(start, 'Asia/Riyadh', 'ar')).toMatch(/ديسمبر/);
  });
});
