import { getDb } from '@/server/db';
import { getConfig } from '@/server/config';
import { sendMail, signInLinkMessage } from '@/server/domain/email';
import { ownerForSignInEmail } from '@/server/domain/signInLinks';
import { log } from '@/server/log';
import { afterAnswer } from './signInThrottle';

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

/** Link mails queued and not yet sent (or failed). */
const pending = new Set<Promise<void>>();

/**
 * What Auth.js's email provider calls: the mail goes out after the request
 * has been answered (server/auth/signInThrottle.ts `afterAnswer`), so the
 * answer, its timing, and an SMTP failure look the same whether or not the
 * address is an owner's ("check your email"); a failed mail is logged.
 */
export async function queueSignInLink(email: string, url: string): Promise<void> {
  afterAnswer(() => {
    const sending = sendSignInLink(email, url)
      .catch((err: unknown) => log.error('sign-in link not sent', { email, err }))
      .finally(() => pending.delete(sending));
    pending.add(sending);
    return sending;
  });
}

/** Settles once every link mail queued so far has been sent or has failed (tests, shutdown). */
export async function signInLinksSettled(): Promise<void> {
  while (pending.size) await Promise.allSettled([...pending]);
}
