import type { Locale } from './locales';
import type en from '@/messages/en/public.json';

export type Messages = typeof en;

/** One locale's page catalogue (messages/<locale>/public.json), loaded on demand: a page holds only its own language. */
export async function loadMessages(locale: Locale): Promise<Messages> {
  return (await import(`../messages/${locale}/public.json`)).default as Messages;
}
