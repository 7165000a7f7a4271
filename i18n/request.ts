import { headers } from 'next/headers';
import { getRequestConfig } from 'next-intl/server';
import { DEFAULT_LOCALE, isLocale, LOCALE_HEADER } from './locales';
import { loadMessages } from './messages';

/**
 * next-intl's per-request configuration, without locale routing: the locale proxy.ts chose for
 * a requester page (i18n/proxyLocale.ts), else English (the dashboard, the landing page).
 * Only that locale's catalogue is loaded, and only it reaches the browser
 * (app/(public-pages)/layout.tsx).
 */
export default getRequestConfig(async () => {
  const chosen = (await headers()).get(LOCALE_HEADER);
  const locale = isLocale(chosen) ? chosen : DEFAULT_LOCALE;
  // Times are formatted by components/ui/time-format.ts in the requester's own zone, never by next-intl.
  return { locale, messages: await loadMessages(locale), timeZone: 'UTC' };
});
