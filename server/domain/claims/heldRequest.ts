import { eq } from 'drizzle-orm';
import type { Tx } from '@/db/client';
import { releaseHoldParts } from '@/db/hot/claims';
import { bookingProposals, claims, type VideoProvider } from '@/db/schema';
import { writeAudit } from '../audit';
import { normalizeEmail, type AgentActor } from '../access';
import { newId } from '../ids';
import { localSpan } from '../scheduling';
import { requestPolicy, type ClaimRow, type LoadedClaim, type SchedulingTarget } from './claimTarget';
import { runClaim } from './claimDecision';
import type { Answer } from './claimRunner';
import { newHold } from './windowHold';

type VideoSetting = { provider: VideoProvider; url?: string | null };

/**
 * An agent booking that an owner's approval policy covers (docs/api.md "Approval policies"):
 * instead of a booking, the time is held and a request waits in the owner's inbox. The hold is
 * decided as the booking would be (the same arbitration, on the one claim path, in the claim's
 * own transaction) and lasts until the meeting's start; the request is a booking proposal of
 * origin agent naming the hold (`booking_proposals.hold_id`), so the owner reviews it as any
 * proposal and approving promotes the hold (publicScheduling/review/heldApproval.ts). The agent is answered 202 with
 * `status: "pending_approval"`, and later hears booking.approved or booking.declined. The
 * agent's `video` waits with the request and is the approved booking's (docs/calendars.md "Video links").
 */

export type PendingApprovalView = {
  status: 'pending_approval';
  proposal_id: string;
  hold_id: string;
  owner_email: string;
  meeting_class: string;
  start: string;
  end: string;
  start_local: string;
  end_local: string;
  /** The hold lasts until the meeting's start: the owner decides before then. */
  expires_at: string;
  title: string | null;
  /** The video link asked for, kept with the request and made when the owner approves (docs/calendars.md "Video links"). */
  video?: { provider: VideoProvider; url: string | null };
  warnings?: string[];
};

export type HeldRequestInput = {
  start: Date;
  end: Date;
  title?: string;
  description?: string;
  attendees?: { email: string; name?: string }[];
  video?: VideoSetting | null;
};

/** Hold the time and file the request, in the claim's transaction (the owner locked by the caller). */
export async function holdForApproval(
  tx: Tx,
  q: { actor: AgentActor; target: SchedulingTarget; around?: LoadedClaim[]; input: HeldRequestInput; now: Date; idempotencyKey: string | null; auditDetails?: Record<string, unknown> },
): Promise<Answer<PendingApprovalView>> {
  const { actor, target, input, now } = q;
  const minutes = Math.round((input.end.getTime() - input.start.getTime()) / 60_000);
  const hold = newHold({ actor, target, scope: 'candidate', ttlMs: input.start.getTime() - now.getTime(), now, idempotencyKey: q.idempotencyKey }, input.start, input.end, minutes);
  const proposalId = newId(now.getTime());
  const r = await runClaim(tx, {
    action: 'booking.request',
    target,
    policy: requestPolicy(actor, target),
    claim: hold,
    now,
    around: q.around,
    auditDetails: { ...q.auditDetails, proposal_id: proposalId, approval: 'pending' },
  });
  if (!r.ok) return r;
  const value = await fileRequest(tx, { actor, target, input, now, proposalId, holdId: hold.id });
  if (r.warnings.length) value.warnings = r.warnings;
  return { ok: true, value };
}

