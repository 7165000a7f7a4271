/**
 * The statements createBooking sends (the exact SQL text drizzle generates,
 * captured with a query logger), issued directly through postgres.js as named
 * prepared statements: no query builder, no row mapping, no arbitration. It is
 * the ceiling for a Node process on this driver, between pgbench (C) and the
 * service's code path, so the gap splits into "driver and event loop" and
 * "ORM and domain".
 */
import postgres from 'postgres';
import { newId } from '@/server/domain/ids';

const CLAIM_COLS =
  '"id", "customer_id", "owner_id", "calendar_id", "agent_id", "meeting_class_id", "kind", "status", "start_at", "end_at", "hold_scope", "duration_minutes", "expires_at", "promoted_booking_id", "hold_id", "source", "title", "description", "attendees", "external_accepted", "proposal_id", "preempted_by_claim_id", "status_reason", "idempotency_key", "created_at", "updated_at"';
const QUALIFIED = CLAIM_COLS.split(', ').map((c) => `"claims".${c}`).join(', ');

const Q = {
  idemInsert:
    'insert into "idempotency_records" ("id", "agent_id", "method", "path", "key", "fingerprint", "state", "locked_until", "response_status", "response_body", "created_at", "expires_at") values ($1, $2, $3, $4, $5, $6, $7, $8, default, default, $9, $10) on conflict do nothing returning "id"',
  meetingClass:
    'select "id", "customer_id", "name", "priority", "preempt_policy", "sacred_meeting_age_hours", "created_at" from "meeting_classes" where ("meeting_classes"."customer_id" = $1 and "meeting_classes"."name" = $2) limit $3',
  owner:
    'select "id", "customer_id", "email", "name", "time_zone", "role", "password_hash", "working_hours", "hard_blocks", "max_daily_meeting_hours", "created_at", "updated_at" from "owners" where ("owners"."customer_id" = $1 and "owners"."email" = $2) limit $3 for update',
  calendar:
    'select "id", "customer_id", "owner_id", "type", "is_primary", "status", "display_name", "credentials", "created_at", "updated_at" from "calendars" where ("calendars"."owner_id" = $1 and "calendars"."status" <> $2 and "calendars"."is_primary" = $3) order by "calendars"."is_primary" desc, ("calendars"."status" = \'active\') desc, "calendars"."created_at" asc',
  madeWithKey: `select ${CLAIM_COLS} from "claims" where ("claims"."agent_id" = $1 and "claims"."idempotency_key" = $2 and "claims"."kind" = $3 and "claims"."created_at" > $4) limit $5`,
  expire: `update "claims" set "status" = $1, "status_reason" = $2, "updated_at" = $3 where ("claims"."owner_id" = $4 and ("claims"."kind" = $5 and "claims"."status" = $6 and "claims"."expires_at" <= $7)) returning ${CLAIM_COLS}`,
  around: `select ${QUALIFIED}, "meeting_classes"."priority", "meeting_classes"."sacred_meeting_age_hours", "meeting_classes"."name" from "claims" left join "meeting_classes" on "meeting_classes"."id" = "claims"."meeting_class_id" where ("claims"."owner_id" = $1 and "claims"."status" in ($2, $3) and tstzrange("claims"."start_at", "claims"."end_at", '[)') && tstzrange($4::timestamptz, $5::timestamptz, '[)'))`,
  insertClaim: `insert into "claims" (${CLAIM_COLS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, default, default, default, default, $11, $12, $13, $14, $15, default, default, default, default, $16, $17, $18) returning ${CLAIM_COLS}`,
  audit:
    'insert into "audit_log" ("id", "customer_id", "at", "agent_id", "owner_id", "owner_email", "action", "outcome", "reason", "meeting_class", "start_at", "end_at", "hold_id", "booking_id", "preempted_booking_ids", "idempotency_key", "details") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, default)',
  idemDone: 'update "idempotency_records" set "state" = $1, "locked_until" = $2, "response_status" = $3, "response_body" = $4 where "idempotency_records"."id" = $5',
};

const MARGIN_MS = 98 * 3_600_000;
type Params = Parameters<postgres.Sql['unsafe']>[1];

export type RawBookingInput = { customerId: string; agentId: string; className: string; ownerEmail: string; start: Date; end: Date; key: string | null; fingerprint: string };

/** One booking: the wrapper's idempotency insert, the claim transaction, the idempotency update. */
export async function rawBooking(sql: postgres.Sql, b: RawBookingInput): Promise<void> {
  const now = new Date();
  const q = (s: postgres.Sql | postgres.TransactionSql, text: string, params: unknown[]) => s.unsafe(text, params as Params, { prepare: true });
  let recordId: string | null = null;
  if (b.key) {
    const [rec] = await q(sql, Q.idemInsert, [newId(), b.agentId, 'POST', '/v1/bookings', b.key, b.fingerprint, 'in_flight', new Date(now.getTime() + 30_000), now, new Date(now.getTime() + 86_400_000)]);
    if (!rec) throw new Error('idempotency key already used');
    recordId = rec.id as string;
  }
  const body = await sql.begin(async (tx) => {
    const [mc] = await q(tx, Q.meetingClass, [b.customerId, b.className, 1]);
    const [owner] = await q(tx, Q.owner, [b.customerId, b.ownerEmail, 1]);
    const [cal] = await q(tx, Q.calendar, [owner.id, 'disconnected', true]);
    if (b.key) await q(tx, Q.madeWithKey, [b.agentId, b.key, 'booking', new Date(now.getTime() - 86_400_000), 1]);
    await q(tx, Q.expire, ['expired', 'ttl_elapsed', now, owner.id, 'hold', 'active', now]);
    await q(tx, Q.around, [owner.id, 'active', 'confirmed', new Date(b.start.getTime() - MARGIN_MS).toISOString(), new Date(b.end.getTime() + MARGIN_MS).toISOString()]);
    const id = newId(now.getTime());
    const [row] = await q(tx, Q.insertClaim, [id, b.customerId, owner.id, cal.id, b.agentId, mc.id, 'booking', 'confirmed', b.start, b.end, null, 'agent', null, null, '[]', b.key, now, now]);
    await q(tx, Q.audit, [newId(now.getTime()), b.customerId, now, b.agentId, owner.id, owner.email, 'booking.create', 'accept', null, mc.name, b.start, b.end, null, row.id, '{}', b.key]);
    return JSON.stringify({ booking_id: row.id, owner_email: owner.email, meeting_class: mc.name, start: b.start.toISOString(), end: b.end.toISOString(), status: 'confirmed' });
  });
  if (recordId) await q(sql, Q.idemDone, ['done', null, 201, body, recordId]);
}
