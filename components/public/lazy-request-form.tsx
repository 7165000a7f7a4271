'use client';

import { lazy, Suspense, type ComponentProps } from 'react';
import { useTranslations } from 'next-intl';
import { preloadApi } from './api';

/**
 * The request form (react-hook-form and the zod schemas) loads when it is
 * needed, not with the page: a requester first looks at times, and the
 * public pages stay inside their JavaScript budget (docs/benchmarks.md "Browser pages").
 * `preloadRequestForm` starts the download early (with the tRPC client it
 * submits through), on the first interaction. React.lazy rather than
 * next/dynamic (whose loader is more client code): the form only ever
 * renders in the browser, after a click.
 */
const load = () => import('./request-form');

const RequestForm = lazy(() => load().then((m) => ({ default: m.RequestForm })));

export function LazyRequestForm(props: ComponentProps<typeof RequestForm>) {
  const t = useTranslations('form');
  return (
    <Suspense
      fallback={
        <p className="text-sm text-muted" aria-busy="true">
          {t('loading')}
        </p>
      }
    >
      <RequestForm {...props} />
    </Suspense>
  );
}

let started = false;
export function preloadRequestForm(): void {
  if (started) return;
  started = true;
  void load();
  preloadApi();
}
