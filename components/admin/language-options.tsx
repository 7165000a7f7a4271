'use client';

import type { ComponentProps } from 'react';
import { Select } from '@/components/ui';
import { LOCALE_NAMES, LOCALES } from '@/i18n/locales';

/** A link's default language (docs/public-scheduling.md "Languages"): none (English), or one of the requester pages' languages, each named in itself. */
export function LanguageChoices() {
  return (
    <>
      <option value="">None: English unless the browser asks for another</option>
      {LOCALES.map((l) => (
        <option key={l} value={l} lang={l}>
          {LOCALE_NAMES[l]}
        </option>
      ))}
    </>
  );
}

/** The default-language select of the new-link form. */
export function LanguageOptions(props: ComponentProps<typeof Select>) {
  return (
    <Select {...props}>
      <LanguageChoices />
    </Select>
  );
}
