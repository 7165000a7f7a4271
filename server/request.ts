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

/**
 * The origin the client addressed. Next builds `req.url` from the server's
 * own hostname (localhost), so the Host the client used comes from
 * X-Forwarded-Host/-Proto, which Next sets from the connection (and
 * scripts/serve.mjs drops client-sent copies unless TRUST_PROXY).
 * Set PUBLIC_BASE_URL in production so links never depend on a Host header.
 */
export function requestOrigin(req: Request): string {
  const host = req.headers.get('x-forwarded-host')?.split(',')[0]?.trim() || req.headers.get('host');
  const proto = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() || new URL(req.url).protocol.replace(':', '');
  if (host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) && (proto === 'http' || proto === 'https')) return `${proto}://${host}`;
  return new URL(req.url).origin;
}

/** `{base_url}` for URLs handed to requesters: PUBLIC_BASE_URL, else the request's origin. */
export function publicBaseUrl(req: Request, configured: string | undefined): string {
  if (configured) return configured.replace(/\/+$/, '');
  return requestOrigin(req);
}
