import type { Db, Tx } from '@/db/client';
import { defer } from '@/db/hot/driver';
import type { AgentActor } from '../access';
import { DomainError } from '../errors';
import { newId } from '../ids';
import { arbitrate, type Alternative, type Decision, type RequestPolicy } from '../scheduling';
import { writeAudit, writeAuditGrouped, type AuditAction, type AuditActor } from '../audit';
import { claimMadeWithKey } from './claimStore';
import { ARBITRATION_MARGIN_MS, loadClaims, ownerRules, requestPolicy, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { decideGroup } from './groupDecision';
import { ownerRefusalWithoutLock } from './earlyRefusal';
import { alternativesJson } from './rejection';

/**
 * Deciding a group's members and answering its refusal (docs/groups.md, "Group holds and
 * bookings"): every member arbitrated with its own rules, the group decided by the pure
 * groupDecision.ts; a refusal names each refusing owner with its reason, is audited once per
 * owner, and offers alternatives every owner accepts. Shared by group holds and bookings
 * (groupService.ts), their lifecycle, group reschedules and collective approvals.
 */

/** The most alternatives a group refusal offers. */
const MAX_GROUP_ALTERNATIVES = 5;

type Refusal = { ownerEmail: string; reason: string; conflicts?: unknown[] };

/**
 * A refused group: each refusing owner with its reason (`owners`), and up to five
 * alternatives every owner would accept (candidates: the refusing owners' own alternatives,
 * each arbitrated again at every owner).
 */
function groupRefusal(
  refusing: { target: SchedulingTarget; decision: Exclude<Decision, { outcome: 'accept' }> }[],
  members: { target: SchedulingTarget; policy: RequestPolicy; wide: LoadedClaim[]; excludeClaimIds?: string[] }[],
  now: Date,
): DomainError {
  if (refusing.some((r) => r.decision.outcome === 'past_time')) return new DomainError('PAST_TIME', 'The requested start is in the past');
  const owners: Refusal[] = refusing.map(({ target, decision }) => {
    const d = decision as Extract<Decision, { outcome: 'reject' | 'counter_propose' }>;
    return { ownerEmail: target.owner.email, reason: d.failedReason, conflicts: d.conflicts };
  });
  const seen = new Set<string>();
  const alternatives: Alternative[] = [];
  const candidates = refusing
    .flatMap((r) => (r.decision.outcome === 'past_time' ? [] : r.decision.alternatives))
    .sort((a, b) => a.start - b.start);
  for (const alt of candidates) {
    const key = `${alt.start}|${alt.end}`;
    if (seen.has(key) || alternatives.length >= MAX_GROUP_ALTERNATIVES) continue;
    seen.add(key);
    const ok = members.every((m) => arbitrate({ start: alt.start, end: alt.end, ...m.policy }, { now: now.getTime(), rules: ownerRules(m.target.owner), claims: m.wide, excludeClaimIds: m.excludeClaimIds }).outcome === 'accept');
    if (ok) alternatives.push(alt);
  }
  const first = refusing[0].decision as Extract<Decision, { outcome: 'reject' | 'counter_propose' }>;
  const names = owners.map((o) => `${o.ownerEmail} (${o.reason})`).join(', ');
  return new DomainError('ARBITRATION_REJECTED', `Not every owner accepts the slot: ${names}${alternatives.length ? `; ${alternatives.length} slot(s) in alternatives[] suit every owner` : ''}`, {
    reason: alternatives.length ? 'COUNTER_PROPOSED' : first.failedReason,
    extra: {
      owners: owners.map((o) => ({ owner_email: o.ownerEmail, reason: o.reason, ...(o.conflicts?.length ? { conflicts: o.conflicts } : {}) })),
      alternatives: alternativesJson(alternatives, members[0].target.owner.timeZone),
      conflicts: refusing.flatMap((r) => (r.decision.outcome === 'past_time' ? [] : r.decision.conflicts)),
    },
  });
}

/**
 * Who decides a group: the agent whose claim it is, or (an owner approving a collective public
 * proposal, docs/public-scheduling.md "Several hosts"; a group reschedule in the dashboard) the
 * customer with no agent and the owner as the audit rows' actor.
 */
export type GroupDecider = { customerId: string; agentId: string | null; actor?: AuditActor };

/** One audit row per owner of a refused group, all naming the attempt's group id. */
export function auditGroupRefusal(
  tx: Tx,
  actor: GroupDecider,
  action: AuditAction,
  groupId: string,
  targets: readonly SchedulingTarget[],
  refusing: ReadonlySet<string>,
  span: { start: Date; end: Date },
  reasons: ReadonlyMap<string, string>,
  idempotencyKey: string | null,
  now: Date,
): void {
  const refusedBy = targets.filter((t) => refusing.has(t.owner.email)).map((t) => t.owner.email);
  for (const t of targets) {
    defer(
      tx,
      writeAudit(tx, {
        customerId: actor.customerId,
        agentId: actor.agentId,
        ...(actor.actor ? { actor: actor.actor } : {}),
        ownerId: t.owner.id,
        ownerEmail: t.owner.email,
        action,
        outcome: 'reject',
        reason: reasons.get(t.owner.email) ?? 'GROUP_REFUSED',
        meetingClass: t.meetingClass.name,
        start: span.start,
        end: span.end,
        idempotencyKey,
        details: { group_id: groupId, refused_by: refusedBy },
        at: now,
      }),
    );
  }
}

export type MemberPlan = { target: SchedulingTarget; policy: RequestPolicy; around: LoadedClaim[]; excludeClaimIds?: string[] };

/**
 * Arbitrate every member (pure, on the claims loaded around each) and decide the group; a
 * refusal is audited (one row per owner) and answered with every refusing owner.
 */
export async function decideMembers(tx: Tx, actor: GroupDecider, action: AuditAction, groupId: string, plans: MemberPlan[], span: { start: Date; end: Date }, idempotencyKey: string | null, now: Date): Promise<DomainError | null> {
  const decide = (p: MemberPlan, claimsAround: LoadedClaim[]) =>
    arbitrate({ start: span.start.getTime(), end: span.end.getTime(), ...p.policy }, { now: now.getTime(), rules: ownerRules(p.target.owner), claims: claimsAround, excludeClaimIds: p.excludeClaimIds });
  const verdict = decideGroup(plans.map((p) => ({ member: p, decision: decide(p, p.around) })), [], new Map());
  if (verdict.accepted) return null;
  // Alternatives reach 72 h either side: the wider claims of every owner.
  const wide = await Promise.all(plans.map((p) => loadClaims(tx, p.target.owner.id, new Date(span.start.getTime() - ARBITRATION_MARGIN_MS), new Date(span.end.getTime() + ARBITRATION_MARGIN_MS), now)));
  const members = plans.map((p, i) => ({ ...p, wide: wide[i] }));
  const refusing = members.flatMap((m) => {
    const d = decide(m, m.wide);
    return d.outcome === 'accept' ? [] : [{ target: m.target, decision: d }];
  });
  const error = groupRefusal(refusing, members, now);
  const reasons = new Map(refusing.map((r) => [r.target.owner.email, r.decision.outcome === 'past_time' ? 'PAST_TIME' : r.decision.failedReason]));
  auditGroupRefusal(tx, actor, action, groupId, plans.map((p) => p.target), new Set(reasons.keys()), span, reasons, idempotencyKey, now);
  return error;
}

export type GroupTargetInput = { ownerEmails: string[]; calendarType?: string; meetingClass: string };

/**
 * The refusal of a group claim a consistent read (one read-only snapshot of every owner, no
 * lock) already shows: some owner's slot is taken by a claim of equal or higher rank, or a
 * sacred meeting (docs/architecture.md, "Refusals without the lock"); one owner's snapshot is
 * enough to refuse the group, and racers share each owner's read. Only ever refuses; the runner
 * asks only while another decision on the same slot of one of the owners is queued or running
 * (a race). One audit row per refusing owner.
 */
export async function refuseGroupWithoutLock(db: Db, actor: AgentActor, input: GroupTargetInput, span: { start: Date; end: Date }, action: AuditAction, kind: 'hold' | 'booking', idempotencyKey: string | null): Promise<DomainError | null> {
  const [made, verdicts] = await Promise.all([
    idempotencyKey ? claimMadeWithKey(db, actor.agentId, idempotencyKey, kind, new Date()) : undefined,
    Promise.all(input.ownerEmails.map((ownerEmail) => ownerRefusalWithoutLock(db, actor, { ownerEmail, calendarType: input.calendarType, meetingClass: input.meetingClass }, span.start, span.end))),
  ]);
  if (made || verdicts.some((v) => !v)) return null;
  const read = verdicts as NonNullable<(typeof verdicts)[number]>[];
  const refusing = read.flatMap((r) => (r.decision ? [{ ...r, decision: r.decision }] : []));
  if (!refusing.length) return null;
  const at = new Date(Math.max(...refusing.map((r) => r.now)));
  const groupId = newId(at.getTime());
  const refusedBy = refusing.map((r) => r.target.owner.email);
  await Promise.all(
    refusing.map((r) =>
      writeAuditGrouped(db, {
        customerId: actor.customerId,
        agentId: actor.agentId,
        ownerId: r.target.owner.id,
        ownerEmail: r.target.owner.email,
        action,
        outcome: 'reject',
        reason: r.decision.outcome === 'past_time' ? 'PAST_TIME' : r.decision.failedReason,
        meetingClass: r.target.meetingClass.name,
        start: span.start,
        end: span.end,
        idempotencyKey,
        details: { group_id: groupId, refused_by: refusedBy },
        at,
      }),
    ),
  );
  // Alternatives: each checked against every owner's snapshot.
  return groupRefusal(refusing, read.map((r) => ({ target: r.target, policy: requestPolicy(actor, r.target), wide: r.around })), at);
}
