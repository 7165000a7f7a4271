import Link from 'next/link';
import { CalendarClock } from 'lucide-react';
import type { ReactNode } from 'react';

/**
 * The requesters' frame: a plain header with the service mark, one narrow
 * column, no navigation (a requester arrives from a link and has nowhere
 * else to go), a quiet footer.
 */
export function PublicShell({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="border-b border-line bg-surface">
        <div className="mx-auto flex h-14 w-full max-w-2xl items-center px-4">
          <Link href="/" className="flex items-center gap-2 font-semibold text-fg no-underline">
            <CalendarClock className="size-5 text-accent" aria-hidden />
            <span>Scheduling</span>
          </Link>
        </div>
      </header>
      <main id="main" className="mx-auto w-full max-w-2xl flex-1 px-4 py-6 sm:py-10">
        {children}
      </main>
      <footer className="border-t border-line py-4 text-center text-xs text-muted">Agent Scheduler</footer>
    </div>
  );
}
