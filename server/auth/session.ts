import type { OwnerSession } from './ownerSession';

/**
 * The signed-in owner of a dashboard request, from the Auth.js (next-auth)
 * session cookie; null when nobody is signed in.
 */
export async function ownerSessionFromRequest(req: Request): Promise<OwnerSession | null> {
  const { readOwnerSession } = await import('./nextAuth');
  return readOwnerSession(req);
}
