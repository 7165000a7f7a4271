import { claims, meetingClasses, owners } from '../schema';
import type { Executor } from '../client';
import { epochMs, insertStatement, names, pickList, pickMapper } from './columns';
import { queryRows } from './driver';
import { IDEMPOTENCY_RETENTION_MS } from './idempotency';

/**
 * The statements every claim decision and availability search runs on the claims table:
 * the claims around a request, the due holds expired, the new claim, the claim made with
 * an Idempotency-Key. Status values are literals, not parameters, so the planner can match
 * the exclusion constraint's partial GiST index even for a generic prepared plan. The texts
 * are exported for the booking benchmark, which replays them in pgbench
 * (bench/booking/pgbench.ts).
 */
export type ClaimRow = typeof claims.$inferSelect;
export type NewClaim = typeof claims.$inferInsert & { id: string; createdAt: Date; updatedAt: Date };

const c = names(claims);
const m = names(meetingClasses);
const o = names(owners);

/** A claim as the scheduling core needs it (times as epoch milliseconds), with its class's rank. */
export type ClaimFacts = {
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
  meeting_class: string | null;
  coverage: string | null;
  part_of_hold_id: string | null;
  group_id: string | null;
  /** The claim's buffers in minutes (docs/arbitration.md "Buffers"). */
  buffer_before: number;
  buffer_after: number;
  /** Its class's `on_preempted` (docs/arbitration.md "Bumped meetings rebooked"). */
  on_preempted: 'hold_nearest' | null;
};

const ms = (column: string) => epochMs(`c.${column}`);
const FACTS = `c.${c.id}, c.${c.kind}, c.${c.agentId} as agent_id, ${ms(c.startAt)} as start_ms, ${ms(c.endAt)} as end_ms, c.${c.holdScope} as hold_scope,
  c.${c.durationMinutes} as duration_minutes, ${ms(c.expiresAt)} as expires_ms, ${ms(c.createdAt)} as created_ms, c.${c.externalAccepted} as external_accepted,
  c.${c.source}, m.${m.priority}, m.${m.sacredMeetingAgeHours} as sacred_age, m.${m.name} as meeting_class, c.${c.coverage}, c.${c.partOfHoldId} as part_of_hold_id,
  c.${c.groupId} as group_id, c.${c.bufferBeforeMinutes} as buffer_before, c.${c.bufferAfterMinutes} as buffer_after, m.${m.onPreempted} as on_preempted`;
const inRange = (a: string) => `${a}.${c.status} in ('active', 'confirmed') and tstzrange(${a}.${c.startAt}, ${a}.${c.endAt}, '[)') && tstzrange($2::timestamptz, $3::timestamptz, '[)')`;
const IN_RANGE = inRange('c');
const FROM = `from claims c left join meeting_classes m on m.${m.id} = c.${c.meetingClassId}`;
/** The owner named by customer ($1) and normalised email (the next parameter), before its id is known. */
const ownerByEmail = (n: number) => `(select ${o.id} from owners where ${o.customerId} = $1 and ${o.email} = $${n})`;

/** The owner of the hold $h of customer $cu (a confirm, before the hold is read). */
export const ownerByHold = (h: number, cu: number) => `(select ${c.ownerId} from claims where ${c.id} = $${h} and ${c.customerId} = $${cu} and ${c.kind} = 'hold')`;

export const AROUND = `select ${FACTS} ${FROM} where c.${c.ownerId} = $1 and ${IN_RANGE}`;
export const AROUND_BY_EMAIL = `select ${FACTS} ${FROM} where c.${c.ownerId} = ${ownerByEmail(4)} and ${IN_RANGE}`;
/**
 * The hold $h of customer $cu was decided on what its owner and class are now: its stamp equals
 * the owner's rules_version and mirror_version and its class's version (docs/arbitration.md
 * "Confirm: when the hold's decision stands"). Uncorrelated: evaluated once per statement.
 */
export const holdDecisionCurrent = (h: number, cu: number) =>
  `exists (select 1 from claims h join owners ho on ho.${o.id} = h.${c.ownerId} join meeting_classes hm on hm.${m.id} = h.${c.meetingClassId}
    where h.${c.id} = $${h} and h.${c.customerId} = $${cu} and h.${c.decidedRulesVersion} = ho.${o.rulesVersion}
    and h.${c.decidedMirrorVersion} = ho.${o.mirrorVersion} and h.${c.decidedClassVersion} = hm.${m.version})`;

/**
 * A confirm's claims around its slot: none at all when its hold's decision is current (the
 * confirm does not arbitrate then, so it reads nothing it would not use); the hold itself is
 * otherwise always among them, so an empty answer means "not read" (loadConfirmAround).
 */
