import { Lock } from 'lucide-react';
import type { WeekView } from '@/server/domain/weekView';
import { classColour } from '@/components/calendar/display';

/** The meeting classes on screen and what the shading means. */
export function WeekLegend({ week, withCandidates }: { week: WeekView; withCandidates?: boolean }) {
  const classes = [...new Set(week.events.map((e) => e.meeting_class).filter((c): c is string => !!c))].sort();
  return (
    <ul className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted" aria-label="Legend">
      {classes.map((c) => (
        <li key={c} className={`${classColour(c)} flex items-center gap-1.5`}>
          <span className="size-3 rounded-sm border-l-4" style={{ background: 'var(--mc-soft)', borderColor: 'var(--mc)' }} aria-hidden />
          {c}
        </li>
      ))}
      <li className="flex items-center gap-1.5">
        <Lock className="size-3" aria-hidden /> sacred
      </li>
      <li className="flex items-center gap-1.5">
        <span className="size-3 rounded-sm border border-line" style={{ background: 'var(--off-hours)' }} aria-hidden /> outside working hours
      </li>
      <li className="flex items-center gap-1.5">
        <span className="size-3 rounded-sm border border-line" style={{ background: 'var(--blocked)' }} aria-hidden /> hard block
      </li>
      {withCandidates && (
        <>
          <li className="flex items-center gap-1.5">
            <span className="h-3 w-1.5 rounded-sm bg-accent" aria-hidden /> proposed times, at each day&apos;s right edge (red: conflict)
          </li>
          <li className="flex items-center gap-1.5">
            <span className="size-3 rounded-sm border-2 border-dashed border-accent" aria-hidden /> the time shown or chosen
          </li>
        </>
      )}
    </ul>
  );
}
