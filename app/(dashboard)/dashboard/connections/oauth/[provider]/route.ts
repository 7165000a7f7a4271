import { NextResponse } from 'next/server';
import { getConfig } from '@/server/config';
import { publicBaseUrl } from '@/server/request';
import { failureOf, trpcForRequest } from '@/server/trpc/requestCaller';
import { FLOW_COOKIE, calendarsPage, flowCookieOptions } from '../../oauth-cookie';

/**
 * GET /dashboard/connections/oauth/{google|microsoft}?code&state: the
 * provider's redirect back (calendars.oauthFinish). The flow cookie is
 * checked and removed whatever happens; the browser returns to the
 * calendars page with `connected=<calendar id>` or `error=<kind>`
 * (the page words each kind; no provider text is reflected from the URL).
 */
export async function GET(req: Request, { params }: { params: Promise<{ provider: string }> }) {
  const { provider } = await params;
  const base = publicBaseUrl(req, getConfig().publicBaseUrl);
  if (provider !== 'google' && provider !== 'microsoft') return NextResponse.redirect(calendarsPage(base, { error: 'unknown_provider' }), 303);
  const q = new URL(req.url).searchParams;
  const flow = cookieValue(req.headers.get('cookie'), FLOW_COOKIE(provider));
  let target: string;
  try {
    const trpc = await trpcForRequest(req);
    const calendar = await trpc.calendars.oauthFinish({
      provider,
      flow,
      code: q.get('code'),
      state: q.get('state'),
      error: q.get('error')?.slice(0, 200),
      error_description: q.get('error_description')?.slice(0, 2000),
    });
    target = calendarsPage(base, { provider, connected: calendar.calendar_id });
  } catch (err) {
    const f = failureOf(err);
    if (f.code === 'UNAUTHORIZED') target = `${base}/signin?${new URLSearchParams({ callbackUrl: '/dashboard/connections' })}`;
    else target = calendarsPage(base, { provider, error: (f.details as { oauth?: string } | undefined)?.oauth ?? 'connect_failed' });
  }
  const res = NextResponse.redirect(target, 303);
  res.cookies.set(FLOW_COOKIE(provider), '', { ...flowCookieOptions(base), maxAge: 0 });
  return res;
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return undefined;
}
