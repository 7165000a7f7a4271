import { NextResponse, type NextRequest } from 'next/server';
import { getConfig } from '@/server/config';
import { pageRequestId } from '@/server/http/requestId';
import { publicBaseUrl, requestOrigin } from '@/server/request';
import { frameAncestorsFor, linkDefaultLanguageFor } from '@/server/http/frameAncestors';
import { EMBED_DOMAINS_HEADER } from '@/server/http/embedHeader';
import { EMBEDDABLE_PAGE_HEADERS, newNonce, PAGE_HEADERS, pageContentSecurityPolicy } from '@/server/http/securityHeaders';
import { applyRequesterLocale } from '@/i18n/proxyLocale';

/**
 * Runs before every page (see `config.matcher`; the JSON APIs and static
 * files skip it):
 *
 * - Content-Security-Policy with a fresh nonce, set on the request (Next.js
 *   reads the nonce from it and puts it on its scripts) and on the answer,
 *   plus X-Frame-Options (docs/reliability.md "Headers"). Booking and status
 *   pages may be framed by the link's customer's verified domains
 *   (docs/public-scheduling.md "Embedding"); the page reads those names from
 *   a request header set here (a client's own copy is dropped).
 * - X-Request-Id on every page's answer: the client's when well-formed, else the trace id when
 *   tracing (then also recorded on the page's request span), else a fresh id
 *   (docs/operations.md "Traces").
 * - Requester pages get their language (i18n/proxyLocale.ts; docs/public-scheduling.md "Languages"),
 *   with the shown link's default language from the same cached look-up as its framers.
 * - Dashboard pages without any Auth.js session cookie go straight to the
 *   sign-in page, which returns to the page asked for. Only the cookie's
 *   presence is checked here; the dashboard layout checks the session itself.
 */
export async function proxy(req: NextRequest) {
  const { pathname } = req.nextUrl;
  if (pathname === '/dashboard' || pathname.startsWith('/dashboard/')) {
    const has = req.cookies.has('next-auth.session-token') || req.cookies.has('__Secure-next-auth.session-token');
    if (!has) {
      const url = req.nextUrl.clone();
      url.pathname = '/signin';
      url.search = `?${new URLSearchParams({ callbackUrl: pathname + req.nextUrl.search })}`;
      const redirect = NextResponse.redirect(url);
      redirect.headers.set('x-request-id', pageRequestId(req));
      return redirect;
    }
  }
  const config = getConfig();
  const framers = await frameAncestorsFor(pathname, publicBaseUrl(req, config.publicBaseUrl).startsWith('https:'));
  const policy = pageContentSecurityPolicy(newNonce(), config.development, framers?.sources ?? null);
  const requestHeaders = new Headers(req.headers);
  requestHeaders.set('content-security-policy', policy);
  requestHeaders.delete(EMBED_DOMAINS_HEADER);
  if (framers) requestHeaders.set(EMBED_DOMAINS_HEADER, framers.domains.join(','));
  const withLocale = applyRequesterLocale(req, requestHeaders, await linkDefaultLanguageFor(pathname), requestOrigin(req).startsWith('https:'));
  const res = NextResponse.next({ request: { headers: requestHeaders } });
  withLocale(res);
  res.headers.set('content-security-policy', policy);
  res.headers.set('x-request-id', pageRequestId(req));
  for (const [name, value] of Object.entries(framers ? EMBEDDABLE_PAGE_HEADERS : PAGE_HEADERS)) res.headers.set(name, value);
  return res;
}

export const config = {
  matcher: [
    // Every path but the JSON APIs (/v1, /public, /api, /mcp), /metrics, the API reference (app/docs/api sets
    // its own policy) and Next's static files. A new page needs no entry here.
    '/((?!(?:v1|public|api|mcp|metrics|docs/api|_next/static|_next/image)(?:/|$)|icon\\.svg$|favicon\\.ico$).*)',
    // status_url opened in a browser: rewritten to the status page (next.config.mjs).
    { source: '/public/booking-proposals/:token', has: [{ type: 'header', key: 'accept', value: '.*text/html.*' }] },
  ],
};