export const AROUND_BY_HOLD = `select ${FACTS} ${FROM} where c.${c.ownerId} = ${ownerByHold(1, 4)} and ${IN_RANGE} and not ${holdDecisionCurrent(1, 4)}`;

/**
 * An owner by id, by customer and (normalised) email before its id is known, or as the
 * owner of a hold of the customer (a confirm sends its reads with the hold's lock).
 */
export type OwnerRef = string | { customerId: string; email: string } | { customerId: string; holdId: string };

/**
 * How a statement names its owner, one text per form of OwnerRef: the owner's first
 * parameter (its id, the hold's id, or the customer) and, for the two other forms, a second
 * one later in the list (the customer, or the email).
 */
export type OwnerForms = { id: string; email: string; hold: string };
export function byOwner(owner: OwnerRef, texts: OwnerForms): { text: string; first: string; rest: string[] } {
  if (typeof owner === 'string') return { text: texts.id, first: owner, rest: [] };
  if ('holdId' in owner) return { text: texts.hold, first: owner.holdId, rest: [owner.customerId] };
  return { text: texts.email, first: owner.customerId, rest: [owner.email] };
}

/**
 * What a verdict on a slot reads of a claim (evaluate.ts): ClaimFacts less the agent, the class's
 * name and the group, which only a decision's answer and its notifications use. The collective
 * search reads these for up to 40 owners at once (server/domain/claims/groupFacts.ts).
 */
export type SearchFacts = Omit<ClaimFacts, 'agent_id' | 'meeting_class' | 'group_id' | 'on_preempted'>;

const SEARCH_FACTS = `c.${c.id}, c.${c.kind}, ${ms(c.startAt)} as start_ms, ${ms(c.endAt)} as end_ms, c.${c.holdScope} as hold_scope, c.${c.durationMinutes} as duration_minutes,
  ${ms(c.expiresAt)} as expires_ms, ${ms(c.createdAt)} as created_ms, c.${c.externalAccepted} as external_accepted, c.${c.source}, m.${m.priority},
  m.${m.sacredMeetingAgeHours} as sacred_age, c.${c.coverage}, c.${c.partOfHoldId} as part_of_hold_id, c.${c.bufferBeforeMinutes} as buffer_before,
  c.${c.bufferAfterMinutes} as buffer_after`;

/**
 * The search facts of several owners in one statement ($1: a JSON array of owner ids), each
 * owner's claims found through its own scan of the exclusion constraint's GiST index (owner and
 * range, as AROUND's), with the owner id. Ten owners' month is some 1,800 rows, and formatting
 * their values is most of the statement's time, hence the fewer columns
 * (docs/benchmarks/history/2026-11-26-collective-search.md). `offset 0` keeps the lateral subquery from being flattened: flattened,
 * the planner may scan the range for every owner of every customer and hash-join the ids.
 */
const SEARCH_FACTS_OF_OWNERS = `select c.${c.ownerId} as owner_id, ${SEARCH_FACTS} from jsonb_array_elements_text($1::jsonb) ids(id)
  cross join lateral (select * from claims c0 where c0.${c.ownerId} = ids.id::uuid and ${inRange('c0')} offset 0) c
  left join meeting_classes m on m.${m.id} = c.${c.meetingClassId}`;

/** Active claims of several owners overlapping [from, to) as search facts, by owner id (every id present, possibly with none). */
export async function searchFactsOfOwners(db: Executor, ownerIds: readonly string[], from: Date, to: Date): Promise<Map<string, SearchFacts[]>> {
  const rows = await queryRows(db, SEARCH_FACTS_OF_OWNERS, [JSON.stringify(ownerIds), from.toISOString(), to.toISOString()]);
  const out = new Map<string, SearchFacts[]>(ownerIds.map((id) => [id, []]));
  for (const r of rows) out.get(String(r.owner_id))?.push(r as SearchFacts);
  return out;
}

/** Active claims of an owner overlapping [from, to) (expired holds included; the clock judges them). */
export async function claimFactsAround(db: Executor, owner: OwnerRef, from: Date, to: Date): Promise<ClaimFacts[]> {
  const s = byOwner(owner, { id: AROUND, email: AROUND_BY_EMAIL, hold: AROUND_BY_HOLD });
  return (await queryRows(db, s.text, [s.first, from.toISOString(), to.toISOString(), ...s.rest])) as ClaimFacts[];
}

const EXPIRED_KEYS = ['id', 'customerId', 'ownerId', 'agentId', 'startAt', 'endAt', 'expiresAt', 'partOfHoldId'] as const;
/** What a hold expiry tells its agent. */
export type ExpiredHold = Pick<ClaimRow, (typeof EXPIRED_KEYS)[number]>;
const toExpired = pickMapper(claims, EXPIRED_KEYS);

