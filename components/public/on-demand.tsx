'use client';

import { Suspense, type ComponentProps, type ComponentType, type LazyExoticComponent } from 'react';
import { useTranslations } from 'next-intl';

/**
 * A status-page form that loads on the click that opens it, not with the page
 * (docs/benchmarks.md "Browser pages"): `Form` is React `lazy` of its module, shown
 * with a short "Loading…" until its code arrives.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any component's props
export function onDemand<T extends ComponentType<any>>(Form: LazyExoticComponent<T>) {
  return function OnDemandForm(props: ComponentProps<T>) {
    const t = useTranslations('status');
    return (
      <Suspense
        fallback={
          <p className="text-sm text-muted" aria-busy="true">
            {t('loading')}
          </p>
        }
      >
        <Form {...props} />
      </Suspense>
    );
  };
}
