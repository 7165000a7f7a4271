import { agents, apiKeys, calendars, idempotencyRecords, notifications, owners } from '../schema';
import type { Executor } from '../client';
import { names, pickList, pickMapper } from './columns';
import { queryRows } from './driver';
import { COMPLETE_KEY } from './idempotency';

/**
 * The statements every agent request runs around its operation (server/http/handler.ts):
 * the API key look-up, the owner's provider calendars (the calendar gate and the busy time
 * of every claim decision) and the drain of pending notifications on an error answer.
 * Constant texts as named prepared statements, so they cost no query building.
 */
const k = names(apiKeys);
const a = names(agents);
const c = names(calendars);
const o = names(owners);
const n = names(notifications);
const r = names(idempotencyRecords);

const API_KEY_BY_HASH = `select k.${k.id} as key_id, k.${k.revokedAt} as revoked_at, k.${k.lastUsedAt} as last_used_at, a.${a.id} as agent_id,
  a.${a.customerId} as customer_id, a.${a.ownerScope} as owner_scope, a.${a.permissions} as permissions, a.${a.disabled} as disabled,
  coalesce(k.${k.displayTimeZone}, a.${a.displayTimeZone}) as display_time_zone
  from api_keys k join agents a on a.${a.id} = k.${k.agentId} where k.${k.keyHash} = $1 limit 1`;

export type ApiKeyRow = {
  keyId: string;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  agentId: string;
  customerId: string;
  ownerScope: string;
  permissions: (typeof agents.$inferSelect)['permissions'];
  disabled: boolean;
  /** The key's display_time_zone, else its agent's (null: none). */
  displayTimeZone: string | null;
};

const instant = (v: unknown): Date | null => (v === null || v === undefined ? null : (apiKeys.revokedAt.mapFromDriverValue(v as string) as Date));

/** The key with this hash and its agent, or undefined. */
export async function apiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  const [r] = await queryRows(db, API_KEY_BY_HASH, [keyHash]);
  if (!r) return undefined;
  return {
    keyId: r.key_id as string,
    revokedAt: instant(r.revoked_at),
    lastUsedAt: instant(r.last_used_at),
    agentId: r.agent_id as string,
    customerId: r.customer_id as string,
    ownerScope: r.owner_scope as string,
    permissions: agents.permissions.mapFromDriverValue(r.permissions as string[]) as ApiKeyRow['permissions'],
    disabled: r.disabled as boolean,
    displayTimeZone: (r.display_time_zone as string | null) ?? null,
  };
}

/** Where PostgreSQL announces changes that can turn a verified key away (migration 0024; docs/architecture.md "API keys"). */
export const API_KEY_AUTH_CHANNEL = 'api_key_auth';

const TOUCH_API_KEY = `update api_keys set ${k.lastUsedAt} = $2 where ${k.id} = $1`;

export async function touchApiKey(db: Executor, keyId: string, at: Date): Promise<void> {
  await queryRows(db, TOUCH_API_KEY, [keyId, at.toISOString()]);
}

const PROVIDER_COLUMNS = `c.${c.id}, c.${c.type}, c.${c.displayName} as display_name, c.${c.status}, c.${c.checkConflicts} as check_conflicts,
  c.${c.lastSyncedAt} as last_synced_at, o.${o.email} as owner_email`;
const PROVIDER_WHERE = `c.${c.type} <> 'internal' and c.${c.status} <> 'disconnected'`;
const PROVIDER_CALENDARS_BY_ID = `select ${PROVIDER_COLUMNS} from calendars c join owners o on o.${o.id} = c.${c.ownerId} where o.${o.id} = $1 and ${PROVIDER_WHERE}`;
const PROVIDER_CALENDARS_BY_EMAIL = `select ${PROVIDER_COLUMNS} from calendars c join owners o on o.${o.id} = c.${c.ownerId}
  where o.${o.customerId} = $1 and o.${o.email} = $2 and ${PROVIDER_WHERE}`;

export type ProviderCalendarRow = { id: string; type: string; displayName: string | null; status: string; checkConflicts: boolean; lastSyncedAt: Date | null; ownerEmail: string };

/** An owner's connected calendars other than the internal one (by id, or by customer and normalised email). */
export async function providerCalendarRows(db: Executor, owner: string | { customerId: string; email: string }): Promise<ProviderCalendarRow[]> {
  const rows =
    typeof owner === 'string' ? await queryRows(db, PROVIDER_CALENDARS_BY_ID, [owner]) : await queryRows(db, PROVIDER_CALENDARS_BY_EMAIL, [owner.customerId, owner.email]);
  return rows.map((r) => ({
    id: r.id as string,
    type: r.type as string,
    displayName: (r.display_name as string | null) ?? null,
    status: r.status as string,
    checkConflicts: r.check_conflicts as boolean,
    lastSyncedAt: instant(r.last_synced_at),
    ownerEmail: r.owner_email as string,
  }));
}

