import type { Metadata } from 'next';
import { DomainsCard } from '@/components/admin/domains-card';
import { LinksConsole } from '@/components/admin/links-console';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Public scheduling · Agent Scheduler' };

/** Public scheduling: links (.links.list, .meetingTypes.list per link, with allocations and usage), domains (.domains.list), owners, classes and pools for the forms. */
export default async function PublicSchedulingPage() {
  const trpc = await serverTrpc();
  const [{ links }, { owners }, { meeting_classes }, { domains }, { allocations }, { pools }] = await Promise.all([
    trpc.admin.publicScheduling.links.list(),
    trpc.admin.owners.list(),
    trpc.admin.meetingClasses.list(),
    trpc.admin.publicScheduling.domains.list(),
    trpc.admin.requesters.allocations.list(),
    trpc.admin.pools.list(),
  ]);
  const withTypes = await Promise.all(
    links.map(async (l) => ({
      ...l,
      meeting_types: (await trpc.admin.publicScheduling.meetingTypes.list({ link_id: l.link_id })).meeting_types.map((t) => ({
        ...t,
        // Each type's allocations with their use this period (admin.requesters.allocations.list).
        allocations: allocations.filter((a) => a.link_id === l.link_id && a.slug === t.slug),
      })),
    })),
  );
  return (
    <>
      <PageHeader title="Public scheduling" description="Links requesters open to propose meetings, and the meeting types each offers." />
      <LinksConsole links={withTypes} ownerEmails={owners.map((o) => o.owner_email)} classNames={meeting_classes.map((c) => c.name)} pools={pools.map((p) => ({ pool_id: p.pool_id, name: p.name }))} verifiedDomains={domains.filter((d) => d.status === 'verified').map((d) => d.domain)} />
      <section aria-label="Domains" className="mt-8">
        <DomainsCard domains={domains} />
      </section>
    </>
  );
}
