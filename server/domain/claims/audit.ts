import { and, desc, eq, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { auditLog } from '@/db/schema';
import { isoOrNull, pgArray, queryRows } from '@/db/statements';
import { DomainError } from '../errors';
import { newId } from '../ids';

export type AuditAction = 'hold.create' | 'booking.confirm' | 'booking.create' | 'booking.cancel' | 'proposal.review' | 'proposal.create';
export type AuditOutcome = 'accept' | 'reject' | 'counter_propose';

export type AuditEntry = {
  customerId: string;
  agentId: string | null;
  ownerId: string | null;
  ownerEmail: string | null;
  action: AuditAction;
  outcome: AuditOutcome;
  reason?: string | null;
  meetingClass?: string | null;
  start?: Date | null;
  end?: Date | null;
  holdId?: string | null;
  bookingId?: string | null;
  preemptedBookingIds?: string[];
  idempotencyKey?: string | null;
  details?: Record<string, unknown>;
  at: Date;
};

export const INSERT_AUDIT = `insert into audit_log (id, customer_id, at, agent_id, owner_id, owner_email, action, outcome, reason, meeting_class,
  start_at, end_at, hold_id, booking_id, preempted_booking_ids, idempotency_key, details)
  values (${Array.from({ length: 17 }, (_, i) => `$${i + 1}`).join(', ')})`;

/** One row per decision; call it inside the transaction that applies the decision. */
export async function writeAudit(db: Executor, e: AuditEntry): Promise<string> {
  const id = newId(e.at.getTime());
  // Hand-written (db/statements.ts): every decision writes one, on the hot path.
  await queryRows(db, INSERT_AUDIT, [
    id, e.customerId, e.at.toISOString(), e.agentId, e.ownerId, e.ownerEmail, e.action, e.outcome, e.reason ?? null, e.meetingClass ?? null,
    isoOrNull(e.start), isoOrNull(e.end), e.holdId ?? null, e.bookingId ?? null, pgArray(e.preemptedBookingIds ?? []), e.idempotencyKey ?? null,
    e.details === undefined ? null : JSON.stringify(e.details),
  ]);
  return id;
}

export type AuditView = {
  id: string;
  at: string;
  agent_id: string | null;
  owner_email: string | null;
  action: string;
  outcome: string;
  reason: string | null;
  meeting_class: string | null;
  start: string | null;
  end: string | null;
  hold_id: string | null;
  booking_id: string | null;
  preempted_booking_ids: string[];
  idempotency_key: string | null;
};

type AuditRow = typeof auditLog.$inferSelect;

function auditView(r: AuditRow): AuditView {
  return {
    id: r.id,
    at: r.at.toISOString(),
    agent_id: r.agentId,
    owner_email: r.ownerEmail,
    action: r.action,
    outcome: r.outcome,
    reason: r.reason,
    meeting_class: r.meetingClass,
    start: r.startAt?.toISOString() ?? null,
    end: r.endAt?.toISOString() ?? null,
    hold_id: r.holdId,
    booking_id: r.bookingId,
    preempted_booking_ids: r.preemptedBookingIds,
    idempotency_key: r.idempotencyKey,
  };
}

export type AuditQuery = {
  ownerEmail?: string;
  agentId?: string;
  from?: Date;
  to?: Date;
  outcome?: AuditOutcome;
  action?: string;
  limit: number;
  cursor?: string;
  /** Add each decision's alternatives (from its details) as `alternatives` (the dashboard shows them; /v1 does not). */
  withAlternatives?: boolean;
};

export type AuditAlternative = { start: string; end: string; reason_code?: string };

function alternativesOf(r: AuditRow): AuditAlternative[] {
  const list = (r.details as { alternatives?: unknown } | null)?.alternatives;
  return Array.isArray(list) ? (list as AuditAlternative[]) : [];
}

function encodeCursor(r: AuditRow): string {
  return Buffer.from(JSON.stringify([r.at.toISOString(), r.id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(at);
    if (Number.isNaN(date.getTime()) || typeof id !== 'string') throw new Error('bad cursor');
    return { at: date, id };
  } catch {
    throw new DomainError('invalid_request', 'cursor is not one this API returned', { details: { fields: [{ path: 'query.cursor', message: 'Invalid cursor' }] } });
  }
}

/** The customer's audit log, newest first, filtered, with a keyset cursor. */
export async function queryAudit(
  db: Executor,
  customerId: string,
  q: AuditQuery,
): Promise<{ entries: (AuditView & { alternatives?: AuditAlternative[] })[]; next_cursor: string | null }> {
  const conds: SQL[] = [eq(auditLog.customerId, customerId)];
  if (q.ownerEmail) conds.push(eq(auditLog.ownerEmail, q.ownerEmail));
  if (q.agentId) conds.push(eq(auditLog.agentId, q.agentId));
  if (q.from) conds.push(gte(auditLog.at, q.from));
  if (q.to) conds.push(lt(auditLog.at, q.to));
  if (q.outcome) conds.push(eq(auditLog.outcome, q.outcome));
  if (q.action) conds.push(eq(auditLog.action, q.action));
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    conds.push(or(lt(auditLog.at, c.at), and(eq(auditLog.at, c.at), sql`${auditLog.id} < ${c.id}`))!);
  }
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...conds))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const entries = page.map((r) => (q.withAlternatives ? { ...auditView(r), alternatives: alternativesOf(r) } : auditView(r)));
  return { entries, next_cursor: rows.length > q.limit ? encodeCursor(page[page.length - 1]) : null };
}
