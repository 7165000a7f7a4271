/**
 * Where the sign-in page returns to: a path on this site (one leading
 * slash, no scheme or host, no backslash tricks), else the inbox.
 */
export function dashboardReturnPath(raw: unknown): string {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return '/dashboard';
  if (/[\u0000-\u001f]/.test(raw)) return '/dashboard';
  return raw;
}
