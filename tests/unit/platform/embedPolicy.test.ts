import { describe, expect, it } from 'vitest';
import { allowedHostOrigin, tokenOf } from '@/components/public/embed-events';
import { domainSources, embedTarget } from '@/server/http/frameAncestors';
import { pageContentSecurityPolicy } from '@/server/http/securityHeaders';
import { clearCredentialCookie, credentialCookie } from '@/server/trpc/routers/requesterCookie';
import { LOCALE_COOKIE, localeCookie, localeCookies } from '@/i18n/locales';

/** docs/public-scheduling.md "Embedding": which pages may be framed, by whom, and the cookie inside a frame. */
describe('embedding: the pieces without a database', () => {
  it('only booking pages and status pages are looked up; app routes, files and deeper paths never', () => {
    expect(embedTarget('/ada-lovelace')).toEqual({ alias: 'ada-lovelace' });
    expect(embedTarget('/Ada-Lovelace/intro')).toEqual({ alias: 'ada-lovelace' });
    expect(embedTarget('/status/pbt_abc')).toEqual({ token: 'pbt_abc' });
    expect(embedTarget('/public/booking-proposals/pbt_abc')).toEqual({ token: 'pbt_abc' });
    for (const p of ['/', '/dashboard', '/dashboard/admin', '/signin', '/signin/check-email', '/docs', '/embed.js', '/ada-lovelace/llms.txt', '/ada/intro/more', '/a', '/public/schedules/x']) {
      expect(embedTarget(p), p).toBeNull();
    }
  });

  it('a verified domain frames over https on any port; over http only while the service itself is on http', () => {
    expect(domainSources(['acme.example'], true)).toEqual(['https://acme.example:*']);
    expect(domainSources(['acme.example', 'b.example'], false)).toEqual(['https://acme.example:*', 'http://acme.example:*', 'https://b.example:*', 'http://b.example:*']);
  });

  it("the page policy: frame-ancestors 'none' unless told, else 'self' and the sources; the rest unchanged", () => {
    const none = pageContentSecurityPolicy('n0nce', false);
    expect(none).toContain("frame-ancestors 'none'");
    const framed = pageContentSecurityPolicy('n0nce', false, ['https://acme.example:*']);
    expect(framed).toContain("frame-ancestors 'self' https://acme.example:*");
    expect(framed).not.toContain("'none'; frame");
    expect(pageContentSecurityPolicy('n0nce', false, [])).toContain("frame-ancestors 'self'");
    expect(framed.replace(/frame-ancestors[^;]*/, '')).toBe(none.replace(/frame-ancestors[^;]*/, ''));
  });

  it('the page in the frame talks only to this origin or a verified domain', () => {
    const self = 'https://scheduler.example';
    expect(allowedHostOrigin(self, self, [])).toBe(true);
    expect(allowedHostOrigin('https://acme.example', self, ['acme.example'])).toBe(true);
    expect(allowedHostOrigin('https://acme.example:8443', self, ['acme.example'])).toBe(true);
    expect(allowedHostOrigin('http://acme.example', self, ['acme.example'])).toBe(false);
    expect(allowedHostOrigin('https://www.acme.example', self, ['acme.example'])).toBe(false);
    expect(allowedHostOrigin('https://evil.example', self, ['acme.example'])).toBe(false);
    expect(allowedHostOrigin('null', self, ['acme.example'])).toBe(false);
    expect(allowedHostOrigin('http://localhost:4000', 'http://127.0.0.1:3000', ['localhost'])).toBe(true);
    expect(tokenOf('https://scheduler.example/public/booking-proposals/pbt_x1?a=b')).toBe('pbt_x1');
  });

  it('the credential cookie works in a cross-site frame over https (None, Secure, Partitioned); Lax over http', () => {
    const https = new Request('https://scheduler.example/api/trpc');
    const http = new Request('http://127.0.0.1:3000/api/trpc');
    expect(credentialCookie('rc_x', https)).toMatch(/; HttpOnly; SameSite=None; Secure; Partitioned$/);
    expect(clearCredentialCookie(https)).toMatch(/Max-Age=0; HttpOnly; SameSite=None; Secure; Partitioned$/);
    expect(credentialCookie('rc_x', http)).toMatch(/; HttpOnly; SameSite=Lax$/);
  });

  it('the language cookie follows the same rule, so a switcher choice inside a frame is kept (readable by the page: no HttpOnly)', () => {
    expect(localeCookie('de', true)).toBe(`${LOCALE_COOKIE}=de; Path=/; Max-Age=31536000; SameSite=None; Secure; Partitioned`);
    expect(localeCookie('pt-BR', false)).toBe(`${LOCALE_COOKIE}=pt-BR; Path=/; Max-Age=31536000; SameSite=Lax`);
    const attributes = (cookie: string) => cookie.split('; ').slice(3).join('; ');
    expect(attributes(localeCookie('ar', true))).toBe(attributes(credentialCookie('rc_x', new Request('https://scheduler.example/api/trpc'))).replace('HttpOnly; ', ''));
    // what the switcher and the proxy write: over https, an unpartitioned cookie from before is cleared first
    expect(localeCookies('ja', true)).toEqual([`${LOCALE_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`, localeCookie('ja', true)]);
    expect(localeCookies('ja', false)).toEqual([localeCookie('ja', false)]);
  });
});
