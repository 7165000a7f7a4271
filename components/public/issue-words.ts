'use client';

import { useTranslations } from 'next-intl';
import type { IssueWords } from '@/components/ui/form';

/**
 * The requester forms' validation messages in the page's language (docs/public-scheduling.md
 * "Languages"): the few issues their fields can have (an empty field, an address that is not
 * one, text too long); anything else keeps components/ui/plain-errors.ts's words.
 */
export function useIssueWords(): IssueWords {
  const t = useTranslations('errors');
  return (issue, input) => {
    // A message the form wrote itself in the page's language (e.g. the weeks of "Repeat weekly").
    if (issue.code === 'custom' && issue.message) return issue.message;
    const empty = input === undefined || input === null || (typeof input === 'string' && input.trim() === '');
    if (issue.code === 'too_small' && issue.origin === 'string') return issue.path[0] === 'message' ? t('aboutWhat') : t('required');
    if (issue.code === 'too_big' && issue.origin === 'string') return t('tooLong', { max: Number(issue.maximum) });
    if (issue.code === 'invalid_format' && issue.format === 'email') return empty ? t('required') : t('email');
    if (issue.code === 'invalid_type' && empty) return t('required');
    return t('invalid');
  };
}
