import { requestOrigin } from '@/server/request';

/** The cookie that carries a requester credential for the public booking pages (HttpOnly: scripts never see it). */
export const CREDENTIAL_COOKIE = 'requester_credential';
const MAX_AGE_SECONDS = 30 * 24 * 3600;

function secure(req: Request): string {
  return requestOrigin(req).startsWith('https:') ? '; Secure' : '';
}

export function credentialCookie(credential: string, req: Request): string {
  return `${CREDENTIAL_COOKIE}=${encodeURIComponent(credential)}; Path=/; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${secure(req)}`;
}

export function clearCredentialCookie(req: Request): string {
  return `${CREDENTIAL_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure(req)}`;
}

/** The saved credential in a request's Cookie header, or null. */
export function credentialFromCookies(headers: Headers): string | null {
  for (const part of (headers.get('cookie') ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === CREDENTIAL_COOKIE) {
      try {
        const value = decodeURIComponent(part.slice(i + 1).trim());
        return value ? value : null;
      } catch {
        return null;
      }
    }
  }
  return null;
}
