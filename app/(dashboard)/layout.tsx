import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { Providers } from '@/components/trpc-provider';
import { DashboardShell } from '@/components/layout/dashboard-shell';
import { serverTrpc } from '@/server/trpc/caller';

export const dynamic = 'force-dynamic';

/**
 * Every page under /dashboard needs a signed-in owner. proxy.ts already sent
 * visitors without a session cookie to /signin (with the page to return to);
 * a cookie that no longer names an owner lands here.
 */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const me = await (await serverTrpc()).session.me().catch(() => null);
  if (!me) redirect('/signin');
  return (
    <Providers>
      <DashboardShell ownerEmail={me.owner_email} isAdmin={me.role === 'admin'}>{children}</DashboardShell>
    </Providers>
  );
}
