import type { Metadata } from 'next';
import { ApprovalRules } from '@/components/approvals/approval-rules';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Approvals · Agent Scheduler' };

/** The owner's approval policy for agent bookings on their calendar: approvals.list. */
export default async function ApprovalsPage() {
  const { rules, agents, meeting_classes } = await (await serverTrpc()).approvals.list();
  return (
    <>
      <PageHeader title="Approvals" description="Which agents' bookings, or which kinds of meeting, wait for your approval before they reach your calendar." />
      <ApprovalRules rules={rules} agents={agents} meetingClasses={meeting_classes} />
    </>
  );
}
