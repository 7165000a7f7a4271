/**
 * Buffers (docs/arbitration.md "Buffers"): a meeting plus its own buffers must not overlap
 * another meeting; buffers may overlap each other. For a request [s, e) with buffers b (before)
 * and a (after), and a claim [cs, ce) with buffers b' and a', the request is in the claim's way
 * when [s - b, e + a) overlaps [cs, ce) or [s, e) overlaps [cs - b', ce + a'). Both together
 * are one test: [s, e) overlaps the claim's *reach* [cs - max(a, b'), ce + max(b, a')).
 * Provider busy time (`external`) has no buffers of its own, and the request's buffers reach
 * it only when the owner asks for it (OwnerRules.bufferExternalEvents).
 */
import { MINUTE } from './localTime';
import { MAX_BUFFER_MINUTES } from './limits';
import type { SchedulingContext } from './schedulingContext';
import type { Claim, Interval, OwnerRules, RequestPolicy } from './types';

/** The most a buffer may be (limits.ts MAX_BUFFER_MINUTES), in ms. */
export const MAX_BUFFER_MS = MAX_BUFFER_MINUTES * MINUTE;

/** The request's buffers that apply to this claim: none toward provider busy time unless the owner asks. */
function requestBuffers(claim: Claim, policy: Partial<RequestPolicy>, rules: OwnerRules): { before: number; after: number } {
  if (claim.external && !rules.bufferExternalEvents) return { before: 0, after: 0 };
  return { before: policy.bufferBeforeMs ?? 0, after: policy.bufferAfterMs ?? 0 };
}

/** The time this claim keeps a request with these buffers out of (its reach; the claim itself when nobody has buffers). */
export function reachOf(claim: Claim, policy: Partial<RequestPolicy>, rules: OwnerRules): Interval {
  const ours = requestBuffers(claim, policy, rules);
  return {
    start: claim.start - Math.max(claim.bufferBeforeMs ?? 0, ours.after),
    end: claim.end + Math.max(claim.bufferAfterMs ?? 0, ours.before),
  };
}

/** Whether the request's or the claim's buffers are in play at all (a fast path when none are). */
function padOf(ctx: SchedulingContext, policy: Partial<RequestPolicy>): number {
  return Math.max(policy.bufferBeforeMs ?? 0, policy.bufferAfterMs ?? 0, ctx.claims.maxBufferMs);
}

/**
 * The claims in the way of [start, end) for a request with these buffers, in start order: every
 * claim it overlaps, and every claim whose reach (reachOf) it overlaps. With no buffer anywhere,
 * exactly the overlapping claims.
 */
export function claimsInReach(ctx: SchedulingContext, start: number, end: number, policy: Partial<RequestPolicy>): Claim[] {
  const pad = padOf(ctx, policy);
  if (pad === 0) return ctx.claims.overlapping(start, end);
  return ctx.claims.overlapping(start - pad, end + pad).filter((c) => {
    const r = reachOf(c, policy, ctx.rules);
    return r.start < end && start < r.end;
  });
}

/** The reaches of the claims near [from, to) (unclipped, start order): the time no meeting of this request may touch because of them. */
export function reachesWithin(ctx: SchedulingContext, from: number, to: number, policy: Partial<RequestPolicy>, keep: (c: Claim) => boolean = () => true): Interval[] {
  const pad = padOf(ctx, policy);
  const out: Interval[] = [];
  for (const c of ctx.claims.overlapping(from - pad, to + pad)) {
    if (!keep(c)) continue;
    const r = reachOf(c, policy, ctx.rules);
    if (r.start < to && from < r.end) out.push(r);
  }
  return out;
}

/** Buffer minutes as the core's milliseconds (a policy's or claim's fields). */
export function bufferMs(beforeMinutes: number | null | undefined, afterMinutes: number | null | undefined): { bufferBeforeMs: number; bufferAfterMs: number } {
  return { bufferBeforeMs: (beforeMinutes ?? 0) * MINUTE, bufferAfterMs: (afterMinutes ?? 0) * MINUTE };
}
