import { and, asc, eq, or } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { agents, auditLog, claims, meetingClasses, owners } from '@/db/schema';
import { isUuid } from '../ids';
import type { Reviewer, Span } from './week';

/**
 * A booking's history told from its audit rows (docs/dashboard.md, the calendar's booking details): the
 * same actor the audit log, the mail and the notifications name, for every change (made,
 * moved with its old and new time, edited, bumped and by whom, cancelled). `what` styles the
 * entry; a move carries `from` and `to` for the page to write in the viewer's zone.
 */
export type HistoryEntry = {
  at: string;
  what: 'held' | 'booked' | 'approved' | 'moved' | 'edited' | 'extended' | 'cancelled' | 'preempted' | 'released' | 'expired' | 'promoted';
  text: string;
  from?: Span;
  to?: Span;
};

type Row = { a: typeof auditLog.$inferSelect; agentName: string | null };

/** Who acted, in words: "you", an owner's name (else email), an agent's name, a requester's email. */
function actorWords(r: Row, me: Reviewer, names: Map<string, string>): string | null {
  const a = r.a;
  if (a.actorKind === 'owner') return a.actorOwnerId === me.ownerId ? 'you' : (names.get(a.actorOwnerId ?? '') ?? a.actorOwnerEmail);
  if (a.actorKind === 'agent') return r.agentName ? `${r.agentName} (agent)` : 'an agent';
  if (a.actorKind === 'requester') return a.actorRequesterEmail;
  return null;
}

const by = (who: string | null) => (who ? ` by ${who}` : '');

function span(v: unknown): Span | undefined {
  const s = v as { start?: unknown; end?: unknown } | undefined;
  return typeof s?.start === 'string' && typeof s.end === 'string' ? { start: s.start, end: s.end } : undefined;
}

/** One audit row as a history entry, or null for a row that is not a step of this claim's life. */
function entry(r: Row, claimId: string, me: Reviewer, names: Map<string, string>, winners: Map<string, string>): HistoryEntry | null {
  const a = r.a;
  const at = a.at.toISOString();
  const who = actorWords(r, me, names);
  const details = a.details ?? {};
  switch (a.action) {
    case 'hold.create':
      return a.holdId === claimId && !a.bookingId ? { at, what: 'held', text: `Held${by(who)}` } : null;
    case 'hold.extend':
      return { at, what: 'extended', text: `Hold extended${by(who)}` };
    case 'booking.create':
      return { at, what: 'booked', text: `Booked${by(who)}` };
    case 'booking.confirm':
      return a.bookingId === claimId ? { at, what: 'booked', text: `Confirmed from a hold${by(who)}` } : { at, what: 'promoted', text: `Confirmed as a booking${by(who)}` };
    case 'proposal.review':
      return a.bookingId === claimId ? { at, what: 'approved', text: `Booked when ${who ?? 'the owner'} approved a meeting request` } : null;
    case 'booking.reschedule':
      return { at, what: 'moved', text: `Moved${by(who)}${a.reason ? ` (${a.reason})` : ''}`, from: span(details.from), to: span(details.to) };
    case 'booking.update': {
      const fields = Object.keys(details).filter((k) => k !== 'group_id');
      return { at, what: 'edited', text: `Edited${by(who)}${fields.length ? `: ${fields.join(', ').replace(/_/g, ' ')}` : ''}` };
    }
    case 'booking.cancel':
      return { at, what: 'cancelled', text: `Cancelled${by(who)}${a.reason ? `: ${a.reason}` : ''}` };
    case 'claim.preempt': {
      const winner = winners.get(String(details.preempted_by_claim_id ?? ''));
      return { at, what: 'preempted', text: `Preempted${winner ? ` by ${winner}` : ''}${who ? `, booked by ${who}` : ''}, which has a higher priority` };
    }
    default:
      return null;
  }
}

/** The claim's history from its audit rows, oldest first; empty when it has none (provider events, data from before audit rows). */
export async function auditHistory(db: Executor, me: Reviewer, claimId: string): Promise<HistoryEntry[]> {
  const rows: Row[] = await db
    .select({ a: auditLog, agentName: agents.name })
    .from(auditLog)
    .leftJoin(agents, eq(agents.id, auditLog.agentId))
    .where(and(eq(auditLog.customerId, me.customerId), eq(auditLog.outcome, 'accept'), or(eq(auditLog.bookingId, claimId), eq(auditLog.holdId, claimId))))
    .orderBy(asc(auditLog.at), asc(auditLog.id));
  if (!rows.length) return [];
  const ownerIds = [...new Set(rows.flatMap((r) => (r.a.actorOwnerId && r.a.actorOwnerId !== me.ownerId ? [r.a.actorOwnerId] : [])))];
  const names = new Map<string, string>();
  for (const id of ownerIds) {
    const [o] = await db.select({ name: owners.name }).from(owners).where(eq(owners.id, id));
    if (o?.name) names.set(id, o.name);
  }
  const winners = new Map<string, string>();
  for (const r of rows) {
    const id = r.a.action === 'claim.preempt' ? String(r.a.details?.preempted_by_claim_id ?? '') : '';
    if (!isUuid(id) || winners.has(id)) continue;
    const [w] = await db
      .select({ title: claims.title, kind: claims.kind, className: meetingClasses.name })
      .from(claims)
      .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
      .where(and(eq(claims.id, id), eq(claims.customerId, me.customerId)));
    if (w) winners.set(id, `${w.title ? `"${w.title}"` : `a ${w.kind}`}${w.className ? ` (${w.className})` : ''}`);
  }
  return rows.flatMap((r) => entry(r, claimId, me, names, winners) ?? []);
}
