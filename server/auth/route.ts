import NextAuth from 'next-auth';
import { getConfig, prepareAuthEnvironment } from '@/server/config';
import { escapeHtml } from '@/server/html';
import { clientIpOf, requestOrigin } from '@/server/request';
import { authOptions, cookiesOf, sameOriginUrl } from './nextAuth';
import { SIGN_IN_THROTTLED, withSignInAttempt, type SignInThrottled } from './signInThrottle';

type AuthRouteContext = { params: Promise<{ nextauth: string[] }> };

const CALLBACK_COOKIES = ['next-auth.callback-url', '__Secure-next-auth.callback-url'];

/**
 * /api/auth/* (Auth.js). Around next-auth's own handler:
 * - a `callbackUrl` (query or cookie) that is not a URL on this service's own
 *   origin is dropped before next-auth sees it, which then falls back to the
 *   base URL (next-auth answers 500 to an unparseable one such as `http://x:y`;
 *   a body `callbackUrl` goes through the `redirect` callback, which does the same);
 * - a sign-in attempt (password or link request) refused by the sign-in
 *   throttle answers 429 with Retry-After and a clear message
 *   (server/auth/signInThrottle.ts); a link's mail is sent after the answer.
 *
 * next-auth is handed the request's parts directly (its API-route form) rather
 * than through `next/headers`, so this handler needs no Next.js request scope
 * and runs in-process in tests like every other route.
 */
export async function authRoute(req: Request, ctx: AuthRouteContext): Promise<Response> {
  prepareAuthEnvironment();
  // The base Auth.js builds its URLs from: NEXTAUTH_URL, else the origin the request reached.
  const authUrl = getConfig().authUrl ?? `${requestOrigin(req)}/api/auth`;
  const { nextauth } = await ctx.params;
  const query: Record<string, string | string[]> = Object.fromEntries(new URL(req.url).searchParams);
  if (typeof query.callbackUrl === 'string' && !sameOriginUrl(query.callbackUrl, authUrl)) delete query.callbackUrl;
  const cookies = cookiesOf(req);
  for (const name of CALLBACK_COOKIES) if (cookies[name] && !sameOriginUrl(cookies[name], authUrl)) delete cookies[name];
  const apiReq = { method: req.method, query: { ...query, nextauth }, cookies, headers: Object.fromEntries(req.headers), body: await bodyOf(req) };
  const { result, throttled } = await withSignInAttempt(clientIpOf(req, getConfig().trustProxy), async () => {
    const res = new CollectedResponse();
    await NextAuth(apiReq as never, res as never, authOptions({ userAgent: req.headers.get('user-agent') }));
    return res.toResponse();
  });
  return throttled ? throttledResponse(result, throttled, authUrl) : result;
}

/** What next-auth reads from a POST body: JSON or a form (as its app-router handler does). */
async function bodyOf(req: Request): Promise<Record<string, unknown> | undefined> {
  if (req.method !== 'POST' || !req.body) return undefined;
  const type = req.headers.get('content-type') ?? '';
  if (type.includes('application/json')) return (await req.json()) as Record<string, unknown>;
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(await req.text()));
  return undefined;
}

/** The part of a Next.js API response next-auth writes to, collected into a fetch Response. */
class CollectedResponse {
  private code = 200;
  private readonly headers = new Headers();
  private body: string | undefined;
  status(code: number): this {
    this.code = code;
    return this;
  }
  setHeader(name: string, value: string | string[]): this {
    this.headers.delete(name);
    for (const v of Array.isArray(value) ? value : [value]) this.headers.append(name, v);
    return this;
  }
  getHeader(name: string): string | string[] | undefined {
    if (name.toLowerCase() === 'set-cookie') return this.headers.getSetCookie();
    return this.headers.get(name) ?? undefined;
  }
  json(value: unknown): void {
    this.headers.set('content-type', 'application/json');
    this.body = JSON.stringify(value);
  }
  send(value: unknown): void {
    if (typeof value === 'string' || value === undefined) this.body = value;
    else {
      if (!this.headers.has('content-type')) this.headers.set('content-type', 'application/json');
      this.body = JSON.stringify(value);
    }
  }
  end(): void {}
  toResponse(): Response {
    const bodyless = this.code === 204 || this.code === 304 || (this.code >= 300 && this.code < 400 && this.body === undefined);
    return new Response(bodyless ? null : (this.body ?? ''), { status: this.code, headers: this.headers });
  }
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
