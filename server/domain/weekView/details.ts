import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { agents, claims, meetingClasses } from '@/db/schema';
import { DomainError } from '../errors';
import { isUuid } from '../ids';
import { isSacred } from '../scheduling';
import type { Reviewer } from './week';
import { coHosts, type CoHost } from './hosts';

/** One step in a booking's life, oldest first. */
export type HistoryEntry = { at: string; what: 'held' | 'booked' | 'approved' | 'cancelled' | 'preempted' | 'released' | 'expired' | 'promoted'; text: string };

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

/**
 * A booking or hold of this owner with its agent, class, attendees and
 * history: how it was made (held, booked, approved from a request), and how
 * it ended (cancelled, or preempted and by what).
 */
export async function claimDetails(db: Executor, reviewer: Reviewer, claimId: string, now: Date): Promise<ClaimDetails> {
  if (!isUuid(claimId)) throw notFound();
  const row = await claimWithNames(db, reviewer, claimId.toLowerCase());
  if (!row) throw notFound();
  const { c } = row;
  const history: HistoryEntry[] = [];
  const by = row.agentName ? ` by ${row.agentName}` : '';
  if (c.kind === 'hold') {
    history.push({ at: c.createdAt.toISOString(), what: 'held', text: `Held${by}` });
  } else if (c.proposalId) {
    history.push({ at: c.createdAt.toISOString(), what: 'approved', text: `Booked when you approved a meeting request${c.source === 'public' ? ' from a public link' : by}` });
  } else {
    history.push({ at: c.createdAt.toISOString(), what: 'booked', text: `${c.holdId ? 'Confirmed from a hold' : 'Booked'}${by}` });
  }
  if (c.status === 'preempted') {
    const winner = c.preemptedByClaimId ? await claimWithNames(db, reviewer, c.preemptedByClaimId) : undefined;
    history.push({ at: c.updatedAt.toISOString(), what: 'preempted', text: `Preempted${winner ? ` by ${describe(winner)}` : ''}, which has a higher priority` });
  } else if (c.status === 'cancelled') {
    history.push({ at: c.updatedAt.toISOString(), what: 'cancelled', text: `Cancelled${c.statusReason ? `: ${c.statusReason}` : ''}` });
  } else if (c.status === 'released' || c.status === 'expired' || c.status === 'promoted') {
    // A further range of an all_free window hold is let go when the hold is confirmed elsewhere.
    const text =
      c.status === 'released' && c.statusReason === 'released on confirm'
        ? 'Released when the hold was confirmed in another of its windows'
        : { released: 'Released by its agent', expired: 'Expired before it was confirmed', promoted: 'Confirmed as a booking' }[c.status];
    history.push({ at: c.updatedAt.toISOString(), what: c.status, text });
  }
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
    history,
  };
}
