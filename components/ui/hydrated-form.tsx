'use client';

import { useSyncExternalStore, type ComponentProps } from 'react';

const noSubscription = () => () => {};

/** False on the server and while React hydrates the server's markup; true from then on (and at once on a page opened in the browser). */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/**
 * The `<form>` of every form a script handles (docs/dashboard.md "Forms"). Its controls are
 * disabled until the page has hydrated: what a person types or picks before the script runs would
 * be put back to the form's defaults when react-hook-form takes the fields over, and a press of
 * Enter would submit the form natively (a GET carrying its fields in the address, a password
 * included). Once hydrated the form carries `data-hydrated`. A plain `method="get"` form that
 * works without a script (the language switcher, the audit filter) stays a `<form>`.
 */
export function Form({ children, ...props }: ComponentProps<'form'>) {
  const hydrated = useHydrated();
  return (
    <form {...props} data-hydrated={hydrated ? '' : undefined}>
      {/* display: contents keeps the form's own flex or grid layout for its fields. */}
      <fieldset disabled={!hydrated} role="none" className="contents">
        {children}
      </fieldset>
    </form>
  );
}
