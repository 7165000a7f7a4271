import { describe, expect, it } from 'vitest';
import { NextRequest, NextResponse } from 'next/server';
import { applyRequesterLocale } from '@/i18n/proxyLocale';
import { LOCALE_COOKIE, LOCALE_HEADER } from '@/i18n/locales';

/** proxy.ts's share of the languages (i18n/proxyLocale.ts; docs/public-scheduling.md "Languages"). */
function run(url: string, headers: Record<string, string> = {}) {
  const req = new NextRequest(new URL(url, 'http://127.0.0.1'), { headers });
  const forward = new Headers(req.headers);
  const finish = applyRequesterLocale(req, forward);
  const res = NextResponse.next();
  finish(res);
  return { locale: forward.get(LOCALE_HEADER), res };
}

describe('the proxy picks a requester page\'s language', () => {
  it('from Accept-Language, then the cookie, then ?lang= (which is remembered)', () => {
    expect(run('/ada', { 'accept-language': 'de-DE,de;q=0.9' }).locale).toBe('de');
    expect(run('/ada', { 'accept-language': 'de', cookie: `${LOCALE_COOKIE}=ja` }).locale).toBe('ja');
    const q = run('/ada/intro?lang=ar', { 'accept-language': 'de', cookie: `${LOCALE_COOKIE}=ja` });
    expect(q.locale).toBe('ar');
    expect(q.res.cookies.get(LOCALE_COOKIE)?.value).toBe('ar');
    expect(q.res.headers.get('content-language')).toBe('ar');
    expect(q.res.headers.get('vary')).toContain('Accept-Language');
    // Nothing to remember without ?lang=, or when it is already remembered.
    expect(run('/ada', { 'accept-language': 'fr' }).res.cookies.get(LOCALE_COOKIE)).toBeUndefined();
    expect(run('/ada?lang=ja', { cookie: `${LOCALE_COOKIE}=ja` }).res.cookies.get(LOCALE_COOKIE)).toBeUndefined();
    expect(run('/ada?lang=xx', { 'accept-language': 'es' }).locale).toBe('es');
  });

  it('leaves the dashboard and sign-in English, and drops a client\'s own header', () => {
    for (const path of ['/dashboard', '/signin', '/']) {
      const r = run(path, { 'accept-language': 'de', [LOCALE_HEADER]: 'ar' });
      expect(r.locale, path).toBeNull();
      expect(r.res.headers.get('content-language'), path).toBeNull();
    }
  });
});
