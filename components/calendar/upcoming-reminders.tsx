import Link from 'next/link';
import { BellRing } from 'lucide-react';
import type { UpcomingReminder } from '@/server/domain/reminders/views';
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui';
import { formatDateTime, formatSlot, wallTime } from '@/components/ui/time-format';

/** The owner's next reminders due (docs/dashboard.md "Reminders"): when each goes out, and for which meeting. */
export function UpcomingReminders({ reminders, timeZone }: { reminders: UpcomingReminder[]; timeZone: string }) {
  return (
    <section aria-labelledby="reminders-heading" className="mt-8">
      <Card>
        <CardHeader>
          <CardTitle>
            <span id="reminders-heading" className="inline-flex items-center gap-2">
              <BellRing className="size-4" aria-hidden /> Upcoming reminders
            </span>
          </CardTitle>
          <p className="text-xs text-muted">Mailed to each meeting&apos;s attendees at the offsets of its class or meeting type · times in {timeZone}</p>
        </CardHeader>
        <CardContent>
          {reminders.length === 0 ? (
            <p className="text-muted">No reminder is due. Give a meeting class or meeting type reminder offsets to remind attendees before their meetings.</p>
          ) : (
            <ul className="flex flex-col gap-2" data-testid="upcoming-reminders">
              {reminders.map((r) => (
                <li key={`${r.booking_id}-${r.offset_minutes}`} className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5">
                  <span className="font-medium">{formatDateTime(r.due_at, timeZone)}</span>
                  <span>
                    {r.title ?? r.meeting_class ?? 'Meeting'} · {formatSlot(r.start, r.end, timeZone)}
                  </span>
                  <Link href={`/dashboard/calendar?week=${wallTime(r.start, timeZone).slice(0, 10)}&booking=${r.booking_id}`} className="text-xs">
                    Open the meeting<span className="sr-only">: {r.title ?? r.meeting_class ?? 'meeting'}</span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </CardContent>
      </Card>
    </section>
  );
}
