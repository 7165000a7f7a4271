import { withClientSpan } from '@/server/observability/tracing';
import nodemailer, { type Transporter } from 'nodemailer';
import SMTPTransport from 'nodemailer/lib/smtp-transport';
import { getConfig, type Config } from '@/server/config';
import { log } from '@/server/log';
import { metrics } from '@/server/observability/metrics';

/** One outgoing message (plain text; every link sits on its own line). */
export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  /** The same text as HTML, with its language and direction (a requester's mail in a language but English; docs/public-scheduling.md "Languages"). */
  html?: string;
  /** A calendar invitation (iCalendar text, METHOD:REQUEST or CANCEL), sent as the text/calendar alternative. */
  icalEvent?: { method: 'REQUEST' | 'CANCEL'; content: string };
  /** A Message-ID of the caller's (a reminder's is derived from the reminder and reader, so a resend after a crash is recognisably the same mail). */
  messageId?: string;
};

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

type MailLogConfig = Pick<Config, 'smtpUrl' | 'production' | 'mailLogLinks'>;

/**
 * Without SMTP_URL mail goes to the log. Its links carry live tokens (contact
 * verification, proposal status), so they are printed in development and, in
 * production, only with MAIL_LOG_LINKS=1 (docs/operations.md "Mail").
 */
export function mailLinksLogged(config: Pick<MailLogConfig, 'production' | 'mailLogLinks'>): boolean {
  return !config.production || config.mailLogLinks;
}

const LINK = /\bhttps?:\/\/\S+/g;
const WITHHELD_LINK = '[link withheld: set MAIL_LOG_LINKS=1 to log it]';

/** What the start-up log says about mail delivery. */
export function mailSetupNotice(config: MailLogConfig): { level: 'info' | 'warn'; msg: string } {
  if (config.smtpUrl) return { level: 'info', msg: 'mail: sent over SMTP (SMTP_URL)' };
  if (!config.production) return { level: 'info', msg: 'mail: SMTP_URL not set; messages go to the log, links included (development)' };
  if (config.mailLogLinks) return { level: 'warn', msg: 'mail: SMTP_URL not set; messages go to the log WITH their live links (MAIL_LOG_LINKS=1)' };
  return { level: 'warn', msg: 'mail: SMTP_URL not set; messages are not sent and their links are withheld from the log (set SMTP_URL, or MAIL_LOG_LINKS=1 to log them)' };
}

/**
 * Send a message: over SMTP when SMTP_URL is configured, otherwise written to
 * the server log (development: the links are there to click; production: the
 * links are withheld unless MAIL_LOG_LINKS=1). Never throws: mail is a
 * courtesy next to the state the caller already committed, so a failure is
 * logged and reported in the result.
 */
export async function sendMail(msg: MailMessage): Promise<MailResult> {
  const config = getConfig();
  const { smtpUrl, mailFrom } = config;
  if (!smtpUrl) {
    const text = mailLinksLogged(config) ? msg.text : msg.text.replace(LINK, WITHHELD_LINK);
    // Under `npm run dev` the links keep their tokens so they can be followed; elsewhere the
    // logger censors the tokens (docs/operations.md "Mail").
    log.infoForDeveloper('mail (SMTP_URL not set; not sent)', { to: msg.to, subject: msg.subject }, { text }, config.development);
    metrics().mail.inc({ outcome: 'logged' });
    return { delivered: 'log' };
  }
  try {
    // Its span: the SMTP server's host and port, never an address or the credentials (docs/operations.md "Traces").
    await withClientSpan('smtp send', smtpAttributes(smtpUrl), () => transportFor(smtpUrl).sendMail({
      from: mailFrom,
      to: msg.to,
      subject: msg.subject,
      text: msg.text,
      ...(msg.html ? { html: msg.html } : {}),
      ...(msg.messageId ? { messageId: msg.messageId } : {}),
      // The invitation twice, as calendar clients expect: the text/calendar alternative (Outlook, Gmail's
      // inline card) and an invite.ics attachment (Apple Mail, clients that only import files).
      ...(msg.icalEvent
        ? {
            icalEvent: { method: msg.icalEvent.method, content: msg.icalEvent.content, filename: 'invite.ics' },
            attachments: [{ filename: 'invite.ics', content: msg.icalEvent.content, contentType: `application/ics; method=${msg.icalEvent.method}` }],
          }
        : {}),
    }));
    metrics().mail.inc({ outcome: 'sent' });
    return { delivered: 'smtp' };
  } catch (err) {
    log.error('mail delivery failed', { to: msg.to, subject: msg.subject, err });
    metrics().mail.inc({ outcome: 'failed' });
    return { delivered: false, error: (err as Error).message };
  }
}

function smtpAttributes(smtpUrl: string): Record<string, string | number> {
  try {
    const u = new URL(smtpUrl);
    return { 'server.address': u.hostname, 'server.port': Number(u.port || (u.protocol === 'smtps:' ? 465 : 587)) };
  } catch {
    return {};
  }
}

/** Close pooled SMTP connections (tests, shutdown). */
export function closeMailer(): void {
  for (const t of transports.values()) t.close();
  transports.clear();
}
