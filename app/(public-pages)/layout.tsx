import type { ReactNode } from 'react';
import { NextIntlClientProvider } from 'next-intl';
import { getMessages } from 'next-intl/server';
import { PublicShell } from '@/components/layout/public-shell';
import { EmbedSlot } from './embed-slot';
import { LanguageSwitcher } from '@/components/public/language-switcher';

/**
 * Pages for people without an account: requesters' booking pages and the owners' sign-in page.
 * The requester's language (docs/public-scheduling.md "Languages"): the one catalogue of the
 * request's locale goes to the browser with the page, for its client components.
 */
export default async function PublicLayout({ children }: { children: ReactNode }) {
  // What only the server writes (titles, the verification page) stays on the server.
  const { meta: _meta, verify: _verify, ...forTheBrowser } = await getMessages();
  return (
    <NextIntlClientProvider messages={forTheBrowser}>
      <PublicShell actions={<LanguageSwitcher />}>
        {children}
        <EmbedSlot />
      </PublicShell>
    </NextIntlClientProvider>
  );
}
