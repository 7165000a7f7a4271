import type { NextRequest, NextResponse } from 'next/server';
import { isRequesterPath, LOCALE_COOKIE, LOCALE_HEADER, matchLocale, resolveLocale } from './locales';

/** A year: the switcher's choice outlives a visit. */
const COOKIE_MAX_AGE = 365 * 24 * 3600;

/**
 * proxy.ts's share of the languages (docs/public-scheduling.md "Languages"): on a requester
 * page, the request carries the chosen locale to the page (LOCALE_HEADER, read by
 * i18n/request.ts); a valid `?lang=` is also remembered in the cookie, like the switcher's
 * choice, so the pages it leads to keep the language. Other pages get no header (English).
 */
export function applyRequesterLocale(req: NextRequest, requestHeaders: Headers): (res: NextResponse) => void {
  if (!isRequesterPath(req.nextUrl.pathname)) {
    requestHeaders.delete(LOCALE_HEADER); // never the client's own
    return () => undefined;
  }
  const query = req.nextUrl.searchParams.get('lang');
  const locale = resolveLocale({ query, cookie: req.cookies.get(LOCALE_COOKIE)?.value, acceptLanguage: req.headers.get('accept-language') });
  requestHeaders.set(LOCALE_HEADER, locale);
  return (res) => {
    res.headers.set('content-language', locale);
    res.headers.append('vary', 'Accept-Language, Cookie');
    if (matchLocale(query) && req.cookies.get(LOCALE_COOKIE)?.value !== locale) {
      res.cookies.set(LOCALE_COOKIE, locale, { path: '/', maxAge: COOKIE_MAX_AGE, sameSite: 'lax' });
    }
  };
}
