import type { NextRequest, NextResponse } from 'next/server';
import { isRequesterPath, LOCALE_COOKIE, LOCALE_HEADER, localeCookies, matchLocale, resolveLocale } from './locales';

/**
 * proxy.ts's share of the languages (docs/public-scheduling.md "Languages"): on a requester
 * page, the request carries the chosen locale to the page (LOCALE_HEADER, read by
 * i18n/request.ts); `linkDefault` is the default language of the link the page shows (proxy.ts
 * reads it from its cached look-up, server/http/frameAncestors.ts), weaker than the request's own
 * choice. A valid `?lang=` is also remembered in the cookie, like the switcher's choice, so the
 * pages it leads to keep the language (`secure`: the request came over https, as proxy.ts reads it, so
 * the cookie also works in a frame, i18n/locales.ts localeCookies). Other pages get no header (English).
 */
export function applyRequesterLocale(req: NextRequest, requestHeaders: Headers, linkDefault: string | null, secure: boolean): (res: NextResponse) => void {
  if (!isRequesterPath(req.nextUrl.pathname)) {
    requestHeaders.delete(LOCALE_HEADER); // never the client's own
    return () => undefined;
  }
  const query = req.nextUrl.searchParams.get('lang');
  const cookie = req.cookies.get(LOCALE_COOKIE)?.value;
  const locale = resolveLocale({ query, cookie, acceptLanguage: req.headers.get('accept-language'), linkDefault });
  requestHeaders.set(LOCALE_HEADER, locale);
  return (res) => {
    res.headers.set('content-language', locale);
    res.headers.append('vary', 'Accept-Language, Cookie');
    if (!matchLocale(query) || cookie === locale) return;
    for (const c of localeCookies(locale, secure)) res.headers.append('set-cookie', c);
  };
}
