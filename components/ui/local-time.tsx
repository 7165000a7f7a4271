'use client';

import { useSyncExternalStore } from 'react';
import { formatMoment, type MomentPrecision } from './time-format';

/**
 * A moment in the viewer's own zone, rendered once (docs/dashboard.md "Dates and times").
 * The server does not know the browser's zone, so on the server and during hydration the
 * moment is shown in UTC (marked "UTC"); right after hydration React re-renders it in the
 * browser's zone. Both passes agree with the markup they hydrate: no hydration mismatch.
 */
type LocalTimePrecision = MomentPrecision;

const noSubscription = () => () => {};

export function LocalTime({ iso, precision = 'minute' }: { iso: string; precision?: LocalTimePrecision }) {
  const inBrowser = useSyncExternalStore(noSubscription, () => true, () => false);
  const text = inBrowser ? formatMoment(iso, precision) : `${formatMoment(iso, precision, 'UTC')} UTC`;
  return (
    <time dateTime={iso}>
      {text}
    </time>
  );
}
