import type { Metadata } from 'next';
import { LinksConsole } from '@/components/admin/links-console';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Public scheduling · Agent Scheduler' };

/** Public scheduling: admin.publicScheduling.links.list and .meetingTypes.list per link, owners and classes for the forms. */
export default async function PublicSchedulingPage() {
  const trpc = await serverTrpc();
  const [{ links }, { owners }, { meeting_classes }] = await Promise.all([
    trpc.admin.publicScheduling.links.list(),
    trpc.admin.owners.list(),
    trpc.admin.meetingClasses.list(),
  ]);
  const withTypes = await Promise.all(
    links.map(async (l) => ({ ...l, meeting_types: (await trpc.admin.publicScheduling.meetingTypes.list({ link_id: l.link_id })).meeting_types })),
  );
  return (
    <>
      <PageHeader title="Public scheduling" description="Links requesters open to propose meetings, and the meeting types each offers." />
      <LinksConsole links={withTypes} ownerEmails={owners.map((o) => o.owner_email)} classNames={meeting_classes.map((c) => c.name)} />
    </>
  );
}
