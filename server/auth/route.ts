import NextAuth from 'next-auth';
import { cookies } from 'next/headers';
import { NextRequest } from 'next/server';
import { getConfig, prepareAuthEnvironment } from '@/server/config';
import { escapeHtml } from '@/server/http/pages/contactVerification';
import { requestOrigin } from '@/server/request';
import { authOptions, sameOriginUrl } from './nextAuth';
import { SIGN_IN_THROTTLED, withSignInAttempt, type SignInThrottled } from './signInThrottle';

type AuthRouteContext = { params: Promise<{ nextauth: string[] }> };

const CALLBACK_COOKIES = ['next-auth.callback-url', '__Secure-next-auth.callback-url'];

/**
 * /api/auth/* (Auth.js). Around next-auth's own handler:
 * - a `callbackUrl` (query or cookie) that is not a URL on this service's own
 *   origin is dropped before next-auth sees it, which then falls back to the
 *   base URL (next-auth answers 500 to an unparseable one such as `http://x:y`;
 *   a body `callbackUrl` goes through the `redirect` callback, which does the same);
 * - a credentials attempt refused by the sign-in throttle answers 429 with
 *   Retry-After and a clear message (server/auth/signInThrottle.ts).
 */
export async function authRoute(req: NextRequest, ctx: AuthRouteContext): Promise<Response> {
  prepareAuthEnvironment();
  // The base Auth.js builds its URLs from: NEXTAUTH_URL, else the origin the request reached.
  const authUrl = getConfig().authUrl ?? `${requestOrigin(req)}/api/auth`;
  const request = await withSafeCallbackUrl(req, authUrl);
  const { result, throttled } = await withSignInAttempt<Response>(() => NextAuth(authOptions())(request, ctx));
  return throttled ? throttledResponse(result, throttled, authUrl) : result;
}

async function withSafeCallbackUrl(req: NextRequest, authUrl: string): Promise<NextRequest> {
  const jar = await cookies();
  for (const name of CALLBACK_COOKIES) {
    const value = jar.get(name)?.value;
    if (value && !sameOriginUrl(value, authUrl)) jar.delete(name); // next-auth reads cookies through next/headers
  }
  const callbackUrl = req.nextUrl.searchParams.get('callbackUrl');
  if (callbackUrl === null || sameOriginUrl(callbackUrl, authUrl)) return req;
  const url = new URL(req.nextUrl.href);
  url.searchParams.delete('callbackUrl');
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.text();
  return new NextRequest(url, { method: req.method, headers: req.headers, body });
}

async function throttledResponse(res: Response, throttled: SignInThrottled, authUrl: string): Promise<Response> {
  const seconds = throttled.retryAfterSeconds;
  const message = `Too many sign-in attempts for this account or from this address. Try again in ${seconds} seconds.`;
  const headers = new Headers(res.headers); // keeps next-auth's cookies
  headers.delete('location');
  headers.set('cache-control', 'no-store');
  for (const [k, v] of Object.entries(throttled.headers)) headers.set(k, v);
  if (res.headers.get('content-type')?.includes('application/json')) {
    // next-auth's client (`signIn(..., { redirect: false })`) reads `url` and its `error` parameter.
    const url = `${authUrl}/error?error=${SIGN_IN_THROTTLED}`;
    return new Response(JSON.stringify({ url, error: SIGN_IN_THROTTLED, message, retry_after: seconds }), { status: 429, headers });
  }
  headers.set('content-type', 'text/html; charset=utf-8');
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many sign-in attempts</title></head>` +
    `<body><main><h1>Too many sign-in attempts</h1><p>${escapeHtml(message)}</p>` +
    `<p><a href="${escapeHtml(`${authUrl}/signin`)}">Back to sign in</a></p></main></body></html>`;
  return new Response(html, { status: 429, headers });
}
