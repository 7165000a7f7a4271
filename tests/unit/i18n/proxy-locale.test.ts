import { describe, expect, it } from 'vitest';
import { NextRequest, NextResponse } from 'next/server';
import { applyRequesterLocale } from '@/i18n/proxyLocale';
import { LOCALE_COOKIE, LOCALE_HEADER } from '@/i18n/locales';
import { requestOrigin } from '@/server/request';

/** proxy.ts's share of the languages (i18n/proxyLocale.ts; docs/public-scheduling.md "Languages"). */
function run(url: string, headers: Record<string, string> = {}, linkDefault: string | null = null) {
  const req = new NextRequest(new URL(url, 'http://127.0.0.1'), { headers });
  const forward = new Headers(req.headers);
  // https as proxy.ts reads it (the request's origin, X-Forwarded-Proto behind a TLS-terminating proxy)
  const finish = applyRequesterLocale(req, forward, linkDefault, requestOrigin(req).startsWith('https:'));
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
    expect(q.res.headers.getSetCookie()).toEqual([`${LOCALE_COOKIE}=ar; Path=/; Max-Age=31536000; SameSite=Lax`]);
    expect(q.res.headers.get('content-language')).toBe('ar');
    expect(q.res.headers.get('vary')).toContain('Accept-Language');
    // Nothing to remember without ?lang=, or when it is already remembered.
    expect(run('/ada', { 'accept-language': 'fr' }).res.headers.get('set-cookie')).toBeNull();
    expect(run('/ada?lang=ja', { cookie: `${LOCALE_COOKIE}=ja` }).res.headers.get('set-cookie')).toBeNull();
    expect(run('/ada?lang=xx', { 'accept-language': 'es' }).locale).toBe('es');
  });

  it("then the link's default language, before English; a supported Accept-Language still wins", () => {
    expect(run('/ada', { 'accept-language': 'ko' }, 'de').locale).toBe('de');
    expect(run('/ada/intro', {}, 'de').locale).toBe('de');
    expect(run('/ada', { 'accept-language': 'en-US,en;q=0.9' }, 'de').locale).toBe('en');
    expect(run('/ada', { 'accept-language': 'ko', cookie: `${LOCALE_COOKIE}=fr` }, 'de').locale).toBe('fr');
    expect(run('/ada?lang=ja', { 'accept-language': 'ko' }, 'de').locale).toBe('ja');
    expect(run('/ada', { 'accept-language': 'ko' }, null).locale).toBe('en');
    expect(run('/dashboard', { 'accept-language': 'ko' }, 'de').locale).toBeNull();
  });

  it('over https a remembered ?lang= is a cookie that also works inside a frame (SameSite=None; Secure; Partitioned)', () => {
    const framed = run('https://scheduler.example/ada?lang=de', { 'sec-fetch-dest': 'iframe' });
    // an unpartitioned cookie kept from before is cleared, so only the new one is sent
    expect(framed.res.headers.getSetCookie()).toEqual([`${LOCALE_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`, `${LOCALE_COOKIE}=de; Path=/; Max-Age=31536000; SameSite=None; Secure; Partitioned`]);
    // behind a TLS-terminating proxy (x-forwarded-proto), as the credential cookie decides
    const proxied = run('/ada?lang=fr', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'scheduler.example' });
    expect(proxied.res.headers.getSetCookie().at(-1)).toMatch(/^requester_lang=fr; .*; SameSite=None; Secure; Partitioned$/);
  });

  it('leaves the dashboard and sign-in English, and drops a client\'s own header', () => {
    for (const path of ['/dashboard', '/signin', '/']) {
      const r = run(path, { 'accept-language': 'de', [LOCALE_HEADER]: 'ar' });
      expect(r.locale, path).toBeNull();
      expect(r.res.headers.get('content-language'), path).toBeNull();
    }
  });
});
