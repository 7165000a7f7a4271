import { useLayoutEffect, useRef } from 'react';
import { useTranslations } from 'next-intl';
import { Card, CardContent } from '@/components/ui/card';
import { MailCheck } from '@/components/ui/icons';

/** `weeks`: a weekly request's number of meetings (docs/public-scheduling.md "Repeating weekly"). */
export type SubmittedInfo = { email: string; statusUrl: string; weeks?: number };

/** After a submission: the next step, in plain words. Focus moves to its heading, so a keyboard or screen-reader user goes on from here (not from the page's top). */
export function Submitted({ info, ownerName, booksInstantly = false }: { info: SubmittedInfo; ownerName: string | null; booksInstantly?: boolean }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const t = useTranslations('submitted');
  const next = booksInstantly ? 'instant' : 'review';
  // Before the browser paints: the form that had focus is gone, and focus must not rest on <body> meanwhile.
  useLayoutEffect(() => heading.current?.focus(), []);
  return (
    <Card role="status" aria-live="polite">
      <CardContent className="flex flex-col gap-3 pt-5 sm:pt-5">
        <h2 ref={heading} tabIndex={-1} className="flex items-center gap-2 text-lg font-semibold outline-none">
          <MailCheck className="size-5 text-ok" aria-hidden />
          {t('title')}
        </h2>
        <p>
          {ownerName
            ? t.rich('sent', { email: info.email, owner: ownerName, next, strong: (c) => <strong>{c}</strong> })
            : t.rich('sentAnon', { email: info.email, next, strong: (c) => <strong>{c}</strong> })}
        </p>
        {info.weeks && <p>{t('weekly', { count: info.weeks })}</p>}
        <p className="text-sm text-muted">{t('valid', { hours: 24 })}</p>
        <p>
          <a href={info.statusUrl}>{t('status')}</a>
        </p>
      </CardContent>
    </Card>
  );
}
