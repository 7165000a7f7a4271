import type { Locale } from './locales';
import type { Messages } from './messages';

// Typed keys and arguments for useTranslations/getTranslations (next-intl's AppConfig).
declare module 'next-intl' {
  interface AppConfig {
    Locale: Locale;
    Messages: Messages;
  }
}
