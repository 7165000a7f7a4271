import { createTranslator } from 'next-intl';
import { DEFAULT_LOCALE, direction, matchLocale, type Locale } from './locales';
import ar from '@/messages/ar/mail.json';
import de from '@/messages/de/mail.json';
import en from '@/messages/en/mail.json';
import es from '@/messages/es/mail.json';
import fr from '@/messages/fr/mail.json';
import it from '@/messages/it/mail.json';
import ja from '@/messages/ja/mail.json';
import nl from '@/messages/nl/mail.json';
import ptBR from '@/messages/pt-BR/mail.json';
import zhCN from '@/messages/zh-CN/mail.json';

/**
 * The requester's mails in their language (docs/public-scheduling.md "Languages"): the
 * catalogues messages/<locale>/mail.json, ICU messages through next-intl's translator as the
 * pages use it, all loaded with the server (they are small, and a mail is built synchronously).
 */
type MailMessages = typeof en;
const CATALOGUES: Record<Locale, MailMessages> = { en, de, fr, es, 'pt-BR': ptBR, it, nl, ja, 'zh-CN': zhCN, ar };

/** The language of a requester's mail: the one stored with their request (booking_proposals.requester_locale), else English. */
export function mailLocale(stored: string | null | undefined): Locale {
  return matchLocale(stored) ?? DEFAULT_LOCALE;
}

/** A translator of one namespace of the mail catalogue. */
export function mailTranslations<N extends keyof MailMessages>(namespace: N, locale: Locale) {
  return createTranslator({ locale, messages: CATALOGUES[locale], namespace });
}

/** The locale Intl writes a requester's dates and times in: en-US for English (as the owners' mails), else the language itself. */
export function mailIntlLocale(locale: Locale): string {
  return locale === DEFAULT_LOCALE ? 'en-US' : locale;
}

/** `<html lang dir>` of a mail's HTML body. */
export function mailDocumentAttributes(locale: Locale): { lang: string; dir: 'rtl' | 'ltr' } {
  return { lang: locale, dir: direction(locale) };
}
