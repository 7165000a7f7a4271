import type { Metadata } from 'next';
import { PoolsConsole } from '@/components/admin/pools-console';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Pools · Agent Scheduler' };

/** Pools: admin.pools.list (each with its last 30 days of assignments) and the owners to pick members from. */
export default async function PoolsPage() {
  const trpc = await serverTrpc();
  const [{ pools }, { owners }] = await Promise.all([trpc.admin.pools.list(), trpc.admin.owners.list()]);
  return (
    <>
      <PageHeader title="Pools" description="Teams agents book through: each meeting goes to the free member with the lowest load for their weight." />
      <PoolsConsole pools={pools} ownerEmails={owners.map((o) => o.owner_email)} withoutHours={owners.filter((o) => !o.has_working_hours).map((o) => o.owner_email)} />
    </>
  );
}
