import type { Metadata } from 'next';
import { RequestersConsole } from '@/components/admin/requesters-console';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Requesters · Agent Scheduler' };

/** Requesters: admin.requesters.identities.list, .audiences.list, .allocations.list, and the links' meeting types for allocations. */
export default async function RequestersPage() {
  const trpc = await serverTrpc();
  const [ids, { audiences }, { allocations }, { links }] = await Promise.all([
    trpc.admin.requesters.identities.list(),
    trpc.admin.requesters.audiences.list(),
    trpc.admin.requesters.allocations.list(),
    trpc.admin.publicScheduling.links.list(),
  ]);
  const types = (
    await Promise.all(
      links.map(async (l) =>
        (await trpc.admin.publicScheduling.meetingTypes.list({ link_id: l.link_id })).meeting_types.map((t) => ({ link_id: l.link_id, alias: l.alias, slug: t.slug, title: t.title })),
      ),
    )
  ).flat();
  return (
    <>
      <PageHeader title="Requesters" description="Who may propose meetings through public links, in which groups, and how often." />
      <RequestersConsole identities={ids.identities} credentials={ids.credentials} audiences={audiences} allocations={allocations} types={types} />
    </>
  );
}
