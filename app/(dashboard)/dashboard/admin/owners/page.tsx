import type { Metadata } from 'next';
import { OwnersConsole } from '@/components/admin/owners-console';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Owners · Agent Scheduler' };

/** Owners: admin.owners.list. */
export default async function OwnersPage() {
  const { owners } = await (await serverTrpc()).admin.owners.list();
  return (
    <>
      <PageHeader title="Owners" description="The people whose calendars agents schedule on, their role and their calendars." />
      <OwnersConsole owners={owners} timeZones={Intl.supportedValuesOf('timeZone')} />
    </>
  );
}
