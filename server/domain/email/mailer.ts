import nodemailer, { type Transporter } from 'nodemailer';
import SMTPTransport from 'nodemailer/lib/smtp-transport';
import { getConfig } from '@/server/config';
import { log } from '@/server/log';

/** One outgoing message (plain text; every link sits on its own line). */
export type MailMessage = { to: string; subject: string; text: string };

export type MailResult = { delivered: 'smtp' | 'log' } | { delivered: false; error: string };

/** Transports by SMTP URL (config is read per call, so tests may point SMTP_URL elsewhere). */
const transports = new Map<string, Transporter>();

function transportFor(smtpUrl: string): Transporter {
  let t = transports.get(smtpUrl);
  if (!t) {
    // Short timeouts: a mail server that hangs must not hold a request for minutes (the URL may override them).
    t = nodemailer.createTransport(new SMTPTransport({ url: smtpUrl, connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000 }));
    transports.set(smtpUrl, t);
  }
  return t;
}

/**
 * Send a message: over SMTP when SMTP_URL is configured, otherwise written to
 * the server log (development: the links are there to click). Never throws:
 * mail is a courtesy next to the state the caller already committed, so a
 * failure is logged and reported in the result.
 */
export async function sendMail(msg: MailMessage): Promise<MailResult> {
  const { smtpUrl, mailFrom } = getConfig();
  if (!smtpUrl) {
    log.info('mail (SMTP_URL not set; not sent)', { to: msg.to, subject: msg.subject, text: msg.text });
    return { delivered: 'log' };
  }
  try {
    await transportFor(smtpUrl).sendMail({ from: mailFrom, to: msg.to, subject: msg.subject, text: msg.text });
    return { delivered: 'smtp' };
  } catch (err) {
    log.error('mail delivery failed', { to: msg.to, subject: msg.subject, err });
    return { delivered: false, error: (err as Error).message };
  }
}

/** Close pooled SMTP connections (tests, shutdown). */
export function closeMailer(): void {
  for (const t of transports.values()) t.close();
  transports.clear();
}
