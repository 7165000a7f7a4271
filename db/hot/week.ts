import { agents, claims, meetingClasses } from '../schema';
import type { Executor } from '../client';
import { names } from './columns';
import { queryRows } from './driver';

/**
 * The owner's claims a dashboard week shows (docs/dashboard.md "Calendar"): every booking
 * (confirmed, cancelled or preempted) and every unexpired active hold overlapping [from, to),
 * by start, at most 2,000, with its meeting class and agent names, only the columns the week
 * shows or counts, and the attendees counted, not read.
 *
 * The rows travel as one JSON array of arrays (one value, parsed by JSON.parse) rather than
 * one row per claim: a week holds hundreds, and per-value decoding of a result set is most of
 * the cost of this read on the embedded database (300 claims: 6.0 ms as rows, 2.9 ms as one
 * array, best of 8 on PGlite; docs/benchmarks/history/2026-11-26-browser-pages.md). Instants come as
 * epoch milliseconds.
 */
export type WeekClaimRow = {
  id: string;
  kind: 'booking' | 'hold';
  status: string;
  start: number;
  end: number;
  title: string | null;
  source: 'agent' | 'public' | 'provider';
  createdAt: number;
  externalAccepted: boolean;
  holdScope: string | null;
  durationMinutes: number | null;
  coverage: string | null;
  partOfHoldId: string | null;
  groupId: string | null;
  seriesId: string | null;
  attendeeCount: number;
  className: string | null;
  priority: number | null;
  sacredAge: number | null;
  agentName: string | null;
};

const c = names(claims);
const m = names(meetingClasses);
const a = names(agents);
const ms = (column: string) => `floor(extract(epoch from c.${column}) * 1000)::bigint`;

/** The array's positions, in WeekClaimRow's order. */
const FIELDS = [
  `c.${c.id}`,
  `c.${c.kind}`,
  `c.${c.status}`,
  ms(c.startAt),
  ms(c.endAt),
  `c.${c.title}`,
  `c.${c.source}`,
  ms(c.createdAt),
  `c.${c.externalAccepted}`,
  `c.${c.holdScope}`,
  `c.${c.durationMinutes}`,
  `c.${c.coverage}`,
  `c.${c.partOfHoldId}`,
  `c.${c.groupId}`,
  `c.${c.seriesId}`,
  `jsonb_array_length(c.${c.attendees})`,
  `m.${m.name}`,
  `m.${m.priority}`,
  `m.${m.sacredMeetingAgeHours}`,
  `a.${a.name}`,
];

/** $1 owner, $2 from, $3 to, $4 now (ISO instants). */
const WEEK_CLAIMS = `select coalesce(json_agg(w.r order by w.s), '[]')::text as rows from (
    select json_build_array(${FIELDS.join(', ')}) as r, c.${c.startAt} as s
    from claims c
    left join meeting_classes m on m.${m.id} = c.${c.meetingClassId}
    left join agents a on a.${a.id} = c.${c.agentId}
    where c.${c.ownerId} = $1 and c.${c.startAt} < $3 and c.${c.endAt} > $2
      and ((c.${c.kind} = 'booking' and c.${c.status} in ('confirmed', 'cancelled', 'preempted'))
        or (c.${c.kind} = 'hold' and c.${c.status} = 'active' and c.${c.expiresAt} > $4))
    order by c.${c.startAt} limit 2000) w`;

/** $1 owner, $2 now: the start of the owner's next meeting (a confirmed booking or a live hold) from now on, else null. */
const NEXT_MEETING = `select min(c.${c.startAt}) as start from claims c
  where c.${c.ownerId} = $1 and c.${c.startAt} >= $2
    and ((c.${c.kind} = 'booking' and c.${c.status} = 'confirmed') or (c.${c.kind} = 'hold' and c.${c.status} = 'active' and c.${c.expiresAt} > $2))`;

export async function nextMeetingStart(db: Executor, ownerId: string, now: Date): Promise<Date | null> {
  const [row] = await queryRows(db, NEXT_MEETING, [ownerId, now.toISOString()]);
  return row?.start ? new Date(row.start as string | Date) : null;
}

type Tuple = [string, WeekClaimRow['kind'], string, number, number, string | null, WeekClaimRow['source'], number, boolean, string | null, number | null, string | null, string | null, string | null, string | null, number, string | null, number | null, number | null, string | null];

export async function weekClaims(db: Executor, ownerId: string, from: Date, to: Date, now: Date): Promise<WeekClaimRow[]> {
  const [row] = await queryRows(db, WEEK_CLAIMS, [ownerId, from.toISOString(), to.toISOString(), now.toISOString()]);
  const tuples = JSON.parse(row.rows as string) as Tuple[];
  return tuples.map(([id, kind, status, start, end, title, source, createdAt, externalAccepted, holdScope, durationMinutes, coverage, partOfHoldId, groupId, seriesId, attendeeCount, className, priority, sacredAge, agentName]) => ({
    id,
    kind,
    status,
    start,
    end,
    title,
    source,
    createdAt,
    externalAccepted,
    holdScope,
    durationMinutes,
    coverage,
    partOfHoldId,
    groupId,
    seriesId,
    attendeeCount,
    className,
    priority,
    sacredAge,
    agentName,
  }));
}
