import Link from 'next/link';
import { CalendarClock } from 'lucide-react';
import type { ReactNode } from 'react';
import { NavLinks } from './nav-links';
import { SignOutButton } from './sign-out-button';

/**
 * The signed-in owner's frame: a skip link (first in the header), the service mark, the sections
 * (Inbox, Calendar), who is signed in and a sign-out button. On a phone the
 * sections fold into a "Menu" button under 640 px (one header row); the
 * content column keeps the full width.
 */
export function DashboardShell({ ownerEmail, isAdmin = false, children }: { ownerEmail: string; isAdmin?: boolean; children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="border-b border-line bg-surface">
        {/* Inside the banner landmark, so no content sits outside a landmark (axe `region`). */}
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-surface focus:px-3 focus:py-2"
        >
          Skip to content
        </a>
        <div className="mx-auto flex w-full max-w-7xl flex-wrap items-center gap-x-6 gap-y-1 px-4 py-2">
          <Link href="/dashboard" className="flex h-10 items-center gap-2 font-semibold text-fg no-underline">
            <CalendarClock className="size-5 text-accent" aria-hidden />
            <span className="sr-only sm:not-sr-only">Agent Scheduler</span>
          </Link>
          <NavLinks isAdmin={isAdmin} />
          <div className="ml-auto flex items-center gap-2">
            <span className="hidden max-w-56 truncate text-sm text-muted sm:inline" title={ownerEmail}>
              {ownerEmail}
            </span>
            <SignOutButton />
          </div>
        </div>
      </header>
      <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-3 py-5 sm:px-4 sm:py-6">
        {children}
      </main>
    </div>
  );
}
