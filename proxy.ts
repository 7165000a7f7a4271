import { NextResponse, type NextRequest } from 'next/server';

/**
 * Dashboard pages without any Auth.js session cookie go straight to the
 * sign-in page, which returns to the page asked for. Only the cookie's
 * presence is checked here; the dashboard layout checks the session itself.
 */
export function proxy(req: NextRequest) {
  const has = req.cookies.has('next-auth.session-token') || req.cookies.has('__Secure-next-auth.session-token');
  if (has) return NextResponse.next();
  const url = req.nextUrl.clone();
  url.pathname = '/signin';
  url.search = `?${new URLSearchParams({ callbackUrl: req.nextUrl.pathname + req.nextUrl.search })}`;
  return NextResponse.redirect(url);
}

export const config = { matcher: ['/dashboard', '/dashboard/:path*'] };
