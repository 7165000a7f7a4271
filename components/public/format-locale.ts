'use client';

import { useSyncExternalStore } from 'react';
import { useLocale } from 'next-intl';
import { formattingLocale } from '@/i18n/locales';

const never = () => () => undefined;

/**
 * The locale the requester pages write dates and times in (components/ui/time-format.ts):
 * the page's language, in the browser's regional variant of it when it has one
 * (i18n/locales.ts formattingLocale). The page's language on the server.
 */
export function useFormatLocale(): string {
  const locale = useLocale();
  return useSyncExternalStore(never, () => formattingLocale(locale, navigator.languages ?? [navigator.language]), () => locale);
}
