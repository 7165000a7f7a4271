'use client';

import { useId } from 'react';
import { useLocale, useTranslations } from 'next-intl';
import { usePathname } from 'next/navigation';
import { Languages } from '@/components/ui/icons';
import { isLocale, isRequesterPath, localeCookies, LOCALE_NAMES, LOCALES } from '@/i18n/locales';

/**
 * The requester pages' language (docs/public-scheduling.md "Languages"): a native select
 * in the header. Choosing one remembers it in a cookie (the one proxy.ts sets for `?lang=`; over
 * https it also works inside a frame on a customer's site) and loads the page again in it
 * (a `?lang=` in the address is dropped, or it would win). Without JavaScript the form
 * sends `?lang=`, which the proxy remembers the same way. Each language is named in
 * itself, marked with its own `lang`.
 */
export function LanguageSwitcher() {
  const t = useTranslations('language');
  const locale = useLocale();
  const id = useId();
  // The owners' sign-in page shares the frame but stays English (i18n/locales.ts isRequesterPath).
  if (!isRequesterPath(usePathname() ?? '/')) return null;
  return (
    <form method="get" className="ms-auto flex items-center gap-1.5 text-sm">
      <Languages className="size-4 text-muted" aria-hidden />
      <label htmlFor={id} className="sr-only">
        {t('label')}
      </label>
      <select
        id={id}
        name="lang"
        defaultValue={locale}
        className="h-8 rounded-md border border-line bg-surface px-1.5 text-sm text-fg"
        onChange={(e) => {
          if (!isLocale(e.target.value)) return;
          for (const c of localeCookies(e.target.value, window.location.protocol === 'https:')) document.cookie = c;
          const url = new URL(window.location.href);
          url.searchParams.delete('lang');
          window.location.assign(url.toString());
        }}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LOCALE_NAMES[l]}
          </option>
        ))}
      </select>
      <noscript>
        <button type="submit" className="h-8 rounded-md border border-line bg-surface px-2">
          {t('apply')}
        </button>
      </noscript>
    </form>
  );
}
