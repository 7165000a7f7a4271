'use client';

import Link from 'next/link';
import { useState } from 'react';
import { usePathname } from 'next/navigation';
import { CalendarDays, Clock, Inbox, Menu, Plug, Settings, ShieldCheck, X } from 'lucide-react';
import { cn } from '@/components/ui/cn';

const LINKS = [
  { href: '/dashboard', label: 'Inbox', icon: Inbox, match: (p: string) => p === '/dashboard' || p.startsWith('/dashboard/proposals') },
  { href: '/dashboard/calendar', label: 'Calendar', icon: CalendarDays, match: (p: string) => p.startsWith('/dashboard/calendar') || p.startsWith('/dashboard/series') },
  { href: '/dashboard/connections', label: 'Connections', icon: Plug, match: (p: string) => p.startsWith('/dashboard/connections') },
  { href: '/dashboard/schedule', label: 'My schedule', icon: Clock, match: (p: string) => p.startsWith('/dashboard/schedule') },
  { href: '/dashboard/approvals', label: 'Approvals', icon: ShieldCheck, match: (p: string) => p.startsWith('/dashboard/approvals') },
  { href: '/dashboard/admin', label: 'Admin', icon: Settings, match: (p: string) => p.startsWith('/dashboard/admin'), adminOnly: true },
];

/**
 * The dashboard's sections; the current one is marked with aria-current.
 * Under 640 px they fold into a "Menu" button (one header row on a phone),
 * opening a list below the header; choosing a section closes it.
 */
export function NavLinks({ isAdmin = false }: { isAdmin?: boolean }) {
  const pathname = usePathname() ?? '';
  const [open, setOpen] = useState(false);
  const current = LINKS.find((l) => l.match(pathname));
  return (
    <nav aria-label="Dashboard" className="contents sm:block">
      <button
        type="button"
        className="flex h-10 items-center gap-1.5 rounded-md px-3 text-sm font-medium text-fg hover:bg-surface-2 sm:hidden"
        aria-expanded={open}
        aria-controls="dashboard-sections"
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      >
        {open ? <X className="size-4" aria-hidden /> : <Menu className="size-4" aria-hidden />}
        Menu{current ? <span className="sr-only">, now {current.label}</span> : null}
      </button>
      <ul
        id="dashboard-sections"
        className={cn('order-last w-full flex-col gap-1 pb-2 sm:order-none sm:flex sm:w-auto sm:flex-row sm:flex-wrap sm:items-center sm:pb-0', open ? 'flex' : 'hidden')}
      >
        {LINKS.filter((l) => isAdmin || !('adminOnly' in l)).map(({ href, label, icon: Icon, match }) => {
          const current = match(pathname);
          return (
            <li key={href}>
              <Link
                href={href}
                onClick={() => setOpen(false)}
                aria-current={current ? 'page' : undefined}
                className={cn(
                  'flex h-10 items-center gap-1.5 rounded-md px-3 text-sm font-medium no-underline',
                  current ? 'bg-accent-soft text-accent' : 'text-fg hover:bg-surface-2',
                )}
              >
                <Icon className="size-4" aria-hidden />
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
