/**
 * The statements createBooking sends (the service's own texts, imported from its modules),
 * issued directly through postgres.js as named prepared statements and pipelined as the service
 * pipelines them (BEGIN with the target look-up, key look-up, hold expiry and claims-around in one
 * round trip; claim insert, audit row, the stored response and COMMIT in the next): no query
 * builder, no row mapping, no arbitration. It shows what a Node process on this driver costs by
 * itself, between pgbench (C) and the service's code path. It is not a strict ceiling: it has no
 * per-owner queue (inQueue in server/domain/claims/claimRunner.ts), so two callers on one owner wait
 * for the owner's row lock inside PostgreSQL, holding their connections, where the service
 * queues them in memory.
 */
import postgres from 'postgres';
import { AROUND_BY_EMAIL, EXPIRE_BY_EMAIL, INSERT_CLAIM, MADE_WITH_KEY } from '@/db/hot/claims';
import { INSERT_AUDIT } from '@/db/hot/audit';
import { auditLog, claims } from '@/db/schema';
import { insertArgs } from './insertArgs';
import { targetStatement } from '@/db/hot/target';
import { VERDICT_CLAIMS_MARGIN_MS } from '@/server/domain/scheduling';
import { newId } from '@/server/domain/ids';
import { CLAIM_KEY, COMPLETE_KEY, IDEMPOTENCY_RETENTION_MS } from '@/db/hot/idempotency';

type Params = Parameters<postgres.Sql['unsafe']>[1];
type AnySql = postgres.Sql | postgres.ReservedSql;

export type RawBookingInput = { customerId: string; agentId: string; className: string; ownerEmail: string; start: Date; end: Date; key: string | null; fingerprint: string };

const TARGET = targetStatement(false, true);
const q = (s: AnySql, text: string, params: unknown[]) => s.unsafe(text, params as Params, { prepare: true });

/** One booking: the wrapper's idempotency insert, then the claim transaction, which stores the response. */
export async function rawBooking(sql: postgres.Sql, b: RawBookingInput): Promise<void> {
  const now = new Date();
  const at = now.toISOString();
  let recordId: string | null = null;
  if (b.key) {
    const [rec] = await q(sql, CLAIM_KEY, [newId(), b.agentId, 'POST', '/v1/bookings', b.key, b.fingerprint, new Date(now.getTime() + 30_000).toISOString(), at, new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS).toISOString()]);
    if (!rec) throw new Error('idempotency key already used');
    recordId = rec.id as string;
  }
  const tx = await sql.reserve();
  let body: string;
  try {
    const began = q(tx, 'begin', []).execute();
    const [[row], , , around] = await Promise.all([
      q(tx, TARGET, [b.customerId, b.ownerEmail, b.className]),
      b.key ? q(tx, MADE_WITH_KEY, [b.agentId, b.key, 'booking', new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS).toISOString()]) : Promise.resolve([]),
      q(tx, EXPIRE_BY_EMAIL, [at, b.customerId, b.ownerEmail]),
      q(tx, AROUND_BY_EMAIL, [b.customerId, new Date(b.start.getTime() - VERDICT_CLAIMS_MARGIN_MS).toISOString(), new Date(b.end.getTime() + VERDICT_CLAIMS_MARGIN_MS).toISOString(), b.ownerEmail]),
      began,
    ]);
    if (!row || around.some((c) => (c.start_ms as number) < b.end.getTime() && (c.end_ms as number) > b.start.getTime())) throw new Error('slot taken');
    const id = newId(now.getTime());
    const start = b.start.toISOString();
    const end = b.end.toISOString();
    body = JSON.stringify({ booking_id: id, owner_email: row.o_email, meeting_class: row.m_name, start, end, status: 'confirmed' });
    // As the service: claim, audit row, the stored response and COMMIT in one round trip.
    await Promise.all([
      q(tx, INSERT_CLAIM, insertArgs<typeof claims, unknown>(claims, { id, customerId: b.customerId, ownerId: row.o_id, calendarId: row.c_id, agentId: b.agentId, meetingClassId: row.m_id, kind: 'booking', status: 'confirmed', startAt: start, endAt: end, source: 'agent', attendees: '[]', externalAccepted: false, idempotencyKey: b.key, sequence: 0, createdAt: at, updatedAt: at }, null)),
      q(tx, INSERT_AUDIT, insertArgs<typeof auditLog, unknown>(auditLog, { id: newId(now.getTime()), customerId: b.customerId, at, agentId: b.agentId, ownerId: row.o_id, ownerEmail: row.o_email, actorKind: 'agent', action: 'booking.create', outcome: 'accept', meetingClass: row.m_name, startAt: start, endAt: end, bookingId: id, preemptedBookingIds: '{}', idempotencyKey: b.key }, null)),
      recordId ? q(tx, COMPLETE_KEY, [recordId, 201, body]) : Promise.resolve([]),
      q(tx, 'commit', []),
    ]);
  } catch (err) {
    await q(tx, 'rollback', []).catch(() => {});
    throw err;
  } finally {
    tx.release();
  }
}
