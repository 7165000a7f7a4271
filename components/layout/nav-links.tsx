'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { CalendarDays, Clock, Inbox, Plug, Settings } from 'lucide-react';
import { cn } from '@/components/ui/cn';

const LINKS = [
  { href: '/dashboard', label: 'Inbox', icon: Inbox, match: (p: string) => p === '/dashboard' || p.startsWith('/dashboard/proposals') },
  { href: '/dashboard/calendar', label: 'Calendar', icon: CalendarDays, match: (p: string) => p.startsWith('/dashboard/calendar') },
  { href: '/dashboard/connections', label: 'Connections', icon: Plug, match: (p: string) => p.startsWith('/dashboard/connections') },
  { href: '/dashboard/schedule', label: 'My schedule', icon: Clock, match: (p: string) => p.startsWith('/dashboard/schedule') },
  { href: '/dashboard/admin', label: 'Admin', icon: Settings, match: (p: string) => p.startsWith('/dashboard/admin'), adminOnly: true },
];

/** The dashboard's sections; the current one is marked with aria-current. */
export function NavLinks({ isAdmin = false }: { isAdmin?: boolean }) {
  const pathname = usePathname() ?? '';
  return (
    <nav aria-label="Dashboard">
      <ul className="flex flex-wrap items-center gap-1">
        {LINKS.filter((l) => isAdmin || !('adminOnly' in l)).map(({ href, label, icon: Icon, match }) => {
          const current = match(pathname);
          return (
            <li key={href}>
              <Link
                href={href}
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
