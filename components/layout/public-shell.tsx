import { CalendarClock } from '@/components/ui/icons';
import type { ReactNode } from 'react';

/**
 * The requesters' frame: a plain header with the service mark (not a link:
 * the site's home page is the agents' API guide), one narrow column, no
 * navigation (a requester arrives from a link), a quiet footer. `actions`: what
 * the booking pages put at the header's end (the language switcher).
 */
export function PublicShell({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="border-b border-line bg-surface">
        <div className="mx-auto flex h-14 w-full max-w-2xl items-center px-4">
          <span className="flex items-center gap-2 font-semibold text-fg">
            <CalendarClock className="size-5 text-accent" aria-hidden />
            <span>Agent Scheduler</span>
          </span>
          {actions}
        </div>
      </header>
      <main id="main" className="mx-auto w-full max-w-2xl flex-1 px-4 py-6 sm:py-10">
        {children}
      </main>
      <footer className="border-t border-line py-4 text-center text-xs text-muted">Agent Scheduler</footer>
    </div>
  );
}
