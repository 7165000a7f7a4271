import { getDb } from '@/db/client';
import { getConfig } from '@/server/config';
import { sendMail, signInLinkMessage } from '@/server/domain/email';
import { ownerForSignInEmail } from '@/server/domain/signInLinks';
import { log } from '@/server/log';

/** How long an emailed sign-in link works (it also works only once). */
export const SIGN_IN_LINK_MINUTES = 15;

/**
 * Sign-in links go out over SMTP (SMTP_URL). Without SMTP, development
 * writes them to the server log to click; production does not offer them
 * (a log is no place for a key to an account).
 */
export function emailSignInEnabled(): boolean {
  const config = getConfig();
  return !!config.smtpUrl || !config.production;
}

/**
 * Auth.js asks for a link to `email`. The page answers "check your email"
 * whoever asks, so nobody learns which addresses are owners; the mail goes
 * only to an owner with dashboard access.
 */
export async function sendSignInLink(email: string, url: string): Promise<void> {
  const owner = await ownerForSignInEmail(await getDb(), email);
  if (!owner) {
    log.info('sign-in link not sent: no owner with dashboard access has this email', { email });
    return;
  }
  const result = await sendMail(signInLinkMessage(owner.email, url, SIGN_IN_LINK_MINUTES));
  if (result.delivered === false) throw new Error(`sign-in link could not be sent: ${result.error}`);
}
