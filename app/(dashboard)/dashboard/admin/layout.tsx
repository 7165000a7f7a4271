import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { AdminTabs } from '@/components/admin/admin-tabs';
import { serverTrpc } from '@/server/trpc/caller';

/**
 * The customer's administration console: admins only. A member owner is sent
 * to their own schedule (the admin procedures refuse them as well).
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const me = await (await serverTrpc()).session.me().catch(() => null);
  if (!me) redirect('/signin');
  if (me.role !== 'admin') redirect('/dashboard/schedule?denied=admin');
  return (
    <>
      <AdminTabs />
      {children}
    </>
  );
}