/** The request in the owner's inbox (a proposal of origin agent naming the hold), and the 202's body. */
async function fileRequest(
  tx: Tx,
  q: { actor: AgentActor; target: SchedulingTarget; input: HeldRequestInput; now: Date; proposalId: string; holdId: string },
): Promise<PendingApprovalView> {
  const { actor, target, input, now, proposalId } = q;
  const minutes = Math.round((input.end.getTime() - input.start.getTime()) / 60_000);
  const hold = { id: q.holdId };
  const slot = { start: input.start.toISOString(), end: input.end.toISOString() };
  // The hold's row is inserted at COMMIT's pipeline (runClaim defers it): hold_id's foreign key is deferred.
  await tx.insert(bookingProposals).values({
    id: proposalId,
    customerId: actor.customerId,
    ownerId: target.owner.id,
    origin: 'agent',
    meetingClassId: target.meetingClass.id,
    agentId: actor.agentId,
    status: 'pending_review',
    attendees: (input.attendees ?? []).map((a) => ({ email: normalizeEmail(a.email), ...(a.name ? { name: a.name } : {}) })),
    durationMinutes: minutes,
    requestedStart: input.start,
    requestedEnd: input.end,
    candidates: [slot],
    message: input.description ?? null,
    title: input.title ?? null,
    holdId: hold.id,
    video: input.video ?? null,
    createdAt: now,
    updatedAt: now,
  });
  return {
    status: 'pending_approval',
    proposal_id: proposalId,
    hold_id: hold.id,
    owner_email: target.owner.email,
    meeting_class: target.meetingClass.name,
    ...localSpan(input.start, input.end, target.owner.timeZone),
    expires_at: input.start.toISOString(),
    title: input.title ?? null,
    ...(input.video ? { video: { provider: input.video.provider, url: input.video.url ?? null } } : {}),
  };
}

/**
 * POST /v1/bookings/{hold_id}/confirm by an agent an owner's approval policy covers: the hold
 * itself waits for the owner. It is narrowed to the slot confirmed (a window hold's other ranges
 * released) and kept until the meeting's start, and the request filed on it (audited as
 * booking.request); the confirm answers 202 pending_approval. A hold already waiting answers
 * the same request again.
 */
export async function requestApprovalOnHold(
  tx: Tx,
  q: { actor: AgentActor; target: SchedulingTarget; hold: ClaimRow; input: HeldRequestInput; now: Date; idempotencyKey: string | null; filed: string | null },
): Promise<PendingApprovalView> {
  const { actor, target, hold, input, now } = q;
  if (q.filed) {
    const [p] = await tx.select().from(bookingProposals).where(eq(bookingProposals.id, q.filed));
    const start = p.requestedStart ?? hold.startAt;
    const end = p.requestedEnd ?? hold.endAt;
    return {
      status: 'pending_approval',
      proposal_id: p.id,
      hold_id: hold.id,
      owner_email: target.owner.email,
      meeting_class: target.meetingClass.name,
      ...localSpan(start, end, target.owner.timeZone),
      expires_at: (hold.expiresAt ?? start).toISOString(),
      title: p.title,
      ...(p.video ? { video: { provider: p.video.provider, url: p.video.url ?? null } } : {}),
    };
  }
  const minutes = Math.round((input.end.getTime() - input.start.getTime()) / 60_000);
  await releaseHoldParts(tx, hold.id, 'released', 'released: the confirmed slot waits for approval', now);
  await tx
    .update(claims)
    .set({ startAt: input.start, endAt: input.end, holdScope: 'candidate', durationMinutes: minutes, coverage: null, expiresAt: input.start, updatedAt: now })
    .where(eq(claims.id, hold.id));
  const proposalId = newId(now.getTime());
  const value = await fileRequest(tx, { actor, target, input, now, proposalId, holdId: hold.id });
  await writeAudit(tx, {
    customerId: actor.customerId,
    agentId: actor.agentId,
    actor: { kind: 'agent', agentId: actor.agentId },
    ownerId: target.owner.id,
    ownerEmail: target.owner.email,
    action: 'booking.request',
    outcome: 'accept',
    meetingClass: target.meetingClass.name,
    start: input.start,
    end: input.end,
    holdId: hold.id,
    idempotencyKey: q.idempotencyKey,
    details: { proposal_id: proposalId, approval: 'pending', from_confirm: true },
    at: now,
  });
  return value;
}
