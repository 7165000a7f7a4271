import type { Metadata } from 'next';
import { AgentsConsole } from '@/components/admin/agents-console';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Agents and keys · Agent Scheduler' };

/** Agents and keys: admin.agents.list and admin.owners.list (for the scope choice). */
export default async function AgentsPage() {
  const trpc = await serverTrpc();
  const [{ agents }, { owners }] = await Promise.all([trpc.admin.agents.list(), trpc.admin.owners.list()]);
  return (
    <>
      <PageHeader title="Agents and keys" description="The programs that schedule for your organisation, what each may do, and their API keys." />
      <AgentsConsole agents={agents} ownerEmails={owners.map((o) => o.owner_email)} timeZones={Intl.supportedValuesOf('timeZone')} />
    </>
  );
}
