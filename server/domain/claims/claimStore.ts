import type { Executor } from '@/db/client';
import type { claims } from '@/db/schema';
import { isoOrNull, queryRows } from '@/db/statements';
import { isSacred, type Claim } from '../scheduling';

/**
 * The statements every claim decision and availability search runs on the
 * claims table, hand-written (db/statements.ts explains why): the claims
 * around a request, the owner's due holds, the new claim. Status values are
 * literals, not parameters, so the planner can match the exclusion
 * constraint's partial GiST index even for a generic prepared plan. The
 * statement texts are exported for the booking benchmark, which replays them
 * in pgbench (bench/booking/pgbench.ts).
 */
export type ClaimRow = typeof claims.$inferSelect;
export type NewClaim = typeof claims.$inferInsert & { id: string; createdAt: Date; updatedAt: Date };

/** A claim as the pure core sees it, plus the agent to tell if it is preempted. */
export type LoadedClaim = Claim & { agentId: string | null };

type ClaimFacts = {
  id: string;
  kind: 'hold' | 'booking';
  agent_id: string | null;
  start_ms: number;
  end_ms: number;
  hold_scope: string | null;
  duration_minutes: number | null;
  expires_ms: number | null;
  created_ms: number;
  external_accepted: boolean;
  source: 'agent' | 'public' | 'provider';
  priority: number | null;
  sacred_age: number | null;
};

const ms = (column: string) => `(extract(epoch from c.${column}) * 1000)::float8`;
const AROUND_COLUMNS = `c.id, c.kind, c.agent_id, ${ms('start_at')} as start_ms, ${ms('end_at')} as end_ms, c.hold_scope,
  c.duration_minutes, ${ms('expires_at')} as expires_ms, ${ms('created_at')} as created_ms, c.external_accepted, c.source,
  m.priority, m.sacred_meeting_age_hours as sacred_age`;
const IN_RANGE = `c.status in ('active', 'confirmed') and tstzrange(c.start_at, c.end_at, '[)') && tstzrange($2::timestamptz, $3::timestamptz, '[)')`;
export const AROUND = `select ${AROUND_COLUMNS} from claims c left join meeting_classes m on m.id = c.meeting_class_id
  where c.owner_id = $1 and ${IN_RANGE}`;
/** The same, for an owner named by customer ($1) and email ($4), so it can be sent before the owner is known. */
export const AROUND_BY_EMAIL = `select ${AROUND_COLUMNS} from claims c left join meeting_classes m on m.id = c.meeting_class_id
  where c.owner_id = (select id from owners where customer_id = $1 and email = $4) and ${IN_RANGE}`;

/** An owner by id, or by customer and (normalised) email before its id is known. */
export type OwnerRef = string | { customerId: string; email: string };

/**
 * Active claims of an owner overlapping [from, to), as the pure core needs
 * them: the exclusion constraint's GiST index answers it, so cost follows the
 * claims in range, not the owner's history. Holds past their expiry are left
 * out (the clock decides, whether or not a sweep has flipped them yet).
 */
export async function loadClaims(db: Executor, owner: OwnerRef, from: Date, to: Date, now: Date): Promise<LoadedClaim[]> {
  const rows = (await (typeof owner === 'string'
    ? queryRows(db, AROUND, [owner, from.toISOString(), to.toISOString()])
    : queryRows(db, AROUND_BY_EMAIL, [owner.customerId, from.toISOString(), to.toISOString(), owner.email]))) as ClaimFacts[];
  const nowMs = now.getTime();
  const out: LoadedClaim[] = [];
  for (const c of rows) {
    if (c.kind === 'hold' && c.expires_ms !== null && c.expires_ms <= nowMs) continue;
    const start = c.start_ms;
    const end = c.end_ms;
    out.push({
      id: c.id,
      kind: c.kind,
      agentId: c.agent_id,
      start,
      end,
      countedMinutes: c.kind === 'hold' && c.hold_scope === 'window' && c.duration_minutes ? c.duration_minutes : (end - start) / 60_000,
      // A claim without a class (imported) can never be outranked.
      priority: c.priority ?? Number.MAX_SAFE_INTEGER,
      sacred: c.kind === 'booking' && isSacred({ createdAt: c.created_ms, externalAccepted: c.external_accepted, source: c.source }, c.sacred_age, nowMs),
    });
  }
  return out;
}

