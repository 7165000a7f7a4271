import type { useTranslations } from 'next-intl';

/** The translator of the catalogue's `duration` messages (useTranslations('duration') or getTranslations('duration')). */
type DurationWords = ReturnType<typeof useTranslations<'duration'>>;
/** next-intl's list formatter (useFormatter().list or getFormatter().list). */
type ListFormat = (items: string[], options: Intl.ListFormatOptions) => string;

/** "30 minutes", "1 hour", "90 minutes" (ICU plurals in the page's language). */
export function minutesLabel(t: DurationWords, m: number): string {
  return m % 60 !== 0 ? t('minutes', { count: m }) : t('hours', { count: m / 60 });
}

/** "30 minutes or 1 hour", "15, 30 or 45 minutes": the language's own "or" list. */
export function minutesList(t: DurationWords, list: ListFormat, ms: number[]): string {
  return list(ms.map((m) => minutesLabel(t, m)), { type: 'disjunction' });
}
