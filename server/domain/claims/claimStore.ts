import { eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claimFactsAround, claimIdMadeWithKey, type ClaimFacts, type ClaimRow, type OwnerRef, type SearchFacts } from '@/db/hot/claims';
import { claims } from '@/db/schema';
import { bufferMs, isSacred, type Claim } from '../scheduling';

export { claimRow, insertClaim, releaseHoldParts, type ClaimRow, type NewClaim, type OwnerRef } from '@/db/hot/claims';

/** A hold's time to live when its request names none (POST /v1/holds `ttl_seconds`; a replacement hold's, docs/arbitration.md "Bumped meetings rebooked"). */
export const DEFAULT_HOLD_TTL_SECONDS = 600;

/** A claim as the pure core sees it, plus the agent to tell if it is preempted. */
export type LoadedClaim = Claim & { agentId: string | null; groupId?: string | null; /** Its class asks for a replacement hold when preempted (docs/arbitration.md "Bumped meetings rebooked"). */ rebook?: boolean };

/**
 * Active claims of an owner overlapping [from, to), as the pure core needs them: the
 * exclusion constraint's GiST index answers it (db/hot/claims.ts), so cost follows the
 * claims in range, not the owner's history. Holds past their expiry are left out (the
 * clock decides, whether or not a sweep has flipped them yet).
 */
export async function loadClaims(db: Executor, owner: OwnerRef, from: Date, to: Date, now: Date): Promise<LoadedClaim[]> {
  return loadedClaims(await claimFactsAround(db, owner, from, to), now);
}

/**
 * A claim's facts as the pure core sees them, or null for a hold past its expiry (the clock
 * decides, whether or not a sweep has flipped it yet). What a search reads (SearchFacts) suffices.
 */
function claimOf(c: SearchFacts, nowMs: number): Claim | null {
  if (c.kind === 'hold' && c.expires_ms !== null && c.expires_ms <= nowMs) return null;
  const start = c.start_ms;
  const end = c.end_ms;
  return {
    id: c.id,
    kind: c.kind,
    start,
    end,
    countedMinutes: c.kind === 'hold' && c.hold_scope === 'window' && c.duration_minutes ? c.duration_minutes : (end - start) / 60_000,
    // A claim without a class (imported) can never be outranked.
    priority: c.priority ?? Number.MAX_SAFE_INTEGER,
    sacred: c.kind === 'booking' && isSacred({ createdAt: c.created_ms, externalAccepted: c.external_accepted, source: c.source }, c.sacred_age, nowMs),
    external: c.source === 'provider',
    // The ranges of an all_free window hold count and give way together (docs/arbitration.md).
    group: c.part_of_hold_id ?? (c.coverage === 'all_free' ? c.id : undefined),
    // The time it keeps free around itself (docs/arbitration.md "Buffers").
    ...bufferMs(c.buffer_before, c.buffer_after),
  };
}

/** Search facts as the pure core's claims (claimOf; expired holds left out): a search's claims (groupFacts.ts). */
export function searchClaims(rows: readonly SearchFacts[], now: Date): Claim[] {
  const nowMs = now.getTime();
  const out: Claim[] = [];
  for (const row of rows) {
    const claim = claimOf(row, nowMs);
    if (claim) out.push(claim);
  }
  return out;
}

/** Claim facts as a decision needs them: claimOf plus the agent to tell, the class's name and the group. */
export function loadedClaims(rows: readonly ClaimFacts[], now: Date): LoadedClaim[] {
  const nowMs = now.getTime();
  const out: LoadedClaim[] = [];
  for (const row of rows) {
    const claim = claimOf(row, nowMs);
    if (!claim) continue;
    const loaded = claim as LoadedClaim;
    loaded.agentId = row.agent_id;
    loaded.meetingClass = row.meeting_class;
    // A member of a group hold or booking: preempting it preempts the whole group (docs/groups.md).
    loaded.groupId = row.group_id;
    if (row.on_preempted === 'hold_nearest') loaded.rebook = true;
    out.push(loaded);
  }
  return out;
}

/**
 * The claim this agent already made with this Idempotency-Key, if any. The
 * wrapper replays finished keys itself; this covers a process that died after
 * committing the effect but before storing the response: the retry takes the
 * key over and must find the effect instead of colliding with it.
 */
export async function claimMadeWithKey(tx: Executor, agentId: string, idempotencyKey: string | null, kind: 'hold' | 'booking', now: Date): Promise<ClaimRow | undefined> {
  if (!idempotencyKey) return undefined;
  const id = await claimIdMadeWithKey(tx, agentId, idempotencyKey, kind, now);
  if (!id) return undefined;
  const [row] = await tx.select().from(claims).where(eq(claims.id, id));
  return row;
}
