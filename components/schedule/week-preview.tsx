import { cn } from '@/components/ui/cn';
import { formatDayMonth } from '@/components/ui/time-format';

type PreviewSpan = { from: number; to: number; label: string };
/** `note`: why the day differs from its weekday (a date override, out of office). */
export type PreviewDay = { date: string; weekday: string; working: PreviewSpan[]; blocks: PreviewSpan[]; note?: 'override' | 'out_of_office' };

const DAY_LABEL: Record<string, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
/** Hard blocks are hatched (not colour alone) over the day bar. */
const HATCH = { backgroundImage: 'repeating-linear-gradient(45deg, var(--danger) 0 2px, var(--danger-soft) 2px 5px)' };
const pct = (minutes: number) => `${(minutes / 1440) * 100}%`;

/**
 * A compact preview of the coming week: one row per owner-local day with a
 * 24-hour bar (working time, hard blocks hatched over it) and the same
 * information as text for screen readers and small screens. Pure display:
 * the spans come from the server (schedule.preview).
 */
export function WeekPreview({ days, timeZone, pending }: { days: PreviewDay[]; timeZone: string; pending?: boolean }) {
  return (
    <section aria-labelledby="week-preview-title" aria-busy={pending || undefined} className="flex flex-col gap-2" data-testid="week-preview">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="week-preview-title" className="text-base font-semibold">
          Coming week
        </h2>
        <p className="text-xs text-muted">Times in {timeZone}</p>
      </div>
      <div className="flex items-center gap-3 text-xs text-muted" aria-hidden>
        <span className="inline-flex items-center gap-1">
          <span className="inline-block size-3 rounded-sm bg-accent-soft ring-1 ring-accent" /> offered to agents
        </span>
        <span className="inline-flex items-center gap-1">
          <span className="inline-block size-3 rounded-sm" style={HATCH} /> hard block
        </span>
      </div>
      <ol className="flex flex-col gap-1.5">
        {days.map((d) => (
          <li key={d.date} className="grid grid-cols-[5.5rem_1fr] items-center gap-2" data-testid={`preview-${d.weekday}`}>
            <span className="whitespace-nowrap text-sm">
              <span className="font-medium">{DAY_LABEL[d.weekday]}</span> <span className="text-muted">{formatDayMonth(`${d.date}T12:00:00Z`, 'UTC')}</span>
            </span>
            <div className="flex flex-col gap-0.5">
              {/* While the preview is recomputed only the bars fade: the text keeps its contrast. */}
              <div className={cn('relative h-4 overflow-hidden rounded-sm bg-surface-2', pending && 'opacity-60')} aria-hidden>
                {[6, 12, 18].map((h) => (
                  <span key={h} className="absolute inset-y-0 w-px bg-line" style={{ left: pct(h * 60) }} />
                ))}
                {d.working.map((s) => (
                  <span key={`w${s.from}`} className="absolute inset-y-0 bg-accent-soft ring-1 ring-inset ring-accent" style={{ left: pct(s.from), width: pct(s.to - s.from) }} />
                ))}
                {d.blocks.map((s) => (
                  <span key={`b${s.from}`} className="absolute inset-y-0" style={{ ...HATCH, left: pct(s.from), width: pct(s.to - s.from) }} />
                ))}
              </div>
              <p className="text-xs text-muted">
                {d.note === 'out_of_office' ? 'Out of office' : d.working.length ? `Working ${d.working.map((s) => s.label).join(', ')}` : 'Day off'}
                {d.note === 'override' && ' (date override)'}
                {d.blocks.length > 0 && ` · Blocked ${d.blocks.map((s) => s.label).join(', ')}`}
              </p>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