/** The columns a drain returns (every statement below), and their mapper. */
const DRAINED = ['id', 'seq', 'customerId', 'agentId', 'kind', 'data', 'createdAt', 'deliveredAt', 'own'] as const;
const DRAINED_LIST = pickList(notifications, DRAINED);
const toNotification = pickMapper(notifications, DRAINED);

/** Deliver (mark) up to $3 of an agent's pending notifications, oldest first, skipping rows another drain holds. */
const DRAIN = `update notifications set ${n.deliveredAt} = $2 where ${n.id} in (
  select ${n.id} from notifications where ${n.agentId} = $1 and ${n.deliveredAt} is null order by ${n.createdAt} asc, ${n.id} asc limit $3 for update skip locked)
  returning ${DRAINED_LIST}`;
/** DRAIN behind the completion of an Idempotency-Key's record ($4, answered $5 with the body $6; COMPLETE_KEY), in one statement. */
const COMPLETE_KEY_AND_DRAIN = `with completed as (${COMPLETE_KEY.replace(/\$(\d)/g, (_, i: string) => `$${Number(i) + 3}`)}) ${DRAIN}`;

/** A keyed request's refusal to store as its key's answer (db/hot/idempotency.ts completeKeyRecord) while draining. */
export type KeyCompletion = { recordId: string; status: number; bodyText: string };

/**
 * Deliver up to `max` of an agent's pending notifications; with `complete`, the key's record
 * takes its answer in the same statement (an error answer stores its body and drains the
 * agent's queue: one round trip and one commit instead of two).
 */
export async function drainNotificationRows(db: Executor, agentId: string, now: Date, max: number, complete?: KeyCompletion): Promise<(typeof notifications.$inferSelect)[]> {
  const rows = complete
    ? await queryRows(db, COMPLETE_KEY_AND_DRAIN, [agentId, now.toISOString(), max, complete.recordId, complete.status, complete.bodyText])
    : await queryRows(db, DRAIN, [agentId, now.toISOString(), max]);
  return rows.map(toNotification);
}

const ANSWERS = new Map<number, string>();
/**
 * COMPLETE_KEY_AND_DRAIN for `count` keyed refusals at once (texts cached per count): every
 * key's record takes its answer, and each agent named gives up to $2 of its pending
 * notifications ($1: the delivery time), all in one statement.
 */
function completeKeysAndDrain(count: number): string {
  let text = ANSWERS.get(count);
  if (!text) {
    const tuples = Array.from({ length: count }, (_, i) => {
      const p = 3 + i * 4;
      return i === 0 ? `($${p}::uuid, $${p + 1}::int, $${p + 2}::text, $${p + 3}::uuid)` : `($${p}, $${p + 1}, $${p + 2}, $${p + 3})`;
    });
    text = `with answers (record_id, status, body, agent_id) as (values ${tuples.join(', ')}),
  completed as (update idempotency_records set ${r.state} = 'done', ${r.lockedUntil} = null, ${r.responseStatus} = answers.status, ${r.responseBody} = answers.body
    from answers where idempotency_records.${r.id} = answers.record_id)
  update notifications set ${n.deliveredAt} = $1 where ${n.id} in (
    select due.${n.id} from (select distinct agent_id from answers) agent cross join lateral (
      select ${n.id} from notifications where ${n.agentId} = agent.agent_id and ${n.deliveredAt} is null
      order by ${n.createdAt} asc, ${n.id} asc limit $2 for update skip locked) due)
  returning ${DRAINED_LIST}`;
    ANSWERS.set(count, text);
  }
  return text;
}

/**
 * Several keyed refusals at once (a burst of losers, server/domain/notificationService.ts):
 * each key's record takes its answer and each agent's queue is drained (up to `max` each), in
 * one statement; one refusal alone goes as COMPLETE_KEY_AND_DRAIN. The rows delivered, of
 * every agent named.
 */
export async function completeKeysAndDrainRows(db: Executor, refusals: (KeyCompletion & { agentId: string })[], now: Date, max: number): Promise<(typeof notifications.$inferSelect)[]> {
  if (refusals.length === 1) return drainNotificationRows(db, refusals[0].agentId, now, max, refusals[0]);
  const params = [now.toISOString(), max, ...refusals.flatMap((f) => [f.recordId, f.status, f.bodyText, f.agentId])];
  return (await queryRows(db, completeKeysAndDrain(refusals.length), params)).map(toNotification);
}
