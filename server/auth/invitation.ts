import { createHash, randomBytes } from 'node:crypto';
import type { Executor } from '@/db/client';
import { getConfig, prepareAuthEnvironment } from '@/server/config';
import { ownerInvitationMessage, sendMail } from '@/server/domain/email';
import { DomainError } from '@/server/domain/errors';
import { storeSignInToken } from '@/server/domain/signInLinks';
import { requestOrigin } from '@/server/request';
import { authSecret } from './secret';
import { emailSignInEnabled } from './signInLink';

/** How long an invitation's sign-in link works (it also works only once). */
const INVITATION_LINK_HOURS = 72;

/**
 * Email an invited owner a sign-in link (docs/dashboard.md "Owners"): the
 * same kind of link as "email me a sign-in link" on the sign-in page, made
 * the way Auth.js's email provider makes it (a random token, stored hashed
 * with the auth secret in verification_tokens, used once through
 * /api/auth/callback/email), but valid for INVITATION_LINK_HOURS and landing
 * on the dashboard. The owner must already have dashboard access
 * (`inviteOwner`), or Auth.js refuses the link.
 */
export async function sendOwnerInvitation(
  db: Executor,
  req: Request,
  invite: { email: string; ownerName: string | null; invitedBy: string; customerName?: string | null },
  now: Date,
): Promise<{ sent_to: string; expires_at: string }> {
  if (!emailSignInEnabled()) {
    throw new DomainError('invalid_request', 'Invitations need mail: set SMTP_URL so sign-in links can be sent');
  }
  prepareAuthEnvironment();
  const origin = requestOrigin(req);
  const authUrl = (getConfig().authUrl ?? `${origin}/api/auth`).replace(/\/+$/, '');
  const token = randomBytes(32).toString('hex');
  const expires = new Date(now.getTime() + INVITATION_LINK_HOURS * 3_600_000);
  // Auth.js's hashToken: sha256(token + secret).
  await storeSignInToken(db, { identifier: invite.email, token: createHash('sha256').update(`${token}${authSecret()}`).digest('hex'), expires }, now);
  const callbackUrl = `${new URL(authUrl).origin}/dashboard`;
  const url = `${authUrl}/callback/email?${new URLSearchParams({ callbackUrl, token, email: invite.email })}`;
  const result = await sendMail(ownerInvitationMessage(invite.email, url, { hours: INVITATION_LINK_HOURS, ownerName: invite.ownerName, invitedBy: invite.invitedBy }));
  if (result.delivered === false) throw new DomainError('invalid_request', `The invitation could not be sent: ${result.error}`);
  return { sent_to: invite.email, expires_at: expires.toISOString() };
}
