/**
 * The client address. Our server (scripts/serve.mjs) overwrites
 * X-Forwarded-For with the socket's address unless TRUST_PROXY is set, in
 * which case a proxy in front is trusted to have set it; either way the first
 * entry is the client.
 */
export function clientIpOf(req: Request, _trustProxy: boolean): string {
  const xff = req.headers.get('x-forwarded-for');
  const first = xff?.split(',')[0]?.trim();
  return first || 'unknown';
}

/** `{base_url}` for URLs handed to requesters: PUBLIC_BASE_URL, else the request's origin. */
export function publicBaseUrl(req: Request, configured: string | undefined): string {
  if (configured) return configured.replace(/\/+$/, '');
  return new URL(req.url).origin;
}
