import { createTranslator } from 'next-intl';
import { LOCALE_COOKIE, resolveLocale, type Locale } from './locales';
import { loadMessages, type Messages } from './messages';

/**
 * The requester's language for an answer written outside the React pages (the contact
 * verification page, server/http/pages/contactVerification.ts; a submission through the pages):
 * `?lang=`, the switcher's cookie, then Accept-Language, then the link's default when known, as
 * proxy.ts chooses it for the pages.
 */
export function requestLocale(req: Request, linkDefault: string | null = null): Locale {
  const url = new URL(req.url);
  const cookie = new RegExp(`(?:^|;\\s*)${LOCALE_COOKIE}=([^;]*)`).exec(req.headers.get('cookie') ?? '')?.[1];
  return resolveLocale({ query: url.searchParams.get('lang'), cookie: cookie ?? null, acceptLanguage: req.headers.get('accept-language'), linkDefault });
}

/** A translator of one namespace of the requester catalogue (messages/<locale>/public.json), for server-written text. */
export async function requesterTranslations<N extends keyof Messages>(namespace: N, locale: Locale) {
  return createTranslator({ locale, messages: await loadMessages(locale), namespace });
}
