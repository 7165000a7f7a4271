import { and, desc, eq, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { auditLog, owners, type AuditAction, type AuditActorKind } from '@/db/schema';
import { insertAudit, insertAuditRows, type NewAuditRow } from '@/db/hot/audit';
import { invalidField } from '../errors';
import { isUuid, newId } from '../ids';
import { auditWords, type AuditWords } from './words';
import { groupCommit } from '../groupCommit';

export type { AuditAction };
export type AuditOutcome = 'accept' | 'reject' | 'counter_propose' | 'denied';

/**
 * Who acted (docs/reliability.md, "Audit actors"): an agent through its API key, an owner
 * in the dashboard, a public requester on the booking pages, or the system (customer
 * set-up, the clock).
 */
export type AuditActor =
  | { kind: 'agent'; agentId: string }
  | { kind: 'owner'; ownerId: string; email: string }
  | { kind: 'requester'; email: string }
  | { kind: 'system' };

/** The actor columns of an audit row: the kind and exactly the identity it names. */
export function actorColumns(actor: AuditActor): { actorKind: AuditActorKind; agentId: string | null; actorOwnerId: string | null; actorOwnerEmail: string | null; actorRequesterEmail: string | null } {
  return {
    actorKind: actor.kind,
    agentId: actor.kind === 'agent' ? actor.agentId : null,
    actorOwnerId: actor.kind === 'owner' ? actor.ownerId : null,
    actorOwnerEmail: actor.kind === 'owner' ? actor.email : null,
    actorRequesterEmail: actor.kind === 'requester' ? actor.email : null,
  };
}

export type AuditEntry = {
  customerId: string;
  /** The agent that acted (its API key); null when `actor` names someone else or the system acted. */
  agentId: string | null;
  /** Who acted when not the agent `agentId`: an owner approving in the dashboard, a requester, the system. */
  actor?: AuditActor;
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

/** One row per decision; call it inside the transaction that applies the decision. */
export async function writeAudit(db: Executor, e: AuditEntry): Promise<string> {
  const row = auditRow(e);
  await insertAudit(db, row);
  return row.id;
}

function auditRow(e: AuditEntry): NewAuditRow {
  return {
    id: newId(e.at.getTime()),
    customerId: e.customerId,
    at: e.at,
    ...actorColumns(e.actor ?? (e.agentId ? { kind: 'agent', agentId: e.agentId } : { kind: 'system' })),
    ownerId: e.ownerId,
    ownerEmail: e.ownerEmail,
    action: e.action,
    outcome: e.outcome,
    reason: e.reason ?? null,
    meetingClass: e.meetingClass ?? null,
    startAt: e.start ?? null,
    endAt: e.end ?? null,
    holdId: e.holdId ?? null,
    bookingId: e.bookingId ?? null,
    preemptedBookingIds: e.preemptedBookingIds ?? [],
    idempotencyKey: e.idempotencyKey ?? null,
    details: e.details ?? null,
  };
}

/**
 * The row of a request refused for a missing permission or outside the owner scope (action
 * request.denied, outcome denied, reason the code), so an owner sees what an agent tried. An
 * owner_scope_denied refusal names the owner that was asked for (`ownerEmail`, with its id when
 * that owner exists).
 */
export async function writeDeniedAudit(
  db: Executor,
  e: { customerId: string; agentId: string; code: string; ownerEmail?: string | null; details: Record<string, unknown>; at: Date },
): Promise<string> {
  const ownerEmail = e.ownerEmail ?? null;
  const [owner] = ownerEmail ? await db.select({ id: owners.id }).from(owners).where(and(eq(owners.customerId, e.customerId), eq(owners.email, ownerEmail))).limit(1) : [];
  return writeAudit(db, {
    customerId: e.customerId,
    agentId: e.agentId,
    ownerId: owner?.id ?? null,
    ownerEmail,
    action: 'request.denied',
    outcome: 'denied',
    reason: e.code,
    details: e.details,
    at: e.at,
  });
}

/** Refusals' audit rows, grouped (./groupCommit.ts): one multi-row insert for up to 64. */
const insertGrouped = groupCommit<NewAuditRow, void>(64, async (db, rows) => {
  await insertAuditRows(db, rows);
  return rows.map(() => undefined);
});

/**
 * The audit row of a decision taken outside any transaction (a refusal without the lock,
 * earlyRefusal.ts), written in autocommit and committed when this resolves. Rows written
 * while an insert is in flight wait for it and then go out together, as one multi-row
 * insert (group commit): a burst of refusals costs a few round trips, not one each.
 */
export async function writeAuditGrouped(db: Executor, e: AuditEntry): Promise<string> {
  const row = auditRow(e);
  await insertGrouped(db, row);
  return row.id;
}

export type AuditView = {
  id: string;
  at: string;
  agent_id: string | null;
  owner_email: string | null;
  action: AuditAction;
  outcome: string;
  reason: string | null;
  meeting_class: string | null;
  start: string | null;
  end: string | null;
  hold_id: string | null;
  booking_id: string | null;
  preempted_booking_ids: string[];
  idempotency_key: string | null;
  /** Who acted: `agent` (agent_id), `owner` (actor_owner_email), `requester` (actor_requester_email) or `system`. */
  actor_kind: AuditActorKind;
  /** The owner who acted through the dashboard (null when an agent, a requester or the system acted). */
  actor_owner_email: string | null;
  /** The public requester who acted (their contact email), else null. */
  actor_requester_email: string | null;
  /** What an administrative change changed; a decision's alternatives or window. */
  details: Record<string, unknown> | null;
};

type AuditRow = typeof auditLog.$inferSelect;

function auditView(r: AuditRow): AuditView {
  return {
    id: r.id,
    at: r.at.toISOString(),
    agent_id: r.agentId,
    owner_email: r.ownerEmail,
    // Rows are written with AUDIT_ACTIONS only (AuditEntry.action, AdminChange.action).
    action: r.action as AuditAction,
    outcome: r.outcome,
    reason: r.reason,
    meeting_class: r.meetingClass,
    start: r.startAt?.toISOString() ?? null,
    end: r.endAt?.toISOString() ?? null,
    hold_id: r.holdId,
    booking_id: r.bookingId,
    preempted_booking_ids: r.preemptedBookingIds,
    idempotency_key: r.idempotencyKey,
    actor_kind: r.actorKind,
    actor_owner_email: r.actorOwnerEmail,
    actor_requester_email: r.actorRequesterEmail,
    details: r.details ?? null,
  };
}

export type AuditQuery = {
  ownerEmail?: string;
  agentId?: string;
  from?: Date;
  to?: Date;
  outcome?: AuditOutcome;
  action?: AuditAction;
  actorKind?: AuditActorKind;
  limit: number;
  cursor?: string;
  /** For the dashboard (/v1 answers neither): each decision's alternatives (from its details) as `alternatives`, and the row in words as `words` (./words.ts). */
  forDashboard?: boolean;
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
    throw invalidField('cursor', 'Invalid cursor', 'cursor is not one this API returned');
  }
}

/** The customer's audit log, newest first, filtered, with a keyset cursor. */
export async function queryAudit(
  db: Executor,
  customerId: string,
  q: AuditQuery,
): Promise<{ entries: (AuditView & { alternatives?: AuditAlternative[]; words?: AuditWords })[]; next_cursor: string | null }> {
  const conds: SQL[] = [eq(auditLog.customerId, customerId)];
  if (q.ownerEmail) conds.push(eq(auditLog.ownerEmail, q.ownerEmail));
  if (q.from) conds.push(gte(auditLog.at, q.from));
  if (q.to) conds.push(lt(auditLog.at, q.to));
  if (q.outcome) conds.push(eq(auditLog.outcome, q.outcome));
  if (q.action) conds.push(eq(auditLog.action, q.action));
  if (q.actorKind) conds.push(eq(auditLog.actorKind, q.actorKind));
  if (q.from && q.to && q.from > q.to) throw invalidField('from', 'must not be after to', 'from must not be after to');
  if (q.agentId) {
    if (!isUuid(q.agentId)) return { entries: [], next_cursor: null };
    conds.push(eq(auditLog.agentId, q.agentId));
  }
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
  const entries = page.map((r) => {
    const view = auditView(r);
    return q.forDashboard ? { ...view, alternatives: alternativesOf(r), words: auditWords(view) } : view;
  });
  return { entries, next_cursor: rows.length > q.limit ? encodeCursor(page[page.length - 1]) : null };
}
