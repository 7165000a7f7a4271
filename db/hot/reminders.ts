import { bookingReminders, claims } from '../schema';
import type { Executor } from '../client';
import { columnList, epochMs, names, rowMapper } from './columns';
import { queryRows } from './driver';

/**
 * The statements of reminders (docs/reliability.md "Reminders"). Moving and dropping a booking's
 * reminders is the claims trigger's (migration 0035); these write them, lease the due ones and
 * record what was sent.
 */
const r = names(bookingReminders);
const c = names(claims);
/** NOTIFY channel announcing a pending reminder's due time on commit (migration 0035). */
export const REMINDERS_CHANNEL = 'booking_reminders';

/**
 * The reminders of a new booking, in its transaction: one row per offset whose due time is still
 * ahead. The id is derived from (booking, offset) and the pair is unique, so writing them twice
 * cannot schedule a reminder twice.
 */
const SCHEDULE = `insert into "booking_reminders" ("${r.id}", "${r.customerId}", "${r.bookingId}", "${r.offsetMinutes}", "${r.dueAt}", "${r.createdAt}")
select md5($2::text || ':' || o::text)::uuid, $1::uuid, $2::uuid, o, $3::timestamptz - make_interval(mins => o), $4::timestamptz
from unnest($5::int[]) as o
where $3::timestamptz - make_interval(mins => o) > $4::timestamptz
on conflict do nothing`;

export async function scheduleReminders(db: Executor, b: { customerId: string; bookingId: string; startAt: Date; offsets: readonly number[]; now: Date }): Promise<void> {
  if (!b.offsets.length) return;
  await queryRows(db, SCHEDULE, [b.customerId, b.bookingId, b.startAt.toISOString(), b.now.toISOString(), `{${b.offsets.join(',')}}`]);
}

/**
 * Lease up to $2 due reminders: pending, due by $1, with no live lease. Two workers racing: SKIP
 * LOCKED hands each row to one of them, and the UPDATE's own recheck of the lease keeps a row
 * leased by a committed competitor. Returns each row with what its messages need: the booking's
 * time, title, attendees, agent, proposal and owner.
 */
const LEASE_DUE = `with due as (
  select "${r.id}" as id from "booking_reminders"
  where "${r.status}" = 'pending' and "${r.dueAt}" <= $1::timestamptz and ("${r.leaseUntil}" is null or "${r.leaseUntil}" <= $1::timestamptz)
    and ($4::uuid is null or "${r.customerId}" = $4::uuid)
  order by "${r.dueAt}"
  limit $2
  for update skip locked
)
update "booking_reminders" x set "${r.leaseUntil}" = $3::timestamptz, "${r.attempts}" = x."${r.attempts}" + 1
from due, "claims" b
where x."${r.id}" = due.id and b."${c.id}" = x."${r.bookingId}" and x."${r.status}" = 'pending'
  and (x."${r.leaseUntil}" is null or x."${r.leaseUntil}" <= $1::timestamptz)
returning ${columnList(bookingReminders, 'x', 'r_')}, ${columnList(claims, 'b', 'b_')}`;

const toReminder = rowMapper(bookingReminders, 'r_');
const toBooking = rowMapper(claims, 'b_');
export type LeasedReminder = typeof bookingReminders.$inferSelect & { booking: typeof claims.$inferSelect };

/** `customerId`: only that customer's reminders (a test's or a bench's own; the server's worker passes none). */
export async function leaseDueReminders(db: Executor, now: Date, limit: number, leaseUntil: Date, customerId: string | null = null): Promise<LeasedReminder[]> {
  const rows = await queryRows(db, LEASE_DUE, [now.toISOString(), limit, leaseUntil.toISOString(), customerId]);
  return rows.map((raw) => ({ ...toReminder(raw), booking: toBooking(raw) }));
}

/**
 * Record a leased reminder as sent (or skipped), only while this worker's lease on it holds and
 * it is still pending: false when a move or cancel changed it meanwhile, or another worker took
 * it over after the lease ran out. Run it in the transaction that writes the reminder's
 * notification and webhook event, so they commit exactly when the row turns.
 */
const FINISH = `update "booking_reminders" set "${r.status}" = $4, "${r.sentAt}" = $3::timestamptz, "${r.leaseUntil}" = null
where "${r.id}" = $1::uuid and "${r.status}" = 'pending' and "${r.leaseUntil}" = $2::timestamptz
returning "${r.id}"`;

export async function finishReminder(db: Executor, id: string, lease: Date, at: Date, status: 'sent' | 'skipped'): Promise<boolean> {
  return (await queryRows(db, FINISH, [id, lease.toISOString(), at.toISOString(), status])).length === 1;
}

/** Keep a leased reminder for another attempt at $3 (its mail could not be sent); only while the lease holds. */
const RETRY = `update "booking_reminders" set "${r.leaseUntil}" = $3::timestamptz where "${r.id}" = $1::uuid and "${r.status}" = 'pending' and "${r.leaseUntil}" = $2::timestamptz`;

export async function retryReminderAt(db: Executor, id: string, lease: Date, at: Date): Promise<void> {
  await queryRows(db, RETRY, [id, lease.toISOString(), at.toISOString()]);
}

/**
 * When the next pending reminder falls due: the earliest due time of an unleased one, or the
 * earliest lease to run out (a worker that died holding it, or a retry); null when none is
 * pending. Two probes of the pending index: the worker sleeps until then.
 */
const NEXT_DUE = `select ${epochMs(`least(
  (select min("${r.dueAt}") from "booking_reminders" where "${r.status}" = 'pending' and "${r.leaseUntil}" is null and ($1::uuid is null or "${r.customerId}" = $1::uuid)),
  (select min("${r.leaseUntil}") from "booking_reminders" where "${r.status}" = 'pending' and "${r.leaseUntil}" is not null and ($1::uuid is null or "${r.customerId}" = $1::uuid))
)`)} as next`;

export async function nextReminderDue(db: Executor, customerId: string | null = null): Promise<Date | null> {
  const [row] = await queryRows(db, NEXT_DUE, [customerId]);
  return row?.next == null ? null : new Date(Number(row.next));
}