/** What a hold expiry needs to tell its agent. */
export type ExpiredHold = { id: string; customer_id: string; agent_id: string | null; start_at: string; end_at: string; expires_at: string };

const EXPIRE = `update claims set status = 'expired', status_reason = 'ttl_elapsed', updated_at = $2
  where kind = 'hold' and status = 'active' and expires_at <= $2 and owner_id = `;
const EXPIRE_RETURNING = ' returning id, customer_id, agent_id, start_at, end_at, expires_at';
export const EXPIRE_BY_ID = `${EXPIRE}$1${EXPIRE_RETURNING}`;
export const EXPIRE_BY_EMAIL = `${EXPIRE}(select id from owners where customer_id = $1 and email = $3)${EXPIRE_RETURNING}`;

/** Flip one owner's holds whose time to live has passed to `expired` (the caller holds, or first takes, the owner lock). */
export async function expireOwnerHolds(db: Executor, owner: OwnerRef, now: Date): Promise<ExpiredHold[]> {
  const at = now.toISOString();
  return (await (typeof owner === 'string'
    ? queryRows(db, EXPIRE_BY_ID, [owner, at])
    : queryRows(db, EXPIRE_BY_EMAIL, [owner.customerId, at, owner.email]))) as ExpiredHold[];
}

/** The full row a claim has once inserted (defaults as the schema declares them). */
export function claimRow(c: NewClaim): ClaimRow {
  return {
    id: c.id,
    customerId: c.customerId,
    ownerId: c.ownerId,
    calendarId: c.calendarId ?? null,
    agentId: c.agentId ?? null,
    meetingClassId: c.meetingClassId ?? null,
    kind: c.kind,
    status: c.status,
    startAt: c.startAt,
    endAt: c.endAt,
    holdScope: c.holdScope ?? null,
    durationMinutes: c.durationMinutes ?? null,
    expiresAt: c.expiresAt ?? null,
    promotedBookingId: c.promotedBookingId ?? null,
    holdId: c.holdId ?? null,
    source: c.source ?? 'agent',
    title: c.title ?? null,
    description: c.description ?? null,
    attendees: c.attendees ?? [],
    externalAccepted: c.externalAccepted ?? false,
    proposalId: c.proposalId ?? null,
    preemptedByClaimId: c.preemptedByClaimId ?? null,
    statusReason: c.statusReason ?? null,
    idempotencyKey: c.idempotencyKey ?? null,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export const INSERT_CLAIM = `insert into claims (id, customer_id, owner_id, calendar_id, agent_id, meeting_class_id, kind, status, start_at, end_at,
  hold_scope, duration_minutes, expires_at, promoted_booking_id, hold_id, source, title, description, attendees, external_accepted,
  proposal_id, preempted_by_claim_id, status_reason, idempotency_key, created_at, updated_at)
  values (${Array.from({ length: 26 }, (_, i) => `$${i + 1}`).join(', ')})`;

/** Insert a claim (the exclusion constraint has the last word) and return its row. */
export async function insertClaim(db: Executor, claim: NewClaim): Promise<ClaimRow> {
  const r = claimRow(claim);
  await queryRows(db, INSERT_CLAIM, [
    r.id, r.customerId, r.ownerId, r.calendarId, r.agentId, r.meetingClassId, r.kind, r.status, r.startAt.toISOString(), r.endAt.toISOString(),
    r.holdScope, r.durationMinutes, isoOrNull(r.expiresAt), r.promotedBookingId, r.holdId, r.source, r.title, r.description, JSON.stringify(r.attendees),
    r.externalAccepted, r.proposalId, r.preemptedByClaimId, r.statusReason, r.idempotencyKey, r.createdAt.toISOString(), r.updatedAt.toISOString(),
  ]);
  return r;
}

/**
 * The id of the claim this agent already made with this Idempotency-Key in the
 * last 24 h (keys are retained that long; after it the key may name a new request).
 */
export const MADE_WITH_KEY = 'select id from claims where agent_id = $1 and idempotency_key = $2 and kind = $3 and created_at > $4 limit 1';

export async function claimIdMadeWithKey(db: Executor, agentId: string, idempotencyKey: string, kind: 'hold' | 'booking', now: Date): Promise<string | undefined> {
  const since = new Date(now.getTime() - 24 * 3_600_000).toISOString();
  const [row] = await queryRows(db, MADE_WITH_KEY, [agentId, idempotencyKey, kind, since]);
  return row?.id as string | undefined;
}
