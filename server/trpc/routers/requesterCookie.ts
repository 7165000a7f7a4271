import { requestOrigin } from '@/server/request';

/**
 * The cookie that carries a requester credential for the public booking pages (HttpOnly: scripts never see it).
 *
 * Over https it is `SameSite=None; Secure; Partitioned`, so it works inside a frame on the
 * customer's own site too (docs/public-scheduling.md "Embedding"): a Lax cookie is never sent in a
 * cross-site frame, and a Partitioned (CHIPS) one is kept per top-level site, so a browser that
 * blocks third-party cookies still keeps it for that site's frames, and a key saved in one site's
 * frame is not sent under another's. Over plain http (development) browsers refuse
 * `SameSite=None` without `Secure`: `SameSite=Lax`, first-party pages only.
 */
const CREDENTIAL_COOKIE = 'requester_credential';
const MAX_AGE_SECONDS = 30 * 24 * 3600;

function attributes(req: Request): string {
  return requestOrigin(req).startsWith('https:') ? 'SameSite=None; Secure; Partitioned' : 'SameSite=Lax';
}

export function credentialCookie(credential: string, req: Request): string {
  return `${CREDENTIAL_COOKIE}=${encodeURIComponent(credential)}; Path=/; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; ${attributes(req)}`;
}

export function clearCredentialCookie(req: Request): string {
  return `${CREDENTIAL_COOKIE}=; Path=/; Max-Age=0; HttpOnly; ${attributes(req)}`;
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
