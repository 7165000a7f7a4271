'use client';

import { useTranslations } from 'next-intl';
import type { ErrorWords } from '@/components/layout/error-message';

/** The error page's words in the requester's language (app/(public-pages)/error.tsx). */
export function useErrorWords(digest: string | undefined): ErrorWords {
  const t = useTranslations('error');
  const reference = t.rich('reference', { digest: digest ?? '', code: (c) => <code className="font-mono">{c}</code> });
  return { label: t('label'), title: t('title'), text: t('text'), retry: t('retry'), reference };
}
