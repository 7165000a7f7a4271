import type { Metadata } from 'next';
import { Alert, PageHeader } from '@/components/ui';
import { ScheduleForm } from '@/components/schedule/schedule-form';
import { SessionsCard } from '@/components/layout/sessions-card';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'My schedule · Agent Scheduler' };

/** My schedule: schedule.get and schedule.preview on the server, the form on the client; the signed-in browsers below (docs/dashboard.md "Sessions"). */
export default async function SchedulePage({ searchParams }: { searchParams: Promise<{ denied?: string }> }) {
  const { denied } = await searchParams;
  const trpc = await serverTrpc();
  const [rules, { sessions }] = await Promise.all([trpc.schedule.get(), trpc.session.list()]);
  const initial = {
    time_zone: rules.time_zone,
    working_hours: rules.working_hours,
    hard_blocks: rules.hard_blocks,
    max_daily_meeting_hours: rules.max_daily_meeting_hours,
    buffer_external_events: rules.buffer_external_events,
    date_overrides: rules.date_overrides,
    out_of_office: rules.out_of_office,
  };
  const preview = await trpc.schedule.preview({
    ...initial,
    working_hours:
      initial.working_hours ??
      { mon: [{ start: '09:00', end: '17:00' }], tue: [{ start: '09:00', end: '17:00' }], wed: [{ start: '09:00', end: '17:00' }], thu: [{ start: '09:00', end: '17:00' }], fri: [{ start: '09:00', end: '17:00' }] },
  });
  return (
    <>
      {denied === 'admin' && (
        <Alert tone="warn" className="mb-4">
          The administration console is for admin owners only. Ask an admin of your organisation if you need a change there.
        </Alert>
      )}
      <PageHeader title="My schedule" description="When agents may offer your time. The preview shows the coming week before you save." />
      <ScheduleForm initial={initial} initialPreview={preview} timeZones={Intl.supportedValuesOf('timeZone')} />
      <SessionsCard sessions={sessions} />
    </>
  );
}
