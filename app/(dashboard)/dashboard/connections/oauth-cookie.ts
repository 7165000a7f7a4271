/** The OAuth connect flow's cookie (one per provider) and the calendars page's result address. */
export const FLOW_COOKIE = (provider: string) => `calendar_oauth_${provider}`;

/**
 * HTTP-only, only sent to the callback path, SameSite=Lax (the provider's
 * redirect back is a top-level navigation from another site), Secure on
 * https, gone after 10 minutes like the flow itself.
 */
export function flowCookieOptions(base: string) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: base.startsWith('https:'), path: '/dashboard/connections/oauth', maxAge: 600 };
}

export function calendarsPage(base: string, q: Record<string, string>): string {
  return `${base}/dashboard/connections?${new URLSearchParams(q)}`;
}
