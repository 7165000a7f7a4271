import { mailDocumentAttributes, mailIntlLocale, mailTranslations } from '@/i18n/mail';
import type { Locale } from '@/i18n/locales';
import type { MailMessage } from './mailer';
import { mailRange, type MeetingSummary } from './messages';

/**
 * The mails a requester receives, in the language of their request (docs/public-scheduling.md
 * "Languages"): every sentence one ICU message of messages/<locale>/mail.json, the times
 * written by Intl in that language and the reader's zone. English reads as it always did.
 */
type Span = { start: Date; end: Date };

/** A span in the reader's zone and language, the zone named: "Dienstag, 1. Dezember 2026, 10:30–11:00 MEZ (Europe/Berlin)". */
export function requesterRange(span: Span, timeZone: string, locale: Locale): string {
  const t = mailTranslations('mailCommon', locale);
  return t('when', mailRange(span.start, span.end, timeZone, mailIntlLocale(locale)));
}

/** The meeting's words: its title, with whom, and when (each left out when unknown). */
function meetingWords(m: MeetingSummary, locale: Locale): string {
  const when = m.start && m.end ? requesterRange({ start: m.start, end: m.end }, m.timeZone, locale) : '';
  const t = mailTranslations('mailCommon', locale);
  return t('meeting', { ...titled(m), timed: when ? 'yes' : 'no', when });
}

function titled(m: Pick<MeetingSummary, 'title' | 'ownerName'>): { titled: string; title: string; owned: string; owner: string } {
  return { titled: m.title ? 'yes' : 'no', title: m.title ?? '', owned: m.ownerName ? 'yes' : 'no', owner: m.ownerName ?? '' };
}

/** A weekly series' meetings, one line each after a heading ("Every week, 6 meetings:"); nothing for one meeting. */
function weekLines(m: MeetingSummary, locale: Locale): string[] {
  if (!m.weeks?.length) return [];
  const t = mailTranslations('mailCommon', locale);
  return ['', t('weekly', { count: m.weeks.length }), ...m.weeks.map((w) => `- ${requesterRange(w, m.timeZone, locale)}`)];
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A requester's mail: the plain text, and, in any language but English, an HTML alternative
 * carrying the language and its direction (`<html lang="ar" dir="rtl">`), so right-to-left
 * text is laid out as such; a line that is a link is a link.
 */
export function requesterMail(to: string, subject: string, lines: string[], locale: Locale): MailMessage {
  const text = lines.join('\n');
  if (locale === 'en') return { to, subject, text };
  const { lang, dir } = mailDocumentAttributes(locale);
  const body = lines
    .map((l) => (l === '' ? '' : /^https?:\/\/\S+$/.test(l) ? `<p><a href="${escapeHtml(l)}" dir="ltr">${escapeHtml(l)}</a></p>` : `<p>${escapeHtml(l)}</p>`))
    .join('\n');
  const html = `<!doctype html>\n<html lang="${lang}" dir="${dir}">\n<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body lang="${lang}" dir="${dir}">\n${body}\n</body>\n</html>\n`;
  return { to, subject, text, html };
}

/** How long the confirm link of a contact verification works, in hours (docs/public-scheduling.md). */
const VERIFICATION_HOURS = 24;

/** Contact verification: the confirm link, and the status link to keep. */
export function contactVerificationMessage(to: string, m: MeetingSummary, urls: { verificationUrl: string; statusUrl: string }, locale: Locale = 'en'): MailMessage {
  const t = mailTranslations('mailVerify', locale);
  return requesterMail(
    to,
    t('subject'),
    [t('asked', { meeting: meetingWords(m, locale) }), ...weekLines(m, locale), '', t('open', { hours: VERIFICATION_HOURS }), urls.verificationUrl, '', t('keep'), urls.statusUrl, '', t('ignore')],
    locale,
  );
}

/** The owner's decision. The status link is not repeated: only its hash is stored (see docs/public-scheduling.md). */
export function proposalOutcomeMessage(
  to: string,
  m: MeetingSummary,
  outcome: { status: 'booked' | 'declined'; reason?: string | null; location?: string | null; video?: string | null },
  locale: Locale = 'en',
): MailMessage {
  const t = mailTranslations('mailOutcome', locale);
  const meeting = meetingWords(m, locale);
  if (outcome.status === 'booked') {
    return requesterMail(
      to,
      t('bookedSubject'),
      [
        t('booked', { meeting }),
        ...weekLines(m, locale),
        ...(outcome.location ? ['', t('where', { location: outcome.location })] : []),
        ...(outcome.video ? ['', t('join', { video: outcome.video })] : []),
        '',
        t('bookedStatus'),
      ],
      locale,
    );
  }
  return requesterMail(to, t('declinedSubject'), [t('declined', { meeting }), ...(outcome.reason ? ['', t('reason', { reason: outcome.reason })] : []), '', t('declinedStatus')], locale);
}

/**
 * The owner's decision on a requester's request to move their booked meeting
 * (docs/public-scheduling.md "Asking to move"), in the requester's zone: moved (from the old
 * time to the new one) or declined (the meeting stays at its time).
 */
export function moveOutcomeMessage(to: string, m: MeetingSummary, outcome: { status: 'booked' | 'declined'; reason?: string | null; from: Span }, locale: Locale = 'en'): MailMessage {
  const t = mailTranslations('mailMove', locale);
  const was = requesterRange(outcome.from, m.timeZone, locale);
  const when = m.start && m.end ? requesterRange({ start: m.start, end: m.end }, m.timeZone, locale) : '';
  const timed = when ? 'yes' : 'no';
  if (outcome.status === 'booked') {
    return requesterMail(to, t('movedSubject'), [t('moved', titled(m)), '', t('newTime', { timed, when }), t('was', { was }), '', t('movedStatus')], locale);
  }
  return requesterMail(
    to,
    t('declinedSubject'),
    [t('declined', { ...titled(m), timed, when }), ...(outcome.reason ? ['', t('reason', { reason: outcome.reason })] : []), '', t('stays', { was })],
    locale,
  );
}

/**
 * A reminder's offset in words: "30 minutes", "24 hours", "1 day 2 hours" (each unit an ICU
 * plural, the units joined by Intl's unit list of the language).
 */
function offsetWords(minutes: number, locale: Locale): string {
  const t = mailTranslations('mailReminder', locale);
  if (minutes < 60) return t('minutes', { count: minutes });
  if (minutes % 60 === 0 && minutes <= 48 * 60) return t('hours', { count: minutes / 60 });
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const parts = [...(days ? [t('days', { count: days })] : []), ...(hours ? [t('hours', { count: hours })] : []), ...(mins ? [t('minutes', { count: mins })] : [])];
  return new Intl.ListFormat(mailIntlLocale(locale), { type: 'unit', style: 'narrow' }).format(parts);
}

/** A reminder to one attendee (docs/reliability.md "Reminders"): the meeting's time in their zone, named; a requester's in their language. */
export function reminderMessage(to: string, m: MeetingSummary & { start: Date; end: Date; offsetMinutes: number; location?: string | null }, locale: Locale = 'en'): MailMessage {
  const t = mailTranslations('mailReminder', locale);
  const offset = offsetWords(m.offsetMinutes, locale);
  return requesterMail(
    to,
    t('subject', { titled: m.title ? 'yes' : 'no', title: m.title ?? '', offset }),
    [t('starts', { ...titled(m), offset }), requesterRange(m, m.timeZone, locale), ...(m.location ? ['', t('where', { location: m.location })] : [])],
    locale,
  );
}
