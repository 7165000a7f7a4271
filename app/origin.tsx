'use client';

import { useSyncExternalStore } from 'react';

const noop = () => () => {};

/** This server's origin as the browser sees it (http://localhost:3000 while rendering on the server). */
export function Origin() {
  const origin = useSyncExternalStore(
    noop,
    () => window.location.origin,
    () => 'http://localhost:3000',
  );
  return <>{origin}</>;
}
