import { mailIntlLocale, mailTranslations } from '@/i18n/mail';
import type { Locale } from '@/i18n/locales';
import { requesterMail, requesterRange, type MailMessage } from '../email';
import { invitationIcs, UNTITLED, type InvitationInput } from './invitationIcs';
import { videoProviderName } from './videoLinks';

type Mailed = InvitationInput & { method: 'REQUEST' | 'CANCEL' };

/** The booking's title as the reader's language says it: an untitled booking is "Besprechung", "会議". */
function titleIn(i: Mailed, locale: Locale): string {
  const t = mailTranslations('mailIcs', locale);
  return i.title === UNTITLED ? t('meeting') : i.title;
}

/**
 * The mail of an invitation or cancellation to one attendee (docs/calendars.md "Invitations"):
 * the time in their zone, named; the ICS attached. A public requester reads it in the language
 * of their request (docs/public-scheduling.md "Languages"), everyone else in English.
 */
export function invitationMail(mailed: Mailed, to: string, timeZone: string, content = invitationIcs(mailed), locale: Locale = 'en'): MailMessage {
  const t = mailTranslations('mailInvite', locale);
  const i = { ...mailed, title: titleIn(mailed, locale) };
  const when = requesterRange(i, timeZone, locale);
  const by = t('organizer', { kind: !i.organizer ? 'none' : i.organizer.name ? 'named' : 'address', name: i.organizer?.name ?? '', email: i.organizer?.email ?? '' });
  const where = [...(i.location ? [t('where', { location: i.location })] : []), ...(i.video ? [t('join', { provider: videoProviderName(i.video.provider), url: i.video.url })] : [])];
  const reason = i.reason ? [t('reason', { reason: i.reason })] : [];
  const kind = i.method === 'CANCEL' ? 'cancel' : i.update ? 'update' : 'invite';
  // A series' own invitation (docs/calendars.md "Series invitations"): how often, from when to when; its cancel is the whole series'.
  const series = i.series;
  const day = (d: Date) => new Intl.DateTimeFormat(mailIntlLocale(locale), { dateStyle: 'medium', timeZone }).format(d);
  const repeats = series?.rrule && series.occurrences ? [t('repeats', { count: series.occurrences.count, first: day(i.start), last: day(series.occurrences.last) })] : [];
  const lines =
    kind === 'cancel'
      ? [series && !series.recurrenceId ? t('seriesCancelled', { title: i.title }) : t('cancelled', { title: i.title, when }), ...reason]
      : kind === 'update'
        ? [t('updated', { by, title: i.title }), t('when', { when }), ...repeats, ...where, ...reason, '', t('replaces')]
        : [t('invited', { by, title: i.title }), t('when', { when }), ...repeats, ...where, '', t('adds')];
  return { ...requesterMail(to, t('subject', { kind, title: i.title }), lines, locale), icalEvent: { method: i.method, content } };
}

/**
 * The requester's own copy of the invitation in a language but English: its SUMMARY names the
 * meeting as their booking pages do ("Intro call mit Bea Berlin"), its DESCRIPTION the time in
 * their language and zone; same UID and SEQUENCE as everyone's. English keeps the shared file.
 */
export function requesterInvitationIcs(i: Mailed, timeZone: string, locale: Locale, build: (i: InvitationInput) => string = invitationIcs): string {
  const t = mailTranslations('mailIcs', locale);
  const owner = i.organizer?.name ?? '';
  const title = t('summary', { owned: owner ? 'yes' : 'no', owner, title: titleIn(i, locale) });
  const description = t('description', { cancelled: i.method === 'CANCEL' ? 'yes' : 'no', when: requesterRange(i, timeZone, locale) });
  return build({ ...i, title, description });
}
