import { mailTranslations } from '@/i18n/mail';
import type { Locale } from '@/i18n/locales';
import type { MailMessage } from './mailer';
import { requesterMail, requesterRange } from './requesterMessages';

/**
 * A requester's waitlist mails (docs/public-scheduling.md "Waitlist"), in the language of the
 * booking pages they joined on and the zone those pages showed times in: the join (with the
 * entry's page, where they leave) and the offer (the same page, where they confirm or decline
 * the held time before the hold ends).
 */
type WaitlistSummary = { title: string; ownerName: string | null; timeZone: string };
type Span = { start: Date; end: Date };

/** "You are on the waitlist for ... between ... and ...": the page link to leave it. */
export function waitlistJoinedMessage(to: string, m: WaitlistSummary & { window: Span }, pageUrl: string, locale: Locale): MailMessage {
  const t = mailTranslations('mailWaitlist', locale);
  const window = requesterRange(m.window, m.timeZone, locale);
  return requesterMail(
    to,
    t('joinedSubject', { title: m.title }),
    [t('joined', { title: m.title, owned: m.ownerName ? 'yes' : 'no', owner: m.ownerName ?? '', window }), '', t('leave'), pageUrl, '', t('ignore')],
    locale,
  );
}

/** "A time freed up and is held for you until ...": the page link to confirm or decline. */
export function waitlistOfferMessage(to: string, m: WaitlistSummary & { offer: Span; expiresAt: Date }, pageUrl: string, locale: Locale): MailMessage {
  const t = mailTranslations('mailWaitlist', locale);
  const when = requesterRange(m.offer, m.timeZone, locale);
  const until = requesterRange({ start: m.expiresAt, end: m.expiresAt }, m.timeZone, locale);
  return requesterMail(
    to,
    t('offerSubject', { title: m.title }),
    [t('offer', { title: m.title, owned: m.ownerName ? 'yes' : 'no', owner: m.ownerName ?? '', when }), '', t('confirm', { until }), pageUrl, '', t('lapse')],
    locale,
  );
}