const DUE = `${c.kind} = 'hold' and ${c.status} = 'active' and ${c.expiresAt} <= $1`;
const expire = (where: string) =>
  `update claims set ${c.status} = 'expired', ${c.statusReason} = 'ttl_elapsed', ${c.updatedAt} = $1 where ${where} returning ${pickList(claims, EXPIRED_KEYS)}`;
export const EXPIRE_BY_ID = expire(`${DUE} and ${c.ownerId} = $2`);
export const EXPIRE_BY_EMAIL = expire(`${DUE} and ${c.ownerId} = (select ${o.id} from owners where ${o.customerId} = $2 and ${o.email} = $3)`);
export const EXPIRE_BY_HOLD = expire(`${DUE} and ${c.ownerId} = ${ownerByHold(2, 3)}`);
/** The sweeper's: up to 500 due holds of any owner, skipping rows a decision in progress holds. */
const EXPIRE_SWEEP = expire(`${c.id} in (select ${c.id} from claims where ${DUE} limit 500 for update skip locked)`);

/** When the next active hold expires (the partial index claims_active_hold_expiry_idx answers it), or null. */
const NEXT_HOLD_EXPIRY = `select min(${c.expiresAt}) as "at" from claims where ${c.kind} = 'hold' and ${c.status} = 'active'`;

export async function nextHoldExpiry(db: Executor): Promise<Date | null> {
  const [row] = await queryRows(db, NEXT_HOLD_EXPIRY, []);
  return row?.at ? new Date(row.at as string | Date) : null;
}

/**
 * Flip holds whose time to live has passed to `expired`: one owner's (the caller holds, or
 * first takes, the owner lock), or with `null` the sweeper's batch.
 */
export async function expireHolds(db: Executor, owner: OwnerRef | null, now: Date): Promise<ExpiredHold[]> {
  const at = now.toISOString();
  if (owner === null) return (await queryRows(db, EXPIRE_SWEEP, [at])).map(toExpired);
  const s = byOwner(owner, { id: EXPIRE_BY_ID, email: EXPIRE_BY_EMAIL, hold: EXPIRE_BY_HOLD });
  return (await queryRows(db, s.text, [at, s.first, ...s.rest])).map(toExpired);
}

const INSERT = insertStatement(claims);
export const INSERT_CLAIM = INSERT.text;

/** The full row a claim has once inserted (defaults as the schema declares them). */
export const claimRow = (claim: NewClaim): ClaimRow => INSERT.fullRow(claim);

/** Insert a claim (the exclusion constraint has the last word) and return its row. */
export async function insertClaim(db: Executor, claim: NewClaim): Promise<ClaimRow> {
  const row = claimRow(claim);
  await queryRows(db, INSERT.text, INSERT.params(row));
  return row;
}

/** A confirmed hold leaves the exclusion constraint for its booking: $1 hold, $2 booking, $3 now. */
const PROMOTE_HOLD = `update claims set ${c.status} = 'promoted', ${c.promotedBookingId} = $2, ${c.updatedAt} = $3 where ${c.id} = $1`;

export async function promoteHold(db: Executor, holdId: string, bookingId: string, now: Date): Promise<void> {
  await queryRows(db, PROMOTE_HOLD, [holdId, bookingId, now.toISOString()]);
}

/** The further ranges of an all_free window hold let go: $1 hold, $2 new status, $3 reason, $4 now. */
const RELEASE_HOLD_PARTS = `update claims set ${c.status} = $2, ${c.statusReason} = $3, ${c.updatedAt} = $4 where ${c.partOfHoldId} = $1 and ${c.status} = 'active'`;

export async function releaseHoldParts(db: Executor, holdId: string, status: 'released' | 'expired' | 'preempted', reason: string, now: Date): Promise<void> {
  await queryRows(db, RELEASE_HOLD_PARTS, [holdId, status, reason, now.toISOString()]);
}

/**
 * The id of the claim this agent already made with this Idempotency-Key while the key is
 * retained (after that the key may name a new request).
 */
export const MADE_WITH_KEY = `select ${c.id} from claims where ${c.agentId} = $1 and ${c.idempotencyKey} = $2 and ${c.kind} = $3 and ${c.createdAt} > $4 limit 1`;

export async function claimIdMadeWithKey(db: Executor, agentId: string, idempotencyKey: string, kind: 'hold' | 'booking', now: Date): Promise<string | undefined> {
  const since = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS).toISOString();
  const [row] = await queryRows(db, MADE_WITH_KEY, [agentId, idempotencyKey, kind, since]);
  return row?.id as string | undefined;
}
