'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { cn } from '@/components/ui/cn';

const TABS = [
  { href: '/dashboard/admin', label: 'Overview', exact: true },
  { href: '/dashboard/admin/agents', label: 'Agents and keys' },
  { href: '/dashboard/admin/meeting-classes', label: 'Meeting classes' },
  { href: '/dashboard/admin/owners', label: 'Owners' },
  { href: '/dashboard/admin/pools', label: 'Pools' },
  { href: '/dashboard/admin/public-scheduling', label: 'Public scheduling' },
  { href: '/dashboard/admin/requesters', label: 'Requesters' },
  { href: '/dashboard/admin/audit', label: 'Audit log' },
];

/** The admin console's sections (scrolls sideways on a phone). */
export function AdminTabs() {
  const pathname = usePathname() ?? '';
  return (
    <nav aria-label="Administration" className="-mx-3 mb-5 overflow-x-auto border-b border-line px-3 sm:mx-0 sm:px-0">
      <ul className="flex min-w-max gap-1">
        {TABS.map((t) => {
          const current = 'exact' in t ? pathname === t.href : pathname.startsWith(t.href);
          return (
            <li key={t.href}>
              <Link
                href={t.href}
                aria-current={current ? 'page' : undefined}
                className={cn(
                  '-mb-px flex h-10 items-center border-b-2 px-3 text-sm font-medium no-underline',
                  current ? 'border-accent text-accent' : 'border-transparent text-fg hover:bg-surface-2',
                )}
              >
                {t.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
