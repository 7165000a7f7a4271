import type { Metadata } from 'next';
import Link from 'next/link';
import { ChevronLeft, ChevronRight } from 'lucide-react';
import { Button, PageHeader } from '@/components/ui';
import { WeekGrid } from '@/components/calendar/week-grid';
import { WeekLegend } from '@/components/calendar/legend';
import { BookingDetails } from '@/components/calendar/booking-details';
import { RouteDialog } from '@/components/calendar/route-dialog';
import { formatWeekday } from '@/components/ui/time-format';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Calendar · Agent Scheduler' };

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (typeof v === 'string' && v ? v : undefined);

/** Any week of the owner's calendar (calendar.week), a booking's details in a dialog (calendar.claim). */
export default async function CalendarPage({ searchParams }: { searchParams: Search }) {
  const sp = await searchParams;
  const trpc = await serverTrpc();
  const requested = one(sp.week);
  const week = await trpc.calendar.week(requested && /^\d{4}-\d{2}-\d{2}$/.test(requested) ? { week: requested } : undefined);
  const bookingId = one(sp.booking);
  const [claim, me] = await Promise.all([bookingId ? trpc.calendar.claim({ id: bookingId }).catch(() => null) : null, bookingId ? trpc.session.me().catch(() => null) : null]);
  const tz = week.owner.time_zone;
  const here = `/dashboard/calendar?week=${week.week_start}`;
  const lastDay = week.days[6];
  return (
    <>
      <PageHeader
        title="Calendar"
        description={
          <>
            {formatWeekday(week.days[0].start, tz)} – {formatWeekday(lastDay.start, tz)} · times in <strong>{tz}</strong>
            {week.owner.max_daily_meeting_hours != null && <> · at most {week.owner.max_daily_meeting_hours} meeting hours a day</>}
          </>
        }
        actions={
          <nav aria-label="Weeks" className="flex items-center gap-2">
            <Button asChild variant="secondary" size="sm">
              <Link href={`/dashboard/calendar?week=${week.previous_week}`} aria-label="Previous week">
                <ChevronLeft aria-hidden /> Previous
              </Link>
            </Button>
            <Button asChild variant="secondary" size="sm">
              <Link href={`/dashboard/calendar?week=${week.this_week}`} aria-current={week.week_start === week.this_week ? 'date' : undefined}>
                Today
              </Link>
            </Button>
            <Button asChild variant="secondary" size="sm">
              <Link href={`/dashboard/calendar?week=${week.next_week}`} aria-label="Next week">
                Next <ChevronRight aria-hidden />
              </Link>
            </Button>
          </nav>
        }
      />
      {week.next_meeting_week && (
        <p className="mb-3 text-sm text-muted" role="status">
          Nothing is left this week: this is the week of your next meeting. <Link href={`/dashboard/calendar?week=${week.this_week}`} className="underline">Show this week</Link>
        </p>
      )}
      <div className="mb-3">
        <WeekLegend week={week} />
      </div>
      {/* Relative to this page (the same path): a few bytes less on each of hundreds of blocks. */}
      <WeekGrid week={week} eventLinkBase={`?week=${week.week_start}&booking=`} selectedEventId={claim?.id} movable />
      {!week.owner.working_hours_configured && (
        <p className="mt-3 text-sm text-muted">Working hours are not configured: agents may book at any time of day.</p>
      )}
      {claim && (
        <RouteDialog title={claim.title ?? (claim.kind === 'hold' ? 'Hold' : 'Booking')} closeHref={here}>
          <BookingDetails claim={claim} timeZone={tz} admin={me?.role === 'admin'} />
        </RouteDialog>
      )}
    </>
  );
}
