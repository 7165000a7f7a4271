import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { agents, claims, meetingClasses } from '@/db/schema';
import { DomainError } from '../errors';
import { isUuid } from '../ids';
import { isSacred } from '../scheduling';
import type { Reviewer } from './week';
import { coHosts, type CoHost } from './hosts';
import { auditHistory, type HistoryEntry } from './history';
import { videoLinkOf, videoLinkView, type VideoLinkView } from '../calendars/videoLinks';
import { remindersOfClaim, type ReminderView } from '../reminders/views';
import { seriesSummary, type SeriesSummary } from './series';


export type ClaimDetails = {
  id: string;
  kind: 'booking' | 'hold';
  status: string;
  start: string;
  end: string;
  title: string | null;
  description: string | null;
  meeting_class: string | null;
  priority: number | null;
  sacred: boolean;
  source: 'agent' | 'public' | 'provider';
  agent: { id: string; name: string } | null;
  attendees: { email: string; name: string | null; response: string | null }[];
  expires_at: string | null;
  /**
   * A group's hold or booking (docs/groups.md): the group's id and the other hosts, each with
   * name, email and the status of their copy. Cancelling a group booking cancels every host's
   * copy (cancel cancels all), so the cancel dialog names them. Null for a single owner's.
   */
  group: { group_id: string; co_hosts: CoHost[] } | null;
  /** An occurrence of a recurring series: the rule in words and its place in it (series.ts); null outside one. */
  series: SeriesSummary | null;
  /** Its video link (docs/calendars.md "Video links"), or null. */
  video: VideoLinkView | null;
  /** A booking's reminders, earliest due first (docs/reliability.md "Reminders"); [] for a hold. */
  reminders: ReminderView[];
  history: HistoryEntry[];
};

const notFound = () => new DomainError('BOOKING_NOT_FOUND', 'Booking not found');

async function claimWithNames(db: Executor, reviewer: Reviewer, id: string) {
  const [row] = await db
    .select({ c: claims, className: meetingClasses.name, priority: meetingClasses.priority, sacredAge: meetingClasses.sacredMeetingAgeHours, agentName: agents.name })
    .from(claims)
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .leftJoin(agents, eq(agents.id, claims.agentId))
    .where(and(eq(claims.id, id), eq(claims.customerId, reviewer.customerId), eq(claims.ownerId, reviewer.ownerId)))
    .limit(1);
  return row;
}

function describe(r: { c: typeof claims.$inferSelect; className: string | null; agentName: string | null }): string {
  const what = r.c.title ? `"${r.c.title}"` : `a ${r.c.kind}`;
  return `${what}${r.className ? ` (${r.className})` : ''}${r.agentName ? ` by ${r.agentName}` : ''}`;
}

type NamedClaim = NonNullable<Awaited<ReturnType<typeof claimWithNames>>>;

/** How a claim without audit rows was made. */
function madeEntry(row: NamedClaim): HistoryEntry {
  const { c } = row;
  const at = c.createdAt.toISOString();
  const by = row.agentName ? ` by ${row.agentName}` : '';
  if (c.kind === 'hold') return { at, what: 'held', text: `Held${by}` };
  if (c.proposalId) return { at, what: 'approved', text: `Booked when you approved a meeting request${c.source === 'public' ? ' from a public link' : by}` };
  return { at, what: 'booked', text: `${c.holdId ? 'Confirmed from a hold' : 'Booked'}${by}` };
}

/** A hold let go: by its agent, on a confirm in another of its windows, or by the clock. */
function letGo(c: NamedClaim['c']): HistoryEntry {
  const text =
    c.status === 'released' && c.statusReason === 'released on confirm'
      ? 'Released when the hold was confirmed in another of its windows'
      : c.status === 'released'
        ? 'Released by its agent'
        : 'Expired before it was confirmed';
  return { at: c.updatedAt.toISOString(), what: c.status === 'released' ? 'released' : 'expired', text };
}

/** How a claim without audit rows ended, read off its row (null while it is on). */
async function endEntry(db: Executor, reviewer: Reviewer, row: NamedClaim): Promise<HistoryEntry | null> {
  const { c } = row;
  const at = c.updatedAt.toISOString();
  if (c.status === 'preempted') {
    const winner = c.preemptedByClaimId ? await claimWithNames(db, reviewer, c.preemptedByClaimId) : undefined;
    return { at, what: 'preempted', text: `Preempted${winner ? ` by ${describe(winner)}` : ''}, which has a higher priority` };
  }
  if (c.status === 'cancelled') return { at, what: 'cancelled', text: `Cancelled${c.statusReason ? `: ${c.statusReason}` : ''}` };
  if (c.status === 'promoted') return { at, what: 'promoted', text: 'Confirmed as a booking' };
  if (c.status === 'released' || c.status === 'expired') return letGo(c);
  return null;
}

/**
 * A booking or hold of this owner with its agent, class, attendees and
 * history: told from its audit rows (./history.ts) when it has them, with the
 * end the clock gave it (released, expired) after them; else (a provider's
 * event, rows from before audit) how it was made and how it ended.
 */
export async function claimDetails(db: Executor, reviewer: Reviewer, claimId: string, now: Date): Promise<ClaimDetails> {
  if (!isUuid(claimId)) throw notFound();
  const row = await claimWithNames(db, reviewer, claimId.toLowerCase());
  if (!row) throw notFound();
  const { c } = row;
  const fromAudit = await auditHistory(db, reviewer, c.id);
  const history: HistoryEntry[] = fromAudit.length ? fromAudit : [madeEntry(row)];
  // The audit rows tell every change but a hold's release or expiry; without them, the end is read off the row.
  const end = fromAudit.length ? (c.status === 'released' || c.status === 'expired' ? letGo(c) : null) : await endEntry(db, reviewer, row);
  if (end) history.push(end);
  const group = c.groupId ? { group_id: c.groupId, co_hosts: (await coHosts(db, c.ownerId, [c.groupId], now))(c.groupId, c.kind) } : null;
  return {
    id: c.id,
    kind: c.kind,
    status: c.status,
    start: c.startAt.toISOString(),
    end: c.endAt.toISOString(),
    title: c.title,
    description: c.description,
    meeting_class: row.className,
    priority: row.priority,
    sacred: c.kind === 'booking' && c.status === 'confirmed' && isSacred({ createdAt: c.createdAt.getTime(), externalAccepted: c.externalAccepted, source: c.source }, row.sacredAge, now.getTime()),
    source: c.source,
    agent: c.agentId && row.agentName ? { id: c.agentId, name: row.agentName } : null,
    attendees: c.attendees.map((a) => ({ email: a.email, name: a.name ?? null, response: a.response ?? null })),
    expires_at: c.expiresAt?.toISOString() ?? null,
    group,
    series: await seriesSummary(db, reviewer, c.id, c.seriesId),
    video: await videoLinkOf(db, c.id).then((v) => (v ? videoLinkView(v, c.status === 'confirmed') : null)),
    reminders: c.kind === 'booking' ? await remindersOfClaim(db, reviewer.customerId, c.id) : [],
    history,
  };
}
