import type { Metadata } from 'next';
import { MeetingClassesConsole } from '@/components/admin/meeting-classes-console';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Meeting classes · Agent Scheduler' };

/** Meeting classes: admin.meetingClasses.list. */
export default async function MeetingClassesPage() {
  const { meeting_classes } = await (await serverTrpc()).admin.meetingClasses.list();
  return (
    <>
      <PageHeader title="Meeting classes" description="How important each kind of meeting is when requests compete for the same time." />
      <MeetingClassesConsole classes={meeting_classes} />
    </>
  );
}
