import { NextResponse } from 'next/server';
import { getConfig } from '@/server/config';
import { publicBaseUrl } from '@/server/request';
import { failureOf, trpcForRequest } from '@/server/trpc/requestCaller';
import { FLOW_COOKIE, calendarsPage, flowCookieOptions } from '../../oauth-cookie';

/**
 * GET /dashboard/connections/connect/{google|microsoft}: start the OAuth
 * connect flow (calendars.oauthStart): the sealed state and PKCE verifier go
 * into an HTTP-only cookie for the callback, the browser to the provider.
 */
export async function GET(req: Request, { params }: { params: Promise<{ provider: string }> }) {
  const { provider } = await params;
  const base = publicBaseUrl(req, getConfig().publicBaseUrl);
  if (provider !== 'google' && provider !== 'microsoft') return NextResponse.redirect(calendarsPage(base, { error: 'unknown_provider' }), 303);
  try {
    const trpc = await trpcForRequest(req);
    const { authorization_url, flow } = await trpc.calendars.oauthStart({ provider, redirect_uri: `${base}/dashboard/connections/oauth/${provider}` });
    const res = NextResponse.redirect(authorization_url, 303);
    res.cookies.set(FLOW_COOKIE(provider), flow, flowCookieOptions(base));
    return res;
  } catch (err) {
    const f = failureOf(err);
    if (f.code === 'UNAUTHORIZED') return NextResponse.redirect(`${base}/signin?${new URLSearchParams({ callbackUrl: '/dashboard/connections' })}`, 303);
    return NextResponse.redirect(calendarsPage(base, { provider, error: oauthKind(f.details) }), 303);
  }
}

function oauthKind(details: unknown): string {
  return (details as { oauth?: string } | undefined)?.oauth ?? 'start_failed';
}
